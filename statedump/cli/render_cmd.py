"""`statedump render`: the state document."""

from __future__ import annotations

from pathlib import Path

import click

from statedump.cli.common import open_store, session_option, store_option


@click.command()
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["markdown", "terminal"]),
    default=None,
    help="Markdown (default when not a terminal) or drawn for a terminal.",
)
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), help="Write the Markdown to this file instead of printing.")
@click.option("--at", "rev", help="The state as of a commit, dump tag or date.")
@store_option
@session_option
def render(fmt: str | None, out: Path | None, rev: str | None, store_path: Path | None, session: str | None) -> None:
    """Print the state document: Goal, Instructions, Discoveries, Accomplished, and the rest."""
    from statedump.core.output import check_output, write_output
    from statedump.core.render import render_markdown

    if out is not None:
        check_output(out)
    store = open_store(store_path)
    if rev is not None:
        from statedump.services.history import resolve_ref

        rev = resolve_ref(store, rev, session)  # also `2` and `dump/2` for the session's dumps
    sid = store.pick_session(session, rev)
    if rev is None:
        from statedump.services.review import load_effective

        state = load_effective(store, sid)  # benchmarks whose command changed show as stale, as in `check`
    else:
        state = store.load(sid, rev)
    if out is not None:
        write_output(out, render_markdown(state))
        click.echo(f"wrote {out}")
        return
    if fmt == "terminal":
        from rich.console import Console

        from statedump.core.render.terminal import print_terminal

        print_terminal(state, Console())
        return
    click.echo(render_markdown(state), nl=False)
