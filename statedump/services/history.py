"""History of a store: naming past states, the log of a record or a session, and
record-by-record differences between two states.

Everything here reads git through `Store.git`; nothing writes. History comes from
the commits statedump makes (one record per commit, with `Statedump-*` trailers),
but commits made by hand are listed too, with what can be read from their paths.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from statedump.core.errors import NotFound, StatedumpError
from statedump.core.git.gateway import Commit
from statedump.core.layout import RecordRef, record_path, record_paths, session_path
from statedump.core.render.history import change_line
from statedump.core.store.store import Store
from statedump.models.history import Comparison, Entry, FieldChange, RecordDiff
from statedump.models.ids import KIND_NAMES as KINDS

if TYPE_CHECKING:
    from statedump.models import RecordBase
    from statedump.models.state import SessionState

# The codec and the models are imported where records are read: `statedump log` only
# reads git history and never pays for pydantic and PyYAML.

_DUMP_SHORT = re.compile(r"^(?:dump/)?(\d{1,6})$")


def resolve_ref(store: Store, ref: str, session: str | None = None) -> str:
    """The commit sha that `ref` names.

    `ref` is a commit, branch or tag; a dump tag `dump/<session>/<n>`, or its shorthand
    `<n>` or `dump/<n>` for the session (`session`, else the store's default one); or a
    date (`2026-03-14` means the end of that day). Raises StatedumpError (exit 2) with a
    hint when nothing matches.
    """
    ref = ref.strip()
    if not ref:
        raise StatedumpError("an empty revision", where="REV", hint="use a commit, a dump tag (`statedump dumps`), or a date")
    short = _DUMP_SHORT.match(ref)
    if short:
        from statedump.services.refs import list_dumps

        sid = store.pick_session(session)
        number = int(short.group(1))
        for dump in list_dumps(store, sid):
            if dump.number == number:
                return dump.sha
        if ref.startswith("dump/"):
            raise NotFound(f"no dump {number} in session {sid!r}", where=ref, hint="`statedump dumps` lists them")
    return store.git.resolve(ref)


def _entry(commit: Commit, paths: tuple[str, ...], session: str) -> Entry:
    t = commit.trailers
    record = t.get("Statedump-Record")
    if record is None:
        found = [ref.key for ref in map(RecordRef.parse, paths) if ref]
        record = found[0] if len(found) == 1 else None
    return Entry(
        sha=commit.sha,
        date=commit.date,
        subject=commit.subject,
        action=t.get("Statedump-Action"),
        record=record,
        source=t.get("Statedump-Source"),
        session=t.get("Statedump-Session", session),
        paths=paths,
    )


def _born_here(rows: list[tuple[Commit, tuple[str, ...]]], record: str) -> bool:
    """True when the commits of one literal path are the record's whole history: statedump
    added it there and every later commit on that path names it in that kind. A kind change
    (its commit names the new kind, or is a move into this folder rather than an `add`), an
    import or a commit made by hand fails the test, and the caller asks git the slow way."""
    if not rows or rows[-1][0].trailers.get("Statedump-Action") != "add":
        return False
    return all(c.trailers.get("Statedump-Record") == record for c, _ in rows)


def record_log(store: Store, session: str, record_id: str, *, since: str | None = None) -> list[Entry]:
    """Every commit that changed the record, in any kind folder, newest first.

    `since` (a sha) keeps only the commits after it. Unknown ids give an empty list.
    """
    kinds = [k for k in KINDS if store.record_path(session, k, record_id).is_file()] if since is None else []
    if len(kinds) == 1:
        # A wildcard pathspec makes git open every kind folder of every commit (ten times
        # the work of one literal path in a long history), and most records never change
        # kind: ask for the literal path of the kind the record is in now, and fall back
        # to the wildcard only when that history does not start with the record's `add`.
        rows = store.git.log([record_path(session, kinds[0], record_id)])
        if _born_here(rows, f"{kinds[0]}/{record_id}"):
            return [_entry(c, p, session) for c, p in rows]
    return [_entry(c, p, session) for c, p in store.git.log(record_paths(session, record_id), since=since)]


def session_log(store: Store, session: str, limit: int | None = None) -> list[Entry]:
    """Every commit that changed the session's files, newest first, at most `limit`."""
    if limit is not None and limit < 1:
        raise StatedumpError(f"--limit must be at least 1, not {limit}", where="--limit")
    return [_entry(c, p, session) for c, p in store.git.log([f"{session_path(session)}/"], limit=limit)]


def record_logs(store: Store, session: str, kinds: dict[str, str]) -> tuple[dict[str, list[Entry]], dict[str, int]]:
    """`record_log` of each of these records (id -> the kind folder its file is in now, as the
    session was loaded), from one log query for all of them (a query per record was a git
    process each: 750 benchmarks made `render` of a 10,000-record session take 2.8 s instead
    of 0.8 s); and each commit's place, newest first (0 the newest)."""
    wanted = {record_id: record_paths(session, record_id) for record_id in kinds}
    rows = store.git.log(sorted({path for paths in wanted.values() for path in paths})) if wanted else []
    order = {commit.sha: n for n, (commit, _) in enumerate(rows)}
    touched: dict[str, list[int]] = {}
    for n, (_, changed) in enumerate(rows):
        for path in changed:
            touched.setdefault(path, []).append(n)

    def log_of(paths: list[str]) -> list[tuple[Commit, tuple[str, ...]]]:
        # What `git log -- paths` gives: each commit that changed any of them, with those it changed.
        among = set(paths)
        places = sorted({n for path in paths for n in touched.get(path, ())})
        return [(rows[n][0], tuple(p for p in rows[n][1] if p in among)) for n in places]

    logs: dict[str, list[Entry]] = {}
    for record_id, paths in wanted.items():
        kind = kinds[record_id]
        # As `record_log` decides between the literal path of its kind and every kind's.
        literal = log_of([record_path(session, kind, record_id)])
        if _born_here(literal, f"{kind}/{record_id}"):
            logs[record_id] = [_entry(c, ps, session) for c, ps in literal]
            continue
        logs[record_id] = [_entry(c, ps, session) for c, ps in log_of(paths)]
    return logs, order


def record_at(store: Store, rev: str, session: str, record_id: str, likely: str | None = None) -> RecordBase | None:
    """The record as of `rev` (in whichever kind folder it was then), or None when it did not
    exist there or cannot be read. `likely` names the kind folder to look in first (each
    look costs a read of that folder's tree)."""
    from statedump.core import codec

    for kind in sorted(KINDS, key=lambda k: k != likely):
        path = record_path(session, kind, record_id)
        data = store.git.file_at(rev, path)
        if data is not None:
            try:
                return codec.load_record(data, f"{path}@{rev[:10]}", kind)
            except StatedumpError:
                return None
    return None


def state_at(store: Store, session: str, ref: str) -> SessionState:
    """The session as of `ref` (anything `resolve_ref` accepts)."""
    return store.load(session, resolve_ref(store, ref, session))


# -- differences ------------------------------------------------------------


_KIND_ORDER = {kind: i for i, kind in enumerate(KINDS)}


def _field_changes(old: dict[str, Any], new: dict[str, Any], order: list[str]) -> list[FieldChange]:
    names = [n for n in order if n in old or n in new]
    names += sorted((set(old) | set(new)) - set(names))
    # Nested values (links, metrics, alternatives) are compared whole: a reader wants to
    # see the list before and after, not a structural patch.
    return [FieldChange(n, old.get(n), new.get(n)) for n in names if old.get(n) != new.get(n)]


def diff_records(old: RecordBase | None, new: RecordBase | None) -> RecordDiff | None:
    """The difference for one id, or None when the two are equal."""
    from statedump.core import codec

    if old is None and new is None:
        return None
    if old is None or new is None:
        rec = new if new is not None else old
        assert rec is not None
        data = codec.record_data(rec)
        fields = [FieldChange(k, None, v) if new is not None else FieldChange(k, v, None) for k, v in data.items()]
        return RecordDiff(rec.id, rec.kind, "added" if new is not None else "removed", fields, rec.title)
    changes = _field_changes(codec.record_data(old), codec.record_data(new), list(type(new).model_fields))
    if not changes:
        return None
    return RecordDiff(new.id, new.kind, "changed", changes, new.title)


def diff_states(old: SessionState, new: SessionState) -> list[RecordDiff]:
    """Two states compared record by record: added, removed and changed (field by field,
    old -> new), ordered by kind (the state document's order), then id."""
    old_by = {r.id: r for r in old.records}
    new_by = {r.id: r for r in new.records}
    out = [d for rid in old_by.keys() | new_by.keys() if (d := diff_records(old_by.get(rid), new_by.get(rid))) is not None]
    return sorted(out, key=lambda d: (_KIND_ORDER.get(d.kind, len(_KIND_ORDER)), d.id))


def describe_change(old: RecordBase | None, new: RecordBase | None, most: int = 3) -> str | None:
    """One line saying how a record changed (`status confirmed -> resolved`), `added`,
    `removed`, or None when the two are equal."""
    if old is None and new is None:
        return None
    if new is None:
        return "removed"
    if old is None:
        return "added"
    diff = diff_records(old, new)
    if diff is None:
        return None
    parts = [change_line(c) for c in diff.fields[:most]]
    if len(diff.fields) > most:
        parts.append(f"and {len(diff.fields) - most} more fields")
    return "; ".join(parts)


# -- for the faces ------------------------------------------------------------


def record_history(store: Store, session: str, record_id: str, limit: int | None = None) -> list[Entry]:
    """`record_log`, at most `limit` entries; raises StatedumpError (exit 2) for an id with no
    history that is not in the working tree either."""
    entries = record_log(store, session, record_id)
    if not entries and store.find_path(session, record_id) is None:
        raise StatedumpError(
            f"no record {record_id!r} in session {session!r}, now or in its history",
            where=record_id,
            hint="`statedump list` shows the ids",
        )
    return entries[:limit] if limit else entries


def compare(store: Store, session: str, old: str, new: str | None = None) -> Comparison:
    """The session at `old` against the session at `new` (default: the working tree)."""
    old_sha = resolve_ref(store, old, session)
    new_sha = resolve_ref(store, new, session) if new is not None else None
    before = store.load(session, old_sha)
    after = store.load(session, new_sha)
    return Comparison(old, old_sha, new or "working tree", new_sha, diff_states(before, after))
