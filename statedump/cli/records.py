"""Record commands: add, edit, status, list, show."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from statedump.cli.common import json_option, open_store, print_json, safe, session_option, store_option
from statedump.core.errors import NotFound, StatedumpError
from statedump.models import KINDS


def _read_source(path: str) -> tuple[bytes, str]:
    if path == "-":
        from statedump.core.codec import MAX_FILE_BYTES

        # Bounded: `--from - < /dev/zero` must not read until memory runs out.
        data = sys.stdin.buffer.read(MAX_FILE_BYTES + 1)
        if len(data) > MAX_FILE_BYTES:
            raise StatedumpError(
                f"more than the {MAX_FILE_BYTES}-byte limit for one record",
                where="<stdin>",
                hint="keep long logs as files and link them with a `file` record",
            )
        return data, "<stdin>"
    p = Path(path)
    if p.is_dir():
        raise StatedumpError("expected a YAML file, found a folder", where=p)
    if not p.is_file():
        raise StatedumpError("no such file", where=p)
    return p.read_bytes(), str(p)


def _texts(fields: tuple[str, ...]) -> dict[str, str]:
    from statedump.services.records import parse_field

    return dict(parse_field(f) for f in fields)


@click.command()
@click.argument("kind", type=click.Choice(list(KINDS)))
@click.option("--id", "record_id", help="Record id (default: made from the title).")
@click.option("--title", help="One line that says what the record is.")
@click.option("--body", help="Longer Markdown text.")
@click.option("--status", help="Status, from the kind's closed set.")
@click.option("--source", help="Where it came from: 'msg 6007', a uuid, a URL.")
@click.option("--at", help="When it happened (ISO 8601; default now).")
@click.option("--tag", "tags", multiple=True, help="A label; repeat for more.")
@click.option(
    "--field",
    "fields",
    multiple=True,
    help="Any other field as key=value: text as typed, lists and mappings as flow YAML or JSON (or key=@FILE); repeat.",
)
@click.option("--link", "links", multiple=True, help="A typed link REL:ID, e.g. evidence:fp8-kv-scale; repeat.")
@click.option("--from", "from_file", help="Read the whole record as YAML from FILE, or - for stdin.")
@store_option
@session_option
@json_option
def add(
    kind: str,
    record_id: str | None,
    title: str | None,
    body: str | None,
    status: str | None,
    source: str | None,
    at: str | None,
    tags: tuple[str, ...],
    fields: tuple[str, ...],
    links: tuple[str, ...],
    from_file: str | None,
    store_path: Path | None,
    session: str | None,
    as_json: bool,
) -> None:
    """Add a record of KIND from flags, a YAML file (--from), or $EDITOR when nothing is given."""
    from statedump.core.schema import record_template
    from statedump.services.fields import load_as_written
    from statedump.services.records import build, parse_link

    store = open_store(store_path)
    sid = store.pick_session(session)
    given: dict[str, Any] = {
        k: v for k, v in (("title", title), ("body", body), ("status", status), ("source", source), ("at", at)) if v is not None
    }
    if tags:
        given["tags"] = list(tags)
    texts = _texts(fields)
    pairs = [parse_link(item) for item in links]

    def save(base: dict[str, Any], where: str) -> tuple[Any, str]:
        record, made_up = build(kind, base=base, fields=given, texts=texts, links=pairs, record_id=record_id, where=where)
        return store.add(sid, record, unique=made_up, where=None if where == "arguments" else where)

    nothing_given = all(v is None for v in (record_id, title, body, status, source, at, from_file)) and not (tags or fields or links)
    if from_file:
        data, where = _read_source(from_file)
        record, sha = save(load_as_written(data, where), where)
    elif nothing_given:
        from statedump.cli.editor import edit_until_valid, require_editor

        require_editor("add")
        saved = edit_until_valid(
            record_template(kind),
            lambda data: save(load_as_written(data, "<editor>"), "<editor>"),
            draft=kind,
            retry=f"statedump add {kind}",
        )
        if saved is None:
            click.echo("cancelled: nothing was written", err=True)
            sys.exit(1)
        record, sha = saved
    else:
        record, sha = save({}, "arguments")
    if as_json:
        print_json({"commit": sha, "record": record})
    else:
        click.echo(f"{record.kind} {record.id} added ({sha[:10]})")


@click.command()
@click.argument("record_id")
@click.option("--title", help="New title.")
@click.option("--body", help="New body ('' clears it).")
@click.option("--source", help="Source of this change (goes into the commit trailer).")
@click.option("--field", "fields", multiple=True, help="Set a field as key=value (typed as for `add`); repeat.")
@click.option("--link", "links", multiple=True, help="Add a typed link REL:ID; repeat.")
@click.option("--from", "from_file", help="Replace the whole record with the YAML in FILE (or - for stdin).")
@store_option
@session_option
def edit(
    record_id: str,
    title: str | None,
    body: str | None,
    source: str | None,
    fields: tuple[str, ...],
    links: tuple[str, ...],
    from_file: str | None,
    store_path: Path | None,
    session: str | None,
) -> None:
    """Change a record: with flags, a file (--from), or in $EDITOR when none are given.

    An invalid edit changes nothing; in the editor it opens again with the error on top."""
    from statedump.core import codec
    from statedump.services.changes import replace, update
    from statedump.services.fields import load_as_written
    from statedump.services.records import parse_link

    store = open_store(store_path)
    sid = store.pick_session(session)
    if title is not None or body is not None or fields or links:
        given: dict[str, Any] = {k: v for k, v in (("title", title), ("body", body)) if v is not None}
        if given.get("body") == "":
            given["body"] = None  # `--body ""` clears the body
        change = update(store, sid, record_id, given, source, texts=_texts(fields), links=[parse_link(i) for i in links])
    elif from_file:
        data, where = _read_source(from_file)
        change = replace(store, sid, record_id, load_as_written(data, where), source, where=where)
    else:
        from statedump.cli.editor import edit_until_valid, require_editor

        require_editor("change")
        current = store.get(sid, record_id)
        where = f"{record_id}.yaml (edited)"
        edited = edit_until_valid(
            codec.dump_record(current),
            lambda data: replace(store, sid, record_id, load_as_written(data, where), source, expected=current, where=where),
            draft=record_id,
            retry=f"statedump edit {record_id}",
        )
        if edited is None:
            click.echo("cancelled: nothing was written", err=True)
            sys.exit(1)
        change = edited
    assert change.after is not None
    sha = change.commit
    click.echo(f"{change.after.kind} {change.after.id} " + (f"updated ({sha[:10]})" if sha else "unchanged"))


@click.command()
@click.argument("record_id")
@click.argument("new_status")
@click.option("--source", help="Why, or where the change came from (commit trailer).")
@store_option
@session_option
def status(record_id: str, new_status: str, source: str | None, store_path: Path | None, session: str | None) -> None:
    """Set a record's status (from its kind's closed set)."""
    from statedump.services.changes import set_status

    store = open_store(store_path)
    sid = store.pick_session(session)
    change = set_status(store, sid, record_id, new_status, source)
    assert change.before is not None and change.after is not None
    record, sha = change.after, change.commit
    click.echo(f"{record.kind} {record.id}: {change.before.status} -> {new_status}" + (f" ({sha[:10]})" if sha else " (unchanged)"))


@click.command("list")
@click.option("--kind", "kinds", multiple=True, type=click.Choice(list(KINDS)), help="Only these kinds; repeat.")
@click.option("--status", "statuses", multiple=True, help="Only these statuses; repeat.")
@click.option("--grep", help="Only records whose text contains this (case-insensitive).")
@click.option("--at", "rev", help="As of a commit, tag or date.")
@store_option
@session_option
@json_option
def list_records(
    kinds: tuple[str, ...],
    statuses: tuple[str, ...],
    grep: str | None,
    rev: str | None,
    store_path: Path | None,
    session: str | None,
    as_json: bool,
) -> None:
    """List records, in the order they happened."""
    from statedump.services.query import check_filters, filter_records

    check_filters(kinds, statuses)
    store = open_store(store_path)
    if rev is not None:
        from statedump.services.history import resolve_ref

        rev = resolve_ref(store, rev, session)  # also `2` and `dump/2` for the session's dumps
    sid = store.pick_session(session, rev)
    records = filter_records(store.load(sid, rev).records, kinds=kinds, statuses=statuses, grep=grep)
    if as_json:
        print_json(records)
        return
    for r in records:
        click.echo(f"{r.kind:<11} {r.id:<40} {r.status:<12} {safe(r.title)}")


@click.command()
@click.argument("record_id")
@click.option("--at", "rev", help="As of a commit, tag or date.")
@store_option
@session_option
@json_option
def show(record_id: str, rev: str | None, store_path: Path | None, session: str | None, as_json: bool) -> None:
    """Show one record as its YAML (or JSON)."""
    from statedump.core import codec

    store = open_store(store_path)
    if rev is not None:
        from statedump.services.history import resolve_ref

        rev = resolve_ref(store, rev, session)  # also `2` and `dump/2` for the session's dumps
    sid = store.pick_session(session, rev)
    if rev is None:
        record = store.get(sid, record_id)
    else:
        found = store.load(sid, rev).get(record_id)
        if found is None:
            raise NotFound(f"no record {record_id!r} as of {rev}", where=record_id)
        record = found
    if as_json:
        print_json(record)
    else:
        click.echo(safe(codec.dump_record(record).split("\n", 1)[1]), nl=False)
