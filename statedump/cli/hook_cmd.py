"""`statedump hook EVENT`: the command the agents' hooks run (installed by `statedump agent install`).

It never breaks the agent: whatever goes wrong, it exits 0 and writes one line to the hook log
in `.git/statedump/` (`statedump agent status` shows it). Imports stay inside the function so
that the guard, which runs before every shell command, pays only for what it uses.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

_EVENTS = ["PreToolUse", "SessionStart", "PreCompact", "PostCompact", "SessionEnd", "Stop", "worker"]


@click.command()
@click.argument("event", type=click.Choice(_EVENTS))
@click.option("--agent", default="claude-code", type=click.Choice(["claude-code", "codex", "opencode"]), show_default=True)
@click.option("--guard", "guard", default="warn", type=click.Choice(["off", "warn", "ask", "deny"]), show_default=True)
@click.option(
    "--budget", default=2000, type=click.IntRange(min=1), show_default=True, help="Tokens for the resume prompt at session start."
)
@click.option(
    "--store", "store", type=click.Path(file_okay=False), help="The store (default: $STATEDUMP_STORE, else the one around the agent's cwd)."
)
@click.option("-s", "--session", "session", help="Session id (default: the store's only or most recent active one).")
def hook(event: str, agent: str, guard: str, budget: int, store: str | None, session: str | None) -> None:
    """Handle one hook EVENT: the agent's hook JSON on stdin, its answer on stdout; always exit 0."""
    from statedump.services.agents.hooklog import log_failure, mark_run
    from statedump.services.agents.locate import fallback_dir, find_root, state_dir

    folder = fallback_dir()
    try:
        from statedump.services.agents.events import Options, read_input

        data = read_input(b"" if event == "worker" or sys.stdin.isatty() else sys.stdin.buffer.read())
        root = find_root(store, data.get("cwd") if isinstance(data.get("cwd"), str) else None)
        if root is None:
            return  # no store for this project: nothing to capture or guard
        folder = state_dir(root)
        if event == "worker":
            from statedump.services.agents.capture import drain

            drain(root)
            return
        mark_run(folder, agent, event)
        opts = Options(agent=agent, guard=guard, budget=budget, store=store, session=session)
        answer = _handle(root, opts, event, data)
        if answer:
            sys.stdout.write(answer if answer.endswith("\n") else answer + "\n")
    except BaseException as err:  # the agent must never see a failure: one line in the log
        if isinstance(err, SystemExit) and not err.code:
            return
        log_failure(folder, agent, event, f"{type(err).__name__}: {err}")
    sys.exit(0)


def _handle(root: Path, opts: object, event: str, data: dict[str, object]) -> str:
    from statedump.services.agents import events

    assert isinstance(opts, events.Options)
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
