"""Changing what is stored: edit, status, remove, rename, supersede, and the session itself.

Each change is one commit, and each reads the records it changes inside the store's lock,
so two changes made at the same moment (an `edit` from one shell, a `status` from another,
an agent's MCP call) both land: the second starts from the first's result. The CLI, the MCP
server and the TUI call these functions; none of them reads a record and writes it back on
its own.

Every function takes the `source` of the change (`msg 44`, a URL, a reason): it goes into
the commit's `Statedump-Source` trailer. The record's own `source` (where it first came
from) is not repeated there.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from statedump.core import codec
from statedump.core.errors import BadInput, StatedumpError, a, from_validation
from statedump.core.layout import check_id
from statedump.core.store.store import Store
from statedump.models import RELATIONS, Decision, RecordBase, Session
from statedump.services.records import build, drop_path, with_status


@dataclass(frozen=True)
class Change:
    """What a change did: the record before and after (None when removed), its commit
    (None when nothing changed), and the other records it rewrote (their links)."""

    before: RecordBase | None
    after: RecordBase | None
    commit: str | None
    also: list[str] = field(default_factory=list)


class Conflict(StatedumpError):
    """The record changed between reading it into an editor and saving the edit (exit 1)."""

    status = 1


# kind -> (status of the record replaced, status of the one that replaces it)
SUPERSEDED: dict[str, tuple[str, str]] = {
    "decision": ("superseded", "accepted"),
    "instruction": ("superseded", "active"),
    "command": ("previous", "current"),
    "component": ("replaced", "installed"),
    "reference": ("outdated", "used"),
    "benchmark": ("stale", "valid"),
    "file": ("obsolete", "relevant"),
    "goal": ("abandoned", "active"),
    "task": ("dropped", "todo"),
}


def set_status(store: Store, session: str, record_id: str, new_status: str, source: str | None = None) -> Change:
    """Move a record to another status of its kind's closed set, and commit it."""
    with store.lock():
        current = store.get(session, record_id)
        record = with_status(current, new_status)
        return Change(current, record, store.put(session, record, action=f"status {new_status}", source=source))


def _keep_id(record: RecordBase, record_id: str, where: str) -> None:
    # An edit changes what a record says, never which record it is: renaming is `mv`'s job.
    if record.id != record_id:
        raise BadInput(
            f"field 'id' is {record.id!r}: an edit cannot change the id",
            where=where,
            hint=f"`statedump mv {record_id} {record.id}` renames it and its links",
        )


def update(
    store: Store,
    session: str,
    record_id: str,
    fields: dict[str, Any] | None = None,
    source: str | None = None,
    *,
    texts: dict[str, str] | None = None,
    links: list[tuple[str, str]] | None = None,
    where: str = "arguments",
) -> Change:
    """Set some fields of a record and commit it.

    `fields` are values (JSON from MCP, or Python); a None value clears the field (back to
    its default). `texts` are `--field key=value` texts, read by the field's type. `links`
    are (relation, id) pairs to add. A dotted key (`environment.tp`) reaches into a mapping.
    Changing `kind` moves the record to that kind's folder; changing `id` is refused (`rename`).
    """
    fields = dict(fields or {})
    texts = dict(texts or {})
    with store.lock():
        current = store.get(session, record_id)
        base = codec.record_data(current)
        for key in [k for k, v in fields.items() if v is None]:
            drop_path(base, key)
            del fields[key]
        kind = fields.pop("kind", None) or texts.pop("kind", None) or current.kind
        base["kind"] = kind
        record, _ = build(str(kind), base=base, fields=fields, texts=texts, links=links, where=where)
        _keep_id(record, record_id, where)
        return Change(current, record, store.put(session, record, source=source))


def replace(
    store: Store,
    session: str,
    record_id: str,
    data: dict[str, Any],
    source: str | None = None,
    *,
    expected: RecordBase | None = None,
    where: str = "arguments",
) -> Change:
    """Replace a whole record with `data` (an edited file) and commit it.

    `expected` is the record as it was when the edit began: when the stored record is no
    longer that, the edit is refused (`Conflict`) rather than overwriting a change made
    meanwhile."""
    with store.lock():
        current = store.get(session, record_id)
        if expected is not None and current != expected:
            raise Conflict(
                "the record changed while you were editing it",
                where=record_id,
                hint="your text is kept; look at `statedump show` and edit again",
            )
        kind = data.get("kind", current.kind)
        record, _ = build(str(kind), base={"id": record_id, **data}, where=where)
        _keep_id(record, record_id, where)
        return Change(current, record, store.put(session, record, source=source))


def _retarget(record: RecordBase, old: str, new: str | None) -> RecordBase:
    """`record` with every link to `old` pointing at `new`, or dropped when `new` is None
    (a decision's enforcement of a removed command goes with it)."""
    data = record.model_dump()
    links = data["links"]
    for rel in RELATIONS:
        kept: list[str] = []
        for target in links[rel]:
            target = new if target == old else target
            if target is not None and target not in kept:
                kept.append(target)
        links[rel] = kept
    if isinstance(record, Decision):
        enforces = [e for e in data["enforces"] if new is not None or e["command"] != old]
        data["enforces"] = [{**e, "command": new if e["command"] == old else e["command"]} for e in enforces]
    if data["id"] == old and new is not None:
        data["id"] = new
    return type(record).model_validate(data)


def _linking(store: Store, session: str, record_id: str) -> list[tuple[str, RecordBase]]:
    state = store.load(session)
    return [(rel, r) for rel, r in state.linking_to(record_id) if r.id != record_id]


def remove(store: Store, session: str, record_id: str, *, force: bool = False, source: str | None = None) -> Change:
    """Delete a record in one commit. Refused while other records link to it (they are named);
    with `force`, their links to it are removed in the same commit."""
    with store.lock():
        target = store.get(session, record_id)
        linking = _linking(store, session, record_id)
        ids = list(dict.fromkeys(r.id for _, r in linking))
        if linking and not force:
            named = ", ".join(f"{r.id} ({rel})" for rel, r in linking[:5]) + (f" and {len(linking) - 5} more" if len(linking) > 5 else "")
            raise BadInput(
                f"{len(ids)} record{'s link' if len(ids) > 1 else ' links'} to it: {named}",
                where=record_id,
                hint="remove those links first, or pass --force to remove them too",
            )
        changed = [_retarget(r, record_id, None) for r in {r.id: r for _, r in linking}.values()]
        sha = store.replace_records(
            session,
            changed,
            remove=[record_id],
            action="remove",
            primary=target,
            subject=f"{target.kind}: remove {record_id}",
            source=source,
        )
        return Change(target, None, sha, ids)


def rename(store: Store, session: str, old: str, new: str, *, source: str | None = None) -> Change:
    """Give a record a new id in one commit: its file is renamed and every link to it rewritten."""
    check_id(new, "NEW")
    with store.lock():
        current = store.get(session, old)
        taken = store.find_path(session, new)
        if taken is not None:
            raise BadInput(f"a record with id {new!r} already exists", where=store.rel(taken), hint="pick another id")
        renamed = _retarget(current, old, new)
        others = [_retarget(r, old, new) for r in {r.id: r for _, r in _linking(store, session, old)}.values()]
        sha = store.replace_records(
            session,
            [renamed, *others],
            remove=[old],
            action="rename",
            subject=f"{current.kind}: rename {old} -> {new}",
            source=source,
        )
        return Change(current, renamed, sha, [r.id for r in others])


def supersede(store: Store, session: str, old: str, new: str, *, source: str | None = None) -> Change:
    """Record that `new` replaces `old`, in one commit, as adr-tools' `new -s OLD` does: `old`
    gets its kind's replaced status (a decision `superseded`, a command `previous`), `new` its
    in-force status (`accepted`, `current`) and a `supersedes` link to `old`. Returns the
    change to `new`; `also` names `old`."""
    with store.lock():
        before_old, before_new = store.get(session, old), store.get(session, new)
        if old == new:
            raise BadInput("a record cannot supersede itself", where=new)
        if before_old.kind != before_new.kind:
            raise BadInput(
                f"{new} is {a(before_new.kind)} and {old} {a(before_old.kind)}",
                where=new,
                hint="a record supersedes one of its own kind; link others with --link relates_to:ID",
            )
        if before_old.kind not in SUPERSEDED:
            raise BadInput(
                f"{a(before_old.kind)} is not superseded",
                where=old,
                hint=f"set its status instead (`statedump status {old} ...`) and link them with `statedump edit {new} --link relates_to:{old}`",
            )
        replaced, in_force = SUPERSEDED[before_old.kind]
        after_old = with_status(before_old, replaced)
        data = before_new.model_dump()
        data["status"] = in_force
        if old not in data["links"]["supersedes"]:
            data["links"]["supersedes"].append(old)
        after_new = type(before_new).model_validate(data)
        sha = store.replace_records(
            session,
            [after_new, after_old],
            action="supersede",
            subject=f"{before_new.kind}: {new} supersedes {old}",
            source=source,
        )
        return Change(before_new, after_new, sha, [old])


def edit_session(
    store: Store,
    session: str,
    fields: dict[str, Any] | None = None,
    source: str | None = None,
    *,
    texts: dict[str, str] | None = None,
    action: str = "edit",
) -> tuple[Session, Session, str | None]:
    """Change the session's own fields (title, model, hardware, status, ...) in one commit:
    (before, after, commit or None when unchanged). None values clear a field."""
    from statedump.services.fields import Shape, from_text, typed

    with store.lock():
        current = store.load_session(session)
        data = current.model_dump(exclude_none=True)
        for key, value in (fields or {}).items():
            if value is None:
                data.pop(key, None)
            else:
                data[key] = value
        for key, raw in (texts or {}).items():
            data[key] = from_text(Session, key, raw)
        if data.get("id", session) != session:
            raise BadInput("a session's id cannot change", where="id")
        try:
            after = Session.model_validate(typed(data, Shape("model", model=Session)))
        except ValidationError as err:
            raise from_validation(err, "arguments", hint="`statedump schema --show session` lists its fields") from None
        return current, after, store.update_session(after, action=action, source=source)


def close_session(store: Store, session: str, source: str | None = None) -> tuple[Session, Session, str | None]:
    """Mark the session closed (its records stay; `edit_session` with status active reopens it)."""
    return edit_session(store, session, {"status": "closed"}, source, action="close")
