"""Commands that change records beyond their fields: rm, mv, supersede. One commit each."""

from __future__ import annotations

from pathlib import Path

import click

from statedump.cli.common import open_store, session_option, store_option

_SOURCE = click.option("--source", help="Why, or where the change came from (commit trailer).")


@click.command()
@click.argument("record_id")
@click.option("--force", is_flag=True, help="Also remove the links other records have to it (same commit).")
@_SOURCE
@store_option
@session_option
def rm(record_id: str, force: bool, source: str | None, store_path: Path | None, session: str | None) -> None:
    """Remove a record. Refused while other records link to it, unless --force."""
    from statedump.services.changes import remove

    store = open_store(store_path)
    change = remove(store, store.pick_session(session), record_id, force=force, source=source)
    assert change.before is not None and change.commit is not None
    also = f"; links removed from {', '.join(change.also)}" if change.also else ""
    click.echo(f"{change.before.kind} {record_id} removed ({change.commit[:10]}){also}")


@click.command()
@click.argument("old")
@click.argument("new")
@_SOURCE
@store_option
@session_option
def mv(old: str, new: str, source: str | None, store_path: Path | None, session: str | None) -> None:
    """Rename record OLD to NEW: its file, and every link to it."""
    from statedump.services.changes import rename

    store = open_store(store_path)
    change = rename(store, store.pick_session(session), old, new, source=source)
    assert change.after is not None and change.commit is not None
    also = f"; links rewritten in {', '.join(change.also)}" if change.also else ""
    click.echo(f"{change.after.kind} {old} -> {new} ({change.commit[:10]}){also}")


@click.command()
@click.argument("old")
@click.argument("new")
@_SOURCE
@store_option
@session_option
def supersede(old: str, new: str, source: str | None, store_path: Path | None, session: str | None) -> None:
    """Record that NEW replaces OLD: both statuses and the supersedes link, in one commit."""
    from statedump.services.changes import SUPERSEDED
    from statedump.services.changes import supersede as run

    store = open_store(store_path)
    change = run(store, store.pick_session(session), old, new, source=source)
    assert change.after is not None
    replaced = SUPERSEDED[change.after.kind][0]
    sha = f" ({change.commit[:10]})" if change.commit else " (unchanged)"
    click.echo(f"{change.after.kind} {new} ({change.after.status}) supersedes {old} ({replaced}){sha}")
