"""`statedump hook EVENT`: each agent's hook input read, the work done, the answer in its format.

Formats implemented (checked late 2026, see docs/agents.md for the sources):

- Claude Code (hooks reference, v2.1.76+ for PostCompact): JSON on stdin with `session_id`,
  `transcript_path`, `cwd`, `hook_event_name` and per event `trigger` / `compact_summary` /
  `source` / `reason` / `tool_name` + `tool_input.command`; answers `{"hookSpecificOutput":
  {"hookEventName": ..., "permissionDecision": "deny|ask", "permissionDecisionReason": ...}}`,
  `additionalContext` for context the model reads, `systemMessage` for the user.
- Codex (codex-rs/hooks `*.command.input/output.schema.json`): the same wire shape, but a
  PreToolUse answer may not say `ask` (nor `allow` without `updatedInput`): ask becomes deny.
- opencode: our own plugin (`opencode_plugin.js`, written by `configs.plugin_text`) sends the same input fields and reads
  `{"decision": "deny|ask|warn", "reason": ...}` back, or plain text for compaction context.

Every event answers within the agent's budget: the guard from a precomputed file, capture by
queueing the work for a worker (`capture`), re-inject by rendering the resume prompt.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, NamedTuple

CAPTURE = ("PreCompact", "SessionEnd", "Stop")
"""Events that import the transcript (PreCompact also tags a dump)."""
EVENTS = ("PreToolUse", "SessionStart", "PostCompact", *CAPTURE)
SHELL_TOOLS = frozenset({"Bash", "bash", "shell", "exec_command", "local_shell", "container.exec"})
"""Tool names of the agents' shell tools (Claude Code `Bash`, Codex `Bash` in hooks, opencode `bash`)."""
REINJECT_SOURCES = frozenset({"compact", "resume", "clear"})


class Options(NamedTuple):
    """How the hook was installed: what its command line says."""

    agent: str = "claude-code"
    guard: str = "warn"
    budget: int = 2000
    store: str | None = None
    session: str | None = None


class Answer(NamedTuple):
    """What the hook prints (nothing, JSON or plain text); the exit status is always 0."""

    stdout: str = ""


def read_input(raw: bytes) -> dict[str, Any]:
    """The hook's JSON input; anything else is an empty input (the hook then does nothing)."""
    if not raw.strip():
        return {}
    data = json.loads(raw)
    return data if isinstance(data, dict) else {}


def _json(data: dict[str, Any]) -> Answer:
    return Answer(json.dumps(data, ensure_ascii=False))


SHORT = 300
"""Characters of the line shown to the user (`systemMessage`)."""


def short_line(text: str, limit: int = SHORT) -> str:
    """`text` cut to `limit` characters at a word boundary, an ellipsis saying it was cut."""
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    space = cut.rfind(" ")
    if text[limit - 1] != " " and space > limit // 2:  # mid-word: back to the word's start
        cut = cut[:space]
    return cut.rstrip(" ,;:-") + "…"


def guard_answer(agent: str, mode: str, reason: str) -> Answer:
    """The agent's answer for a command the records contradict, in `mode` (warn, ask, deny)."""
    if agent == "opencode":
        return _json({"decision": mode, "reason": reason})
    if mode == "warn":
        first = reason.splitlines()[1].lstrip("- ") if "\n" in reason else reason
        return _json(
            {
                "systemMessage": f"statedump guard: {short_line(first)}",
                "hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": reason},
            }
        )
    decision = "deny" if mode == "deny" or agent == "codex" else "ask"
    return _json(
        {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": decision, "permissionDecisionReason": reason}}
    )


def context_answer(agent: str, event: str, text: str) -> Answer:
    """Context for the model: Claude Code and Codex as `additionalContext`, opencode as plain text."""
    if agent == "opencode":
        return Answer(text)
    return _json({"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}})


def shell_command(data: dict[str, Any]) -> str | None:
    """The command of a shell tool call, or None for any other tool."""
    if data.get("tool_name") not in SHELL_TOOLS:
        return None
    tool_input = data.get("tool_input")
    command = tool_input.get("command") if isinstance(tool_input, dict) else None
    if isinstance(command, list):  # Codex's exec-style calls give argv
        command = " ".join(str(w) for w in command)
    return command if isinstance(command, str) else None


def run_guard(root: Path, opts: Options, data: dict[str, Any]) -> Answer:
    """PreToolUse: check a shell command against the records; silent when it agrees with them."""
    if opts.guard == "off":
        return Answer()
    command = shell_command(data)
    if command is None:
        return Answer()
    from statedump.services.agents.guard import check_command, reason, triggered
    from statedump.services.agents.guardfile import refresh, rules_for

    header = refresh(root, opts.session)
    if not triggered(header, command):
        return Answer()  # names no flag any rule is about: the rules are not even read
    hits = check_command(rules_for(root, opts.session, header), command)
    if not hits:
        return Answer()
    return guard_answer(opts.agent, opts.guard, reason(hits, opts.guard))


def run_reinject(root: Path, opts: Options, data: dict[str, Any]) -> Answer:
    """SessionStart after a compaction, a resume or a clear: the resume prompt, within the budget."""
    if opts.agent != "opencode" and data.get("source") not in REINJECT_SOURCES:
        return Answer()
    return context_answer(opts.agent, "SessionStart", resume_text(root, opts))


FLAVORS = {"claude-code": "claude", "codex": "codex", "opencode": "opencode"}


def resume_text(root: Path, opts: Options) -> str:
    """The budgeted resume prompt for this agent."""
    from statedump.core.store.store import Store
    from statedump.services.report.resume import resume_for

    return resume_for(Store(root), opts.session, flavor=FLAVORS.get(opts.agent, "plain"), budget=opts.budget).text
