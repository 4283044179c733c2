"""`statedump hook EVENT`: the command the agents' hooks run (installed by `statedump agent install`).

The work is in `services/agents/handler.py`; the `statedump` entry point runs it without click
(see `statedump/__main__.py`), this command is what `--help` and in-process callers see.
"""

from __future__ import annotations

import sys

import click

from statedump.services.agents.handler import AGENT_NAMES, EVENTS, GUARDS


@click.command()
@click.argument("event", type=click.Choice(EVENTS))
@click.option("--agent", default="claude-code", type=click.Choice(AGENT_NAMES), show_default=True)
@click.option("--guard", "guard", default="warn", type=click.Choice(GUARDS), show_default=True)
@click.option(
    "--budget", default=2000, type=click.IntRange(min=1), show_default=True, help="Tokens for the resume prompt at session start."
)
@click.option(
    "--store", "store", type=click.Path(file_okay=False), help="The store (default: $STATEDUMP_STORE, else the one around the agent's cwd)."
)
@click.option("-s", "--session", "session", help="Session id (default: the store's only or most recent active one).")
def hook(event: str, agent: str, guard: str, budget: int, store: str | None, session: str | None) -> None:
    """Handle one hook EVENT: the agent's hook JSON on stdin, its answer on stdout; always exit 0."""
    from statedump.services.agents.handler import HookArgs, handle

    stdin = b"" if event == "worker" or sys.stdin.isatty() else sys.stdin.buffer.read()
    answer = handle(HookArgs(event, agent, guard, budget, store, session), stdin)
    if answer:
        sys.stdout.write(answer)
