"""Building a record from loose input: command-line flags, a YAML text, an edited file.

One function serves the CLI, the MCP server and the TUI, so every face refuses bad
input with the same message.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from statedump.core.clock import now
from statedump.core.errors import StatedumpError, a, from_validation
from statedump.core.layout import check_id
from statedump.core.redact import slug_text
from statedump.core.render.candidates import did_you_mean
from statedump.core.store.store import Store
from statedump.models import KINDS, RELATIONS, RecordBase
from statedump.models.ids import slugify


def parse_field(item: str) -> tuple[str, str]:
    """`key=value` -> (key, value) with the value as typed; `build` reads it by the field's
    type (services/fields.py: text stays text, lists and mappings are flow YAML or JSON)."""
    key, sep, raw = item.partition("=")
    if not sep or not key.strip():
        raise StatedumpError(f"--field {item!r} is not key=value", where="--field", hint="e.g. --field choice='BF16 KV cache'")
    return key.strip(), raw


def parse_link(item: str) -> tuple[str, str]:
    """`REL:ID` -> (relation, id)."""
    rel, sep, target = item.partition(":")
    if not sep or rel not in RELATIONS:
        raise StatedumpError(f"--link {item!r} is not REL:ID", where="--link", hint=f"REL is one of: {', '.join(RELATIONS)}")
    return rel, check_id(target.strip(), "--link")


def _set_path(data: dict[str, Any], key: str, value: Any, where: str = "--field") -> None:
    # `--field environment.tp=8` reaches into a mapping field.
    parts = key.split(".")
    target = data
    for part in parts[:-1]:
        target = target.setdefault(part, {})
        if not isinstance(target, dict):
            raise StatedumpError(f"{key}: {part} is not a mapping, so it has no {parts[-1]!r}", where=where)
    target[parts[-1]] = value


def drop_path(data: dict[str, Any], key: str) -> None:
    """Remove `key` (dotted: `environment.tp` reaches into a mapping) from `data`, if it is there:
    `--field environment.tp=` with nothing after `=`, or a field an edit sets to null."""
    *above, last = key.split(".")
    for part in above:
        nested = data.get(part)
        if not isinstance(nested, dict):
            return
        data = nested
    data.pop(last, None)


def build(
    kind: str,
    *,
    base: dict[str, Any] | None = None,
    fields: dict[str, Any] | None = None,
    links: list[tuple[str, str]] | None = None,
    record_id: str | None = None,
    where: str = "arguments",
    texts: dict[str, str] | None = None,
) -> tuple[RecordBase, bool]:
    """Validate input as a record of `kind`. Returns the record and whether its id was made up
    from the title (so the store may add a suffix if it is taken, or refuse the same title).

    `base` is a whole record (YAML from `--from` or the editor, JSON from MCP), `fields` are
    values to set over it (a dotted key reaches into a mapping), `texts` are `--field`
    values as typed. All of them are read by the kind's field types (services/fields.py):
    one rule for every face."""
    from statedump.services.fields import Shape, from_text, typed

    if kind not in KINDS:
        raise StatedumpError(f"unknown kind {kind!r}", where="KIND", hint=f"use one of: {', '.join(KINDS)}")
    cls = KINDS[kind]
    data: dict[str, Any] = dict(base or {})
    for key, value in (fields or {}).items():
        if value is not None:
            _set_path(data, key, value, where)
    for key, raw in (texts or {}).items():
        if "." in key and not raw.strip():
            drop_path(data, key)
        else:
            _set_path(data, key, from_text(cls, key, raw))
    # `key:` with nothing after it (a template's empty line, JSON null) says nothing: absent.
    data = {k: v for k, v in typed(data, Shape("model", model=cls)).items() if v is not None}
    if data.get("kind", kind) != kind:
        raise StatedumpError(f"field 'kind' is {data['kind']!r}, not {kind!r}", where=where)
    data["kind"] = kind
    for rel, target in links or []:
        data.setdefault("links", {}).setdefault(rel, [])
        if target not in data["links"][rel]:
            data["links"][rel].append(target)
    made_up = False
    if record_id is not None:
        data["id"] = check_id(record_id)
    elif data.get("id") is None:
        title = data.get("title")
        if not isinstance(title, str) or not title.strip():
            raise StatedumpError("a record needs a title", where=where, hint="pass --title '...'")
        data["id"] = slugify(slug_text(title))  # redacted first: an id is a file name and a commit subject
        made_up = True
    if "at" not in data:
        data["at"] = now()
    if "status" not in data:
        data["status"] = KINDS[kind].model_fields["status"].default
    try:
        return KINDS[kind].model_validate(data), made_up
    except ValidationError as err:
        raise from_validation(err, where, kind=kind, fields=list(KINDS[kind].model_fields)) from None


def with_status(current: RecordBase, new_status: str) -> RecordBase:
    """The record moved to `new_status`, which must be in its kind's closed set."""
    allowed = type(current).STATUSES
    if new_status not in allowed:
        near = did_you_mean(new_status, allowed)
        raise StatedumpError(
            f"{new_status!r} is not {a(current.kind)} status",
            where="STATUS",
            hint=f"{near + ' ' if near else ''}use one of: {', '.join(allowed)}",
        )
    return type(current).model_validate({**current.model_dump(), "status": new_status})


def set_status(
    store: Store, session: str, record_id: str, new_status: str, source: str | None = None
) -> tuple[RecordBase, RecordBase, str | None]:
    """Change a record's status and commit it: (before, after, commit or None when unchanged).
    The read and the write happen under one hold of the store lock (services/changes.py)."""
    from statedump.services.changes import set_status as change_status

    change = change_status(store, session, record_id, new_status, source)
    assert change.before is not None and change.after is not None
    return change.before, change.after, change.commit
