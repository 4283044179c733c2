"""Record commands: add, edit, status, list, show."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import click

from statedump.cli.common import json_option, open_store, print_json, safe, session_option, store_option
from statedump.core.errors import NotFound, StatedumpError
from statedump.models import KINDS


def _read_source(path: str) -> tuple[bytes, str]:
    if path == "-":
        return sys.stdin.buffer.read(), "<stdin>"
    p = Path(path)
    if p.is_dir():
        raise StatedumpError("expected a YAML file, found a folder", where=p)
    if not p.is_file():
        raise StatedumpError("no such file", where=p)
    return p.read_bytes(), str(p)


def _template(kind: str) -> str:
    from statedump.core.fielddocs import field_doc
    from statedump.models import field_order

    cls = KINDS[kind]
    lines = [f"# New {kind} record. Fill in the fields, save and quit; an empty file cancels.", f"kind: {kind}"]
    for name in field_order(cls):
        if name in ("kind", "at", "links", "tags"):
            continue
        field = cls.model_fields[name]
        doc = field_doc(cls, name).split("\n")[0]
        lines.append(f"# {name}: {doc}")
        if name in ("title", "id"):
            lines.append(f"{name}: ")
        elif name == "status":
            lines.append(f"status: {field.default}")
    return "\n".join(lines) + "\n"


def _edit_text(text: str, what: str) -> bytes | None:
    # An agent or a script has no one at the keyboard: opening vim there would hang or
    # spray escape codes, so without a terminal (and no $EDITOR set) say what to pass instead.
    if not (sys.stdin.isatty() or os.environ.get("VISUAL") or os.environ.get("EDITOR")):
        raise StatedumpError(
            f"nothing to {what} and no terminal to open an editor in",
            where="arguments",
            hint="pass fields as flags (--title, --field key=value) or the whole record with --from FILE",
        )
    edited = click.edit(text, extension=".yaml", require_save=True)
    if edited is None or not edited.strip() or all(line.startswith("#") or not line.strip() for line in edited.splitlines()):
        return None
    return edited.encode()


@click.command()
@click.argument("kind", type=click.Choice(list(KINDS)))
@click.option("--id", "record_id", help="Record id (default: made from the title).")
@click.option("--title", help="One line that says what the record is.")
@click.option("--body", help="Longer Markdown text.")
@click.option("--status", help="Status, from the kind's closed set.")
@click.option("--source", help="Where it came from: 'msg 6007', a uuid, a URL.")
@click.option("--at", help="When it happened (ISO 8601; default now).")
@click.option("--tag", "tags", multiple=True, help="A label; repeat for more.")
@click.option("--field", "fields", multiple=True, help="Any other field as key=value (YAML value); repeat.")
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
    from statedump.core import codec
    from statedump.services.records import build, parse_field, parse_link

    store = open_store(store_path)
    sid = store.pick_session(session)
    base: dict[str, Any] = {}
    where = "arguments"
    nothing_given = all(v is None for v in (record_id, title, body, status, source, at, from_file)) and not (tags or fields or links)
    if from_file:
        data, where = _read_source(from_file)
        base = codec.parse_yaml(data, where)
    elif nothing_given:
        edited = _edit_text(_template(kind), "add")
        if edited is None:
            click.echo("cancelled: nothing was written", err=True)
            sys.exit(1)
        where = "<editor>"
        base = codec.parse_yaml(edited, where)
    given: dict[str, Any] = dict(parse_field(f) for f in fields)
    given.update({k: v for k, v in (("title", title), ("body", body), ("status", status), ("source", source), ("at", at)) if v is not None})
    if tags:
        given["tags"] = list(tags)
    record, made_up = build(kind, base=base, fields=given, links=[parse_link(item) for item in links], record_id=record_id, where=where)
    record, sha = store.add(sid, record, unique=made_up, where=None if where == "arguments" else where)
    if as_json:
        print_json({"commit": sha, "record": record})
    else:
        click.echo(f"{record.kind} {record.id} added ({sha[:10]})")


@click.command()
@click.argument("record_id")
@click.option("--title", help="New title.")
@click.option("--body", help="New body.")
@click.option("--source", help="Source of this change (goes into the commit trailer).")
@click.option("--field", "fields", multiple=True, help="Set a field as key=value; repeat.")
@click.option("--link", "links", multiple=True, help="Add a typed link REL:ID; repeat.")
@store_option
@session_option
def edit(
    record_id: str,
    title: str | None,
    body: str | None,
    source: str | None,
    fields: tuple[str, ...],
    links: tuple[str, ...],
    store_path: Path | None,
    session: str | None,
) -> None:
    """Change a record: with flags, or in $EDITOR when none are given. Invalid edits change nothing."""
    from statedump.core import codec
    from statedump.services.records import build, parse_field, parse_link

    store = open_store(store_path)
    sid = store.pick_session(session)
    current = store.get(sid, record_id)
    if title is not None or body is not None or fields or links:
        base = codec.record_data(current)
        given: dict[str, Any] = dict(parse_field(f) for f in fields)
        given.update({k: v for k, v in (("title", title), ("body", body)) if v is not None})
        if given.get("body") == "":
            base.pop("body", None)  # `--body ""` clears the body
            given.pop("body")
        kind = str(given.pop("kind", current.kind))
        record, _ = build(kind, base=base, fields=given, links=[parse_link(i) for i in links], where="arguments")
    else:
        edited = _edit_text(codec.dump_record(current), "change")
        if edited is None:
            click.echo("cancelled: nothing was written", err=True)
            sys.exit(1)
        data = codec.parse_yaml(edited, f"{record_id}.yaml (edited)")
        record = codec.record_from_data(data, f"{record_id}.yaml (edited)")
    if record.id != record_id:
        raise StatedumpError("an edit cannot change the id", where="id", hint="add a new record and link it with supersedes")
    sha = store.put(sid, record, source=source)
    click.echo(f"{record.kind} {record.id} " + (f"updated ({sha[:10]})" if sha else "unchanged"))


@click.command()
@click.argument("record_id")
@click.argument("new_status")
@click.option("--source", help="Why, or where the change came from (commit trailer).")
@store_option
@session_option
def status(record_id: str, new_status: str, source: str | None, store_path: Path | None, session: str | None) -> None:
    """Set a record's status (from its kind's closed set)."""
    from statedump.services.records import set_status

    store = open_store(store_path)
    sid = store.pick_session(session)
    current, record, sha = set_status(store, sid, record_id, new_status, source)
    click.echo(f"{record.kind} {record.id}: {current.status} -> {new_status}" + (f" ({sha[:10]})" if sha else " (unchanged)"))


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
    from statedump.services.query import filter_records

    known = {st for k in (kinds or KINDS) for st in KINDS[k].STATUSES}
    for wanted in statuses:
        if wanted not in known:
            raise StatedumpError(
                f"no {' or '.join(kinds) or 'record'} has status {wanted!r}",
                where="--status",
                hint=f"use one of: {', '.join(sorted(known))}",
            )
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
