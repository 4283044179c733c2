"""`statedump handoff` and `statedump resume`: reports for the next person and the next agent."""

from __future__ import annotations

from pathlib import Path

import click

from statedump.cli.common import json_option, open_store, print_json, session_option, store_option


@click.command()
@click.option("--budget", type=click.IntRange(min=1), help="Most tokens the prompt may use (estimated offline); drops detail to fit.")
@click.option(
    "--for",
    "flavor",
    type=click.Choice(["plain", "opencode", "claude", "codex"]),
    default="plain",
    show_default=True,
    help="Shape it like that agent's own summaries.",
)
@click.option(
    "--agents-md",
    "agents_md",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write it into the statedump block of this AGENTS.md / CLAUDE.md instead of printing it.",
)
@store_option
@session_option
@json_option
def resume(budget: int | None, flavor: str, agents_md: Path | None, store_path: Path | None, session: str | None, as_json: bool) -> None:
    """A prompt that restores a new agent session: goal, standing instructions, decisions, dead ends, state, next steps."""
    from statedump.services.report.resume import resume_prompt, write_agents_md

    store = open_store(store_path)
    state = store.load(store.pick_session(session))
    result = resume_prompt(state, flavor=flavor, budget=budget)
    if agents_md is not None:
        changed = write_agents_md(agents_md, result.text)
        click.echo(f"{'wrote' if changed else 'unchanged:'} {agents_md} (about {result.tokens:,} tokens)")
    elif as_json:
        print_json(result.as_dict())
    else:
        click.echo(result.text, nl=False)
    if not result.fits:
        click.echo(
            f"statedump: the prompt needs about {result.tokens:,} tokens, over the budget of {budget:,}: "
            "the goal, standing instructions, accepted decisions and dead ends are never left out",
            err=True,
        )


@click.command()
@click.option("--since", "since", metavar="REF", help="Compare with this commit, dump tag or date (default: the session's last dump).")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), help="Write the Markdown report to this file instead of printing.")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["markdown", "terminal"]),
    default="markdown",
    show_default=True,
    help="Markdown (with a Mermaid chart) or drawn for a terminal (with a table).",
)
@store_option
@session_option
def handoff(since: str | None, out: Path | None, fmt: str, store_path: Path | None, session: str | None) -> None:
    """The report for the next person: state, changes since the last dump, open questions, commands, benchmark trend."""
    from statedump.core.output import check_output, write_output
    from statedump.core.render.handoff import handoff_markdown
    from statedump.services.report.handoff import build_handoff

    if out is not None:
        check_output(out)
    store = open_store(store_path)
    report = build_handoff(store, store.pick_session(session), since)
    if out is not None:
        write_output(out, handoff_markdown(report))
        click.echo(f"wrote {out}")
    elif fmt == "terminal":
        from rich.console import Console

        from statedump.core.render.terminal import print_handoff

        print_handoff(report, Console())
    else:
        click.echo(handoff_markdown(report), nl=False)
