"""`statedump export adr|madr --dir DIR`: decisions as architecture decision records."""

from __future__ import annotations

from pathlib import Path

import click

from statedump.cli.common import open_store, session_option, store_option

_DIR = click.option(
    "--dir", "folder", required=True, type=click.Path(path_type=Path), help="Folder to write the records into (created if missing)."
)


@click.group()
def export() -> None:
    """Export the session's decisions as adr-tools or MADR 4 files."""


def _report(folder: Path, written: list[str], unchanged: list[str], removed: list[str]) -> None:
    click.echo(f"{folder}: {len(written)} written, {len(unchanged)} unchanged, {len(removed)} removed")


@export.command()
@_DIR
@store_option
@session_option
def adr(folder: Path, store_path: Path | None, session: str | None) -> None:
    """adr-tools files (NNNN-slug.md), and the .adr-dir file `adr list` needs at the project's root."""
    from statedump.services.export.adr import export_adr

    store = open_store(store_path)
    state = store.load(store.pick_session(session))
    done, pointer = export_adr(state, folder)
    _report(done.folder, done.written, done.unchanged, done.removed)
    where = "anywhere in" if pointer.parent != done.folder else "in"
    click.echo(f"{pointer}: points adr-tools at {done.folder} (run `adr list` {where} {pointer.parent})")


@export.command()
@_DIR
@store_option
@session_option
def madr(folder: Path, store_path: Path | None, session: str | None) -> None:
    """MADR 4 files with front matter (status, date, decision-makers)."""
    from statedump.services.export.files import recorded_commits
    from statedump.services.export.madr import export_madr

    store = open_store(store_path)
    sid = store.pick_session(session)
    state = store.load(sid)
    done = export_madr(state, folder, recorded_commits(store, sid, state))
    _report(done.folder, done.written, done.unchanged, done.removed)
