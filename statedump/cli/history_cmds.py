"""History commands: log, diff, dump, dumps."""

from __future__ import annotations

from pathlib import Path

import click

from statedump.cli.common import json_option, open_store, print_json, safe, session_option, store_option


@click.command()
@click.argument("record_id", required=False)
@click.option("--limit", "-n", type=click.IntRange(min=1), help="At most N commits.")
@store_option
@session_option
@json_option
def log(record_id: str | None, limit: int | None, store_path: Path | None, session: str | None, as_json: bool) -> None:
    """History of record RECORD_ID, or of the whole session, newest first, with sources and commits."""
    from statedump.core.render.history import entry_json, log_lines
    from statedump.services.history import record_history, session_log

    store = open_store(store_path)
    sid = store.pick_session(session)
    entries = record_history(store, sid, record_id, limit) if record_id else session_log(store, sid, limit)
    if as_json:
        print_json([entry_json(e) for e in entries])
        return
    for line in log_lines(entries):
        click.echo(safe(line))


@click.command()
@click.argument("old")
@click.argument("new", required=False)
@store_option
@session_option
@json_option
def diff(old: str, new: str | None, store_path: Path | None, session: str | None, as_json: bool) -> None:
    """Compare the state at OLD with the state at NEW (default: the working tree), record by record.

    OLD and NEW are commits, branches, dump tags (`dump/<session>/<n>`, or just `<n>`), or dates.
    """
    from statedump.core.render.history import diff_json, diff_lines
    from statedump.services.history import compare

    store = open_store(store_path)
    sid = store.pick_session(session)
    result = compare(store, sid, old, new)
    if as_json:
        print_json(diff_json(result))
        return
    for line in diff_lines(result):
        click.echo(safe(line))


@click.command()
@click.option("-m", "--message", help="What the dump is about (default: 'State dump').")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), help="Also write the rendered state document to this file.")
@store_option
@session_option
@json_option
def dump(message: str | None, out: Path | None, store_path: Path | None, session: str | None, as_json: bool) -> None:
    """Render the current state and tag the commit as the session's next dump, dump/<session>/<n>.

    Refuses while the session's files have uncommitted changes: a dump names a commit.
    """
    from statedump.core.output import check_output, write_output
    from statedump.services.refs import make_dump

    if out is not None:
        check_output(out)
    store = open_store(store_path)
    sid = store.pick_session(session)
    made, _ = make_dump(store, sid, message, before_tag=(lambda text: write_output(out, text)) if out is not None else None)
    if as_json:
        print_json({"tag": made.name, "number": made.number, "commit": made.sha, "message": made.message})
        return
    click.echo(f"{made.name} -> {made.sha[:10]}: {safe(made.message)}")
    if out is not None:
        click.echo(f"wrote {out}")


@click.command()
@store_option
@session_option
@json_option
def dumps(store_path: Path | None, session: str | None, as_json: bool) -> None:
    """List the session's dumps, oldest first, with their dates, commits and messages."""
    from statedump.services.refs import list_dumps

    store = open_store(store_path)
    sid = store.pick_session(session)
    found = list_dumps(store, sid)
    if as_json:
        print_json(
            [
                {
                    "tag": d.name,
                    "number": d.number,
                    "commit": d.sha,
                    "date": d.date,
                    "message": d.message,
                }
                for d in found
            ]
        )
        return
    if not found:
        click.echo(f"no dumps yet in session {sid} (make one with `statedump dump -m MESSAGE`)")
    for d in found:
        click.echo(safe(f"{d.name}  {d.date:%Y-%m-%d %H:%M}  {d.sha[:10]}  {d.message}"))
