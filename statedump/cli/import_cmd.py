"""`statedump import FORMAT FILE`: transcripts, state dumps, benchmark results and unit files in."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import click

from statedump.cli.common import json_option, open_store, print_json, safe, session_option, store_option
from statedump.services.ingest import FORMATS
from statedump.services.ingest.jsonl import Progress


@contextmanager
def _progress(label: str) -> Iterator[Progress | None]:
    # A bar only for a person watching: never in pipes, logs or tests.
    if not sys.stderr.isatty():
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, DownloadColumn, Progress, TimeRemainingColumn

    with Progress(
        "{task.description}", BarColumn(), DownloadColumn(), TimeRemainingColumn(), console=Console(stderr=True), transient=True
    ) as bar:
        task = bar.add_task(label, total=None)

        def update(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        yield update


_EPILOG = (
    "\b\nFormats:\n"
    + "\n".join(f"  {name:<13} {what}" for name, (_, what) in FORMATS.items())
    + "\n\nSee docs/import/ for what each format's fields become."
)


@click.command("import", epilog=_EPILOG)
@click.argument("fmt", metavar="FORMAT", type=click.Choice(list(FORMATS)))
@click.argument("file", type=click.Path(path_type=Path))
@click.option("--dry-run", is_flag=True, help="Print what would be recorded; write nothing.")
@click.option("--strict", is_flag=True, help="Import nothing when any line cannot be read (exit 2).")
@click.option("--session-title", help="Title for the session (a new session, or to retitle an existing one).")
@click.option("--full", is_flag=True, help="Read a transcript whole, even when only its end is new since the last import.")
@store_option
@session_option
@json_option
def import_(
    fmt: str,
    file: Path,
    dry_run: bool,
    strict: bool,
    session_title: str | None,
    full: bool,
    store_path: Path | None,
    session: str | None,
    as_json: bool,
) -> None:
    """Import FILE as FORMAT into a session (-s; created when it does not exist), as one commit.

    Importing the same file again adds nothing. A Claude Code or Codex transcript imported
    before is read on from where that import stopped (--full: read whole); an unchanged one
    is not read at all. Unreadable lines are reported and skipped (--strict: nothing is
    imported). Secrets are redacted before anything is written.
    """
    from statedump.services.ingest.incremental import import_incremental

    store = open_store(store_path)
    with _progress(f"reading {file.name}") as progress:
        report = import_incremental(
            store, file, fmt=fmt, session=session, full=full, dry_run=dry_run, strict=strict, session_title=session_title, progress=progress
        )
    if as_json:
        print_json(report.as_json())
        return
    if report.read is not None and report.read.mode == "unchanged":
        click.echo(
            f"imported {fmt} {safe(file.name)} into {report.session}: 0 added, 0 changed (unchanged since its last import: nothing read)"
        )
        return
    verb = "would import" if dry_run else "imported"
    counts = f"{len(report.added)} added, {len(report.changed)} changed, {report.unchanged} unchanged"
    new = " (new session)" if report.created_session else ""
    done = f" ({report.commit[:10]})" if report.commit else (" (nothing to write)" if not dry_run else "")
    click.echo(f"{verb} {fmt} {safe(file.name)} into {report.session}{new}: {counts}{done}")
    if report.read is not None and report.read.mode == "incremental":
        click.echo(f"  read bytes {report.read.start}-{report.read.size} of {report.read.size} ({report.read.why})")
    for mark, records in (("+", report.added), ("~", report.changed)):
        if dry_run or len(records) <= 20:
            for r in records:
                click.echo(f"  {mark} {r.kind}/{r.id}  {safe(r.title)}")
    for point in report.checkpoints:
        click.echo(f"  checkpoint {safe(point.source)}: {safe(point.message)}")
    for tag in report.tags:
        click.echo(f"  dump tag {tag}")
    for note in report.notes:
        click.echo(f"  note: {safe(note)}")
    if report.skipped:
        click.echo(f"skipped {len(report.skipped)} unreadable line(s):", err=True)
        for s in report.skipped[:50]:
            click.echo(f"  {safe(str(file))}:{s.line}: {safe(s.reason)}", err=True)
        if len(report.skipped) > 50:
            click.echo(f"  ... and {len(report.skipped) - 50} more", err=True)
