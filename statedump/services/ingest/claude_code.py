"""Claude Code transcripts (`~/.claude/projects/<project>/<session>.jsonl`), streamed.

Session facts come from the line envelopes (cwd, git branch, version, session id) and the
assistant messages (model). Messages the person typed (and slash commands' arguments or
prompts) become instructions, with the line's uuid as source and its timestamp as time, done
once the agent carried them out (turns.py); acknowledgements, harness text and the prompts
of inline sidechains are left out. Tool calls go to actions.py; the reply that closes a turn
is a report (reports.py); subagent files beside the session are followed (subagents.py).
Compaction summaries (`isCompactSummary` user lines) are imported as Markdown and become
checkpoints; so does an empty user message followed by a state dump. Which lines need no
parse is told from their bytes (claude_lines.py).
"""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path
from typing import Any

from statedump.models import Instruction
from statedump.services.ingest.actions import Actions
from statedump.services.ingest.chatter import is_chatter
from statedump.services.ingest.claude_bytes import TOOLS
from statedump.services.ingest.claude_lines import ACTING, NOW, Calls, PassOver
from statedump.services.ingest.jsonl import Progress, iter_jsonl
from statedump.services.ingest.plan import ImportPlan
from statedump.services.ingest.reports import report
from statedump.services.ingest.subagents import follow
from statedump.services.ingest.transcript import Transcript, when
from statedump.services.ingest.turns import Turns

_HARNESS = (
    "<command-name>",
    "<command-message>",
    "<command-args>",
    "<local-command-stdout>",
    "<local-command-stderr>",
    "<system-reminder>",
    "<task-notification>",
    "<bash-input>",
    "<bash-stdout>",
    "Caveat: ",
    "[Request interrupted by user",
)


_COMMAND = re.compile(r"<command-name>\s*(/?[^<\s]*)\s*</command-name>")
_ARGS = re.compile(r"<command-args>(.*?)</command-args>", re.S)


def _slash(text: str) -> tuple[str, str] | None:
    """A slash command the person typed (`<command-name>/init</command-name>`): (name, arguments)."""
    found = _COMMAND.search(text) if "<command-name>" in text[:400] else None
    if found is None:
        return None
    args = _ARGS.search(text)
    return found.group(1), (args.group(1).strip() if args else "")


def _raw_text(content: Any) -> str | None:
    """A user message's text, or None for a tool result."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        if any(isinstance(b, dict) and b.get("type") == "tool_result" for b in content):
            return None
        return "\n\n".join(str(b.get("text", "")) for b in content if isinstance(b, dict) and b.get("type") == "text")
    return None


def _user_text(content: Any) -> str | None:
    """What the person typed, or None for a tool result or harness text."""
    text = _raw_text(content)
    return None if text is None or text.lstrip().startswith(_HARNESS) else text


def _assistant_text(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n\n".join(str(b.get("text", "")) for b in content if isinstance(b, dict) and b.get("type") == "text")
    return ""


_PassOver = PassOver  # (tests build one to see which lines it passes over)


def read(path: Path, progress: Progress | None = None, *, parse_all: bool = False) -> ImportPlan:
    """Read a Claude Code transcript into a plan (`parse_all`: parse every line, for tests
    that compare the plan with the one tool rounds passed over unparsed give)."""
    plan = ImportPlan("claude-code", path)
    talk = Transcript(plan, "claude-code")
    version = None
    turns = Turns(plan, "claude-code")
    over = PassOver(plan, talk, turns)
    calls = Calls(over)
    acts = Actions(plan, agent="claude-code")
    lines = iter_jsonl(path, plan, "Claude Code transcript (JSONL)", progress, None if parse_all else calls)
    alone: bool | None = None
    """A subagent's own file (its first line is a sidechain): its sidechain lines are its conversation."""
    compacting = False
    expands: str | None = None
    """The uuid of a slash command whose prompt comes next (as an isMeta line)."""
    titles: list[tuple[str, object]] = []
    prompts: dict[str, list[str]] = {"": []}
    uuids: set[str] = set()
    for number, line in lines:
        kind = line.get("type")
        if kind == "custom-title":
            plan.fact("title", line.get("customTitle"))
            continue
        if kind == "summary":
            # 1.0.x puts the titles of the project's other sessions at the top: only a title whose
            # leaf is in this file is this session's (decided at the end).
            if isinstance(line.get("summary"), str):
                titles.append((line["summary"], line.get("leafUuid")))
            continue
        if kind not in ("user", "assistant", "system"):
            continue
        if isinstance(line.get("uuid"), str):
            uuids.add(line["uuid"])
        if alone is None:
            alone = bool(line.get("isSidechain"))
            compacting = alone and str(line.get("agentId") or "").startswith("acompact")
            over.alone = alone
        if line.get("isSidechain") and not alone:
            # An inline subagent's turns: what it ran counts, what it was told is not the person's.
            inline = line.get("message")
            if isinstance(inline, dict) and kind == "assistant":
                turns.did()
                _took(over, line)
                _calls(inline, str(line.get("uuid") or f"{path.name}:{number}"), when(line.get("timestamp")), acts, calls.pending)
            elif isinstance(inline, dict) and kind == "user":
                _results(inline, when(line.get("timestamp")), acts, calls.pending)
            continue
        session_id = line.get("sessionId")
        if isinstance(session_id, str):
            plan.fact("id", f"claude-{session_id[:8].lower()}")
        plan.fact("cwd", line.get("cwd"))
        plan.fact("branch", line.get("gitBranch"))
        plan.fact("started", when(line.get("timestamp")))
        version = over.version = version or line.get("version")
        at = when(line.get("timestamp"))
        key = str(line.get("uuid") or f"{path.name}:{number}")
        message = line.get("message") if isinstance(line.get("message"), dict) else {}
        assert isinstance(message, dict)
        if kind == "system" and line.get("subtype") in ("stop_hook_summary", "turn_duration"):
            turns.closed()
        if kind == "assistant":
            _took(over, line)
            model = message.get("model")
            if isinstance(model, str) and not model.startswith("<"):
                plan.fact("model_used", model)
            turns.did()
            if message.get("stop_reason") == "end_turn":
                turns.closed()
            said = _assistant_text(message)
            if compacting and "<summary>" in said:
                summary = said.split("<summary>", 1)[1].split("</summary>", 1)[0]
                talk.summary(summary, key, at, "compaction summary (written by the compaction subagent)")
            else:
                talk.assistant(said, key, at)
            if _calls(message, key, at, acts, calls.pending) and (before := _said(over.prev, over.alone)) is not None:
                report(plan, *before, tags=["claude-code", "before-acting"])
        elif kind == "user":
            if line.get("isCompactSummary"):
                text = _user_text(message.get("content")) or ""
                talk.summary(text, key, at, "compaction summary")
                continue
            expansion = bool(line.get("isMeta"))
            if expansion:
                # A slash command without arguments (`/init`) is followed by the prompt it stands
                # for: that prompt is what the person asked.
                if expands is None or line.get("parentUuid") != expands:
                    continue
                typed = _user_text(message.get("content"))
            else:
                raw = _raw_text(message.get("content"))
                typed = _user_text(message.get("content"))
                if raw is None:
                    _results(message, at, acts, calls.pending)
                    continue
                if typed is None and (slash := _slash(raw)) is not None:
                    command, arguments = slash
                    typed = f"{command} {arguments}" if arguments else None
                    expands = None if arguments else key
            if compacting or typed is None:
                continue  # (in a compaction subagent's file: the compaction prompt, not the person's words)
            _closing(over, turns, plan, at_end=False, compacting=compacting)
            if is_chatter(typed):
                talk.summary("", key, at, "")  # the person's turn, with nothing to do in it
                turns.resumed()
                continue
            _fork(plan, prompts, line.get("parentUuid"), key)
            known = turns.before()
            talk.user(typed, key, at)
            turns.request(known, rules=not expansion)
            acts.user_urls(typed, key, at)
    talk.finish()
    _closing(over, turns, plan, at_end=True, compacting=compacting)
    turns.settle()
    for title, leaf in titles:
        if leaf in uuids or leaf is None:
            plan.fact("title", title)
    for name, args, source in calls.pending.values():
        acts.tool(name, args, "", False, source)
    acts.finish()
    if not alone:
        follow(plan, path, acts.subagents, lambda sub: read(sub, parse_all=parse_all))
    if version:
        plan.fact("agent", f"Claude Code {version}" + (f" ({plan.session['model_used']})" if "model_used" in plan.session else ""))
    elif "model_used" in plan.session:
        plan.fact("agent", f"Claude Code ({plan.session['model_used']})")
    plan.session.pop("model_used", None)
    if "title" not in plan.session and "cwd" in plan.session:
        plan.fact("title", f"Claude Code session in {plan.session['cwd']}")
    return plan


def _took(over: PassOver, line: dict[str, Any]) -> None:
    """A parsed assistant line is the last one now (the one before it, `prev`, is kept)."""
    if not over.fresh:
        over.prev = over.last
    over.last, over.fresh = line, False


def _said(last: dict[str, Any] | None, alone: bool) -> tuple[str, str, datetime | None] | None:
    """What an assistant line says, when it only says something (no tool call): text, uuid, time."""
    if not isinstance(last, dict) or (last.get("isSidechain") and not alone) or not isinstance(last.get("message"), dict):
        return None
    content = last["message"].get("content")
    if isinstance(content, list) and any(isinstance(b, dict) and b.get("type") == "tool_use" for b in content):
        return None
    said = _assistant_text(last["message"])
    return (said, str(last.get("uuid") or ""), when(last.get("timestamp"))) if said.strip() else None


def _closing(over: PassOver, turns: Turns, plan: ImportPlan, *, at_end: bool, compacting: bool) -> None:
    """The agent's reply that closed its turn (its last line says something and calls nothing),
    before the person's next message or at the end: a report; at the end, the turn was closed.
    (A compaction subagent's reply is its summary, read as a checkpoint instead.)"""
    said = _said(over.last, over.alone)
    over.last = over.prev = None
    if said is None:
        return
    if at_end:
        turns.closed()
    if not compacting:
        report(plan, *said, tags=["claude-code"])


def _calls(
    message: dict[str, Any], key: str, at: datetime | None, acts: Actions, pending: dict[str, tuple[str, dict[str, Any], str]]
) -> bool:
    """The assistant's tool calls: those read now are handed over, the others wait for their
    result. True when one of them changes something (writes a file, starts a subagent)."""
    content = message.get("content")
    if not isinstance(content, list):
        return False
    acting = False
    for block in content:
        if not isinstance(block, dict) or block.get("type") != "tool_use" or block.get("name") not in TOOLS:
            continue
        name, args = str(block["name"]), block.get("input")
        if not isinstance(args, dict):
            continue
        acting = acting or name in ACTING
        if name in NOW:
            acts.tool(name, args, "", False, key, at)
        elif isinstance(block.get("id"), str):
            pending[block["id"]] = (name, args, key)
    return acting


def _results(message: dict[str, Any], at: datetime | None, acts: Actions, pending: dict[str, tuple[str, dict[str, Any], str]]) -> None:
    """Tool results for calls that wait for them."""
    content = message.get("content")
    if not isinstance(content, list):
        return
    for block in content:
        if not isinstance(block, dict) or block.get("type") != "tool_result":
            continue
        call = pending.pop(str(block.get("tool_use_id")), None)
        if call is None:
            continue
        name, args, source = call
        acts.tool(name, args, _result_text(block.get("content")), block.get("is_error") is True, source, at)


def _result_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(b.get("text", "")) for b in content if isinstance(b, dict) and b.get("type") == "text")
    return ""


def _fork(plan: ImportPlan, prompts: dict[str, list[str]], parent: object, key: str) -> None:
    """A typed prompt whose parent an earlier prompt already had: the session was rewound there,
    and what was asked on the abandoned branch (that prompt and those after it) is superseded."""
    order = prompts[""]
    if isinstance(parent, str) and parent:
        earlier = prompts.get(parent)
        if earlier:
            gone = set(order[order.index(earlier[0]) :])
            for record in plan.records:
                if isinstance(record, Instruction) and record.source in gone and record.status != "superseded":
                    plan.add(record.model_copy(update={"status": "superseded"}))
        prompts.setdefault(parent, []).append(key)
    order.append(key)
