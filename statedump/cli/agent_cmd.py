"""`statedump agent install|uninstall|status`: wire Claude Code, Codex or opencode to statedump."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from statedump.cli.common import json_option, print_json, safe
from statedump.core.errors import StatedumpError

_AGENT = click.argument("agent_name", metavar="AGENT", type=click.Choice(["claude-code", "codex", "opencode"]))
_SCOPE = click.option(
    "--scope", type=click.Choice(["project", "user"]), default="project", show_default=True, help="The project's files or your own (~)."
)
_DIR = click.option(
    "--dir",
    "project",
    type=click.Path(file_okay=False, path_type=Path),
    help="The project folder (default: the git work tree around here, else here).",
)


def _project(project: Path | None) -> Path:
    if project is not None:
        if not project.is_dir():
            # A typo in --dir must not become a tree of new folders with an agent's config in it.
            raise StatedumpError("no such folder", where=project, hint="give --dir an existing project folder")
        return project.resolve()
    here = Path.cwd().resolve()
    for folder in (here, *here.parents):
        if (folder / ".git").exists():
            return folder
    return here


@click.group()
def agent() -> None:
    """Wire an agent's hooks and MCP server to statedump: capture, resume and guard by themselves."""


def _show(changes: list[Any], as_json: bool) -> None:
    if as_json:
        print_json([{"path": str(c.path), "action": c.action, "note": c.note} for c in changes])
        return
    for c in changes:
        click.echo(f"{c.action:<9} {safe(str(c.path))}" + (f"  ({safe(c.note)})" if c.note else ""))


@agent.command()
@_AGENT
@_SCOPE
@_DIR
@click.option(
    "--guard",
    type=click.Choice(["off", "warn", "ask", "deny"]),
    default="warn",
    show_default=True,
    help="What the guard does with a contradicting command.",
)
@click.option(
    "--budget",
    type=int,
    default=2000,
    show_default=True,
    help="Tokens for the resume prompt handed back at session start (at least 200).",
)
@click.option(
    "--store",
    "store",
    type=click.Path(file_okay=False, path_type=Path),
    help="Name this store in the hooks (default: found from the agent's folder).",
)
@click.option("-s", "--session", "session", help="Name this session in the hooks (default: the store's only or most recent active one).")
@click.option("--executable", default="statedump", show_default=True, help="How the hooks run statedump (a path when it is not on PATH).")
@json_option
def install(
    agent_name: str,
    scope: str,
    project: Path | None,
    guard: str,
    budget: int,
    store: Path | None,
    session: str | None,
    executable: str,
    as_json: bool,
) -> None:
    """Install statedump's hooks (or plugin) and MCP server into AGENT's config; run again to change options."""
    from statedump.services.agents.configs import Wiring
    from statedump.services.agents.install import install as run
    from statedump.services.report.resume import MIN_BUDGET

    if budget < MIN_BUDGET:
        # The hook would hand back nothing at every session start: refuse it here, where it is seen.
        raise StatedumpError(
            f"the budget must be at least {MIN_BUDGET} tokens, not {budget}", where="--budget", hint="the resume prompt needs that much"
        )

    wiring = Wiring(executable=executable, guard=guard, budget=budget, store=str(store.resolve()) if store else None, session=session)
    _show(run(agent_name, scope, _project(project), wiring), as_json)
    if agent_name == "codex" and not as_json:
        click.echo("note: Codex runs hooks only once you trust them: open /hooks in Codex (docs/agents.md)")


@agent.command()
@_AGENT
@_SCOPE
@_DIR
@json_option
def uninstall(agent_name: str, scope: str, project: Path | None, as_json: bool) -> None:
    """Take out exactly what `agent install` put into AGENT's config (the originals come back byte for byte)."""
    from statedump.services.agents.install import uninstall as run

    _show(run(agent_name, scope, _project(project)), as_json)


@agent.command()
@_DIR
@click.option("--store", "store", type=click.Path(file_okay=False, path_type=Path), help="The store whose hook log to show.")
@json_option
def status(project: Path | None, store: Path | None, as_json: bool) -> None:
    """What is installed for each agent, when each hook last ran, the capture queue and the last failures."""
    from statedump.services.agents.status import agent_status

    report = agent_status(_project(project), store)
    if as_json:
        print_json(report.as_json())
        return
    for line in report.lines():
        click.echo(safe(line))
