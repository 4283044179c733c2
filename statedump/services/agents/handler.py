"""`statedump hook EVENT`: one hook call, from its command line and standard input to its answer.

Both faces call `handle`: the click command (`cli/hook_cmd.py`, for `--help` and in-process
tests) and the `statedump` entry point's fast path (`statedump/__main__.py`), which reads the
few options with `parse_args` and never imports click: the guard runs before every shell
command an agent runs, and click's import alone is a fifth of its budget.

Whatever goes wrong, the answer is empty and one line goes to the hook log: a hook never
breaks its agent.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any, NamedTuple

EVENTS = ("PreToolUse", "SessionStart", "PreCompact", "PostCompact", "SessionEnd", "Stop", "worker")
AGENT_NAMES = ("claude-code", "codex", "opencode")
GUARDS = ("off", "warn", "ask", "deny")


class HookArgs(NamedTuple):
    """The hook's command line."""

    event: str
    agent: str = "claude-code"
    guard: str = "warn"
    budget: int = 2000
    store: str | None = None
    session: str | None = None


_OPTIONS = {"--agent": "agent", "--guard": "guard", "--budget": "budget", "--store": "store", "-s": "session", "--session": "session"}


def parse_args(argv: list[str]) -> HookArgs | None:
    """The hook's options (as `cli/hook_cmd.py` declares them), or None for anything else (`--help`,
    a mistake), which the click command then handles."""
    if not argv or argv[0] not in EVENTS:
        return None
    found: dict[str, Any] = {"event": argv[0]}
    rest = argv[1:]
    while rest:
        word = rest.pop(0)
        name, eq, value = word.partition("=")
        if name not in _OPTIONS:
            return None
        if not eq:
            if not rest:
                return None
            value = rest.pop(0)
        found[_OPTIONS[name]] = value
    try:
        found["budget"] = int(found.get("budget", 2000))
    except ValueError:
        return None
    if found.get("agent", "claude-code") not in AGENT_NAMES or found.get("guard", "warn") not in GUARDS or found["budget"] < 1:
        return None
    return HookArgs(**found)


def log_bad_args(argv: list[str]) -> None:
    """A hook command line `parse_args` could not read: one line in the store's log (the fallback log without one)."""
    from statedump.services.agents.hooklog import log_failure
    from statedump.services.agents.locate import fallback_dir, find_root, state_dir

    event = argv[0] if argv else "?"
    folder = fallback_dir()
    with contextlib.suppress(Exception):  # the store the hook names, else the one around it
        named = next((argv[i + 1] for i, w in enumerate(argv[:-1]) if w == "--store"), None)
        named = named or next((w.split("=", 1)[1] for w in argv if w.startswith("--store=")), None)
        if (found := find_root(named, None)) is not None:
            folder = state_dir(found)
    log_failure(folder, "?", event, f"bad hook command line: statedump hook {' '.join(argv)} (see `statedump hook --help`)")


def handle(args: HookArgs, stdin: bytes) -> str:
    """Run one hook; returns what to print (often nothing). Never raises."""
    from statedump.services.agents.hooklog import log_failure, mark_run
    from statedump.services.agents.locate import fallback_dir, find_root, state_dir

    folder = fallback_dir()
    try:
        from statedump.services.agents.events import Options, read_input

        data = read_input(stdin)
        root = find_root(args.store, data.get("cwd") if isinstance(data.get("cwd"), str) else None)
        if root is None:
            return ""  # no store for this project: nothing to capture or guard
        folder = state_dir(root)
        if args.event == "worker":
            from statedump.services.agents.capture import drain

            drain(root)
            return ""
        mark_run(folder, args.agent, args.event)
        opts = Options(agent=args.agent, guard=args.guard, budget=args.budget, store=args.store, session=args.session)
        answer = _dispatch(root, opts, args.event, data)
        return answer if not answer or answer.endswith("\n") else answer + "\n"
    except BaseException as err:  # the agent must never see a failure: one line in the log
        if isinstance(err, SystemExit) and not err.code:
            return ""
        if folder == fallback_dir():
            # Before the input named a store (stdin not JSON): the store of --store or of the
            # hook's working folder, so that `agent status` shows the failure; looked for only
            # here, the guard's good path pays nothing for it.
            with contextlib.suppress(Exception):
                if (found := find_root(args.store, None)) is not None:
                    folder = state_dir(found)
        log_failure(folder, args.agent, args.event, f"{type(err).__name__}: {err}")
        return ""


def _dispatch(root: Path, opts: Any, event: str, data: dict[str, Any]) -> str:
    from statedump.services.agents import events

    if event == "PreToolUse":
        return events.run_guard(root, opts, data).stdout
    if event == "SessionStart":
        return events.run_reinject(root, opts, data).stdout
    from statedump.services.agents.capture import enqueue, start_worker

    job = {
        "event": event,
        "agent": opts.agent,
        "session": opts.session,
        "agent_session": data.get("session_id") or data.get("sessionID"),
        "transcript": data.get("transcript_path"),
        "trigger": data.get("trigger"),
        "cwd": data.get("cwd"),
    }
    if event == "PostCompact":
        job["summary"] = data.get("compact_summary")
    enqueue(root, job)
    start_worker(root)
    if opts.agent == "opencode" and event == "PreCompact":
        # opencode's compaction hook takes context for the summary it is about to write.
        return events.resume_text(root, opts)
    return ""
