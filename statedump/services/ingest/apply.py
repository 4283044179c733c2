"""Writing an import plan to the store: every file, then one commit, then the dump tags.

An import is one change: every file is written under the store's lock and committed
together with `Store.commit_files`, which undoes everything when any step fails.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from datetime import datetime, timedelta
from functools import partial
from pathlib import Path
from typing import Any

from statedump.core import codec
from statedump.core.clock import fixed, now
from statedump.core.errors import StatedumpError
from statedump.core.layout import SESSION_FILE, record_path
from statedump.core.redact import redact_model, redact_text, slug_text
from statedump.core.store.fit import fit_record, fit_session
from statedump.core.store.parallel import dump_many
from statedump.core.store.store import Store
from statedump.models import Checkpoint, RecordBase, Session, id_problem
from statedump.models.ids import slugify
from statedump.services.ingest.bulk import OFFLOAD, Content, commit_bulk
from statedump.services.ingest.checkpoints import CheckpointObjects, Snapshot, write_tags
from statedump.services.ingest.jsonl import file_digest
from statedump.services.ingest.plan import SESSION_FACTS, CheckpointMark, ImportPlan
from statedump.services.ingest.report import ImportReport
from statedump.services.refs import list_dumps
from statedump.services.refs import prefix as dumps_prefix


def source_label(path: Path) -> str:
    """`name sha256:prefix`: which file was imported, exactly, for the commit trailer."""
    if path.is_dir():
        return path.name
    return f"{path.name} sha256:{file_digest(path)[:16]}"


def _comparable(record: RecordBase) -> dict[str, Any]:
    # `at` is left out (a Markdown dump carries no times, so each import makes them up), and
    # runs of white space count as one (a state document joins a text's lines).
    def norm(value: Any) -> Any:
        if isinstance(value, str):
            return " ".join(value.split())
        if isinstance(value, list):
            return [norm(v) for v in value]
        if isinstance(value, dict):
            return {k: norm(v) for k, v in value.items()}
        return value

    data = codec.record_data(record)
    data.pop("at", None)
    if "enforces" in data:
        # The document groups enforcements by setting, so their order does not come back.
        data["enforces"] = sorted(data["enforces"], key=lambda e: sorted(e.items()))
    return {k: norm(v) for k, v in data.items()}


def _choose_session(store: Store, plan: ImportPlan, requested: str | None) -> tuple[str, bool]:
    """The session to import into, and whether it has to be created."""
    existing = store.session_ids()
    if requested is not None:
        problem = id_problem(requested)
        if problem:
            raise StatedumpError(f"session {requested!r} is not safe: {problem}", where="-s", hint="choose a short lowercase slug")
        return requested, requested not in existing
    if existing:
        return store.pick_session(None), False
    suggested = str(plan.session.get("id") or plan.session.get("title") or plan.path.stem)
    sid = suggested if id_problem(suggested) is None else slugify(slug_text(suggested))
    return sid, True


def _earliest(plan: ImportPlan, base: datetime) -> datetime:
    """When the imported work began: the earliest record or checkpoint time, else the import's own time."""
    times = [r.at for r in plan.records if r.at is not None] + [c.at for c in plan.checkpoints if c.at is not None]
    return min(times, default=base)


def _session_after(current: Session | None, sid: str, plan: ImportPlan, title: str | None, empty: bool, base: datetime) -> Session:
    facts = {k: v for k, v in plan.session.items() if k in SESSION_FACTS and v not in (None, "")}
    if "started" not in facts and (current is None or current.started is None):
        # Without a start the session never becomes the store's default (the most recently started).
        facts["started"] = _earliest(plan, base)
    if "title" in facts:
        facts["title"] = " ".join(str(facts["title"]).split())[:300]
    if current is None:
        data: dict[str, Any] = {**facts, "id": sid}
        data["title"] = title or facts.get("title") or plan.path.stem or sid
        data["title"] = " ".join(str(data["title"]).split())[:300]
        session = Session.model_validate(data)
    else:
        # A session that holds no records yet takes the file's facts (its title too); one
        # with records only has its blanks filled, so an import never overwrites what is there.
        fill = facts if empty else {k: v for k, v in facts.items() if k != "title" and getattr(current, k) is None}
        if title:
            fill["title"] = title
        session = current.model_copy(update=fill) if fill else current
        session = Session.model_validate(session.model_dump())
    known = {c.source for c in session.checkpoints}
    new = [Checkpoint(at=c.at, source=c.source, message=c.message) for c in plan.checkpoints if c.at and c.source not in known]
    if new:
        session = session.model_copy(update={"checkpoints": [*session.checkpoints, *new]})
    return fit_session(redact_model(session))


def _message(report: ImportReport) -> str:
    counts = [f"{len(report.added)} added"]
    if report.changed:
        counts.append(f"{len(report.changed)} changed")
    lines = [f"import: {report.format} {report.source.split(' ')[0]} ({', '.join(counts)})", ""]
    lines += [f"{r.kind}: add {r.id}" for r in report.added[:50]]
    lines += [f"{r.kind}: edit {r.id}" for r in report.changed[:50]]
    if len(report.added) + len(report.changed) > 100:
        lines.append("...")
    lines += [
        "",
        f"Statedump-Session: {report.session}",
        "Statedump-Action: import",
        f"Statedump-Source: {' '.join(report.source.split())}",
    ]
    return "\n".join(lines) + "\n"


def _skipped_error(plan: ImportPlan) -> StatedumpError:
    first = plan.skipped[0]
    more = f" and {len(plan.skipped) - 1} more" if len(plan.skipped) > 1 else ""
    return StatedumpError(
        f"line {first.line}: {first.reason}{more}; --strict imports nothing",
        where=plan.path,
        hint="fix the lines or import without --strict to skip them",
    )


def apply_plan(
    store: Store,
    plan: ImportPlan,
    session: str | None = None,
    *,
    dry_run: bool = False,
    strict: bool = False,
    session_title: str | None = None,
    source: str | None = None,
    only: set[str] | None = None,
) -> ImportReport:
    """Write the plan's records into a session (created when missing) as one commit, then tag
    each checkpoint as a dump. Records already there with the same content are left alone,
    so importing the same file twice adds nothing. `source` names what was read, for the
    commit's trailer (default: `source_label` of the file). `only`: the ids of the records
    that may have changed since this file was last imported (see incremental.py); the others
    are counted unchanged without being compared."""
    if strict and plan.skipped:
        raise _skipped_error(plan)
    sid, create = _choose_session(store, plan, session)
    label = source if source is not None else source_label(plan.path)
    report = ImportReport(plan.format, label, sid, created_session=create, dry_run=dry_run)
    report.skipped = list(plan.skipped)
    report.notes = list(plan.notes)
    state = None if create else store.load(sid)
    current = None if state is None else state.session
    existing = {} if state is None else {r.id: r for r in state.records}
    base = now()
    writes = _Writes(existing, base, plan.guessed)
    if only is not None:
        # The plan's own objects of these records, also where a checkpoint holds them as they
        # ended (a checkpoint's older version of one is another object, and is compared).
        writes.settled = {id(r) for r in plan.records if r.id not in only}
    # Each record's YAML is made while git packs the blobs of the files before it (see commit_bulk).
    files: dict[Path, Content] = {}
    written: list[RecordBase] = []
    paths: dict[int, Path] = {}
    """id() of a record written -> its file (`written` keeps it alive)."""
    known = set(existing) | {r.id for r in plan.records}
    for index, raw in enumerate(plan.records):
        record = writes.record(raw, index)
        if record is None:
            report.unchanged += 1
            continue
        old = existing.get(record.id)
        if old is not None:
            report.changed.append(record)
            if old.kind != record.kind:
                files[store.record_path(sid, old.kind, old.id)] = None
        else:
            report.added.append(record)
        at = store.record_path(sid, record.kind, record.id)
        files[at] = partial(writes.text, record)
        written.append(record)
        paths[id(record)] = at
        missing = sorted({t for _, t in record.link_pairs() if t not in known})
        if missing:
            report.notes.append(f"{record.kind}/{record.id} links to records not in the file or the session: {', '.join(missing)}")
    meta = _session_after(current, sid, plan, session_title, not existing, base)
    if current is None or meta != current:
        files[store.session_dir(sid) / SESSION_FILE] = codec.dump_session(meta).encode()
    new_points = [c for c in plan.checkpoints if current is None or c.source not in {p.source for p in current.checkpoints}]
    report.checkpoints = new_points
    if dry_run or not files:
        return report
    parent = store.git.head()
    # One lock for the commit and the dump tags: the tags' numbers are taken from the dumps
    # listed here, and nobody else can tag in between.
    with store.lock():
        if create and (store.session_dir(sid) / SESSION_FILE).exists():
            raise StatedumpError(f"session {sid!r} was created by someone else meanwhile", where="-s", hint="run the import again")
        dumps = list_dumps(store, sid)
        # Each folder looked at once (not twice for each of thousands of files).
        fresh = sorted((d for d in {d for p in files for d in (p.parent, p.parent.parent)} if not d.exists()), key=lambda d: -len(d.parts))
        taken = {d.message.split("\n", 1)[0] for d in dumps}
        objects = CheckpointObjects(store, parent, pack=len(files) >= OFFLOAD)
        points: list[tuple[str, CheckpointMark, Snapshot | None]] = []

        def make(give: Callable[[Path | None, bytes | None], None]) -> None:
            # Every file's YAML and every checkpoint's, on two cores, each handed to the writer
            # and to git as soon as it is made; then the checkpoint commits.
            def told(record: RecordBase, data: bytes) -> None:
                give(paths.get(id(record)), data)

            points.extend(_snapshots(store, sid, new_points, meta, parent, writes, taken, written, told))
            objects.checkpoints([snap for _, _, snap in points if snap is not None])

        try:
            report.commit, commits = commit_bulk(store, files, _message(report), fixed(), objects, make)
        except BaseException:
            # The files are restored by the store; the folders made for them go too.
            for folder in fresh:
                with contextlib.suppress(OSError):
                    folder.rmdir()
            raise
        _tag_checkpoints(store, report, points, commits, max((d.number for d in dumps), default=0))
    return report


class _Writes:
    """Each record prepared (merged, redacted, timed) and turned into YAML once, for the
    import's commit and for every checkpoint commit that holds it."""

    def __init__(self, existing: dict[str, RecordBase], base: datetime, guessed: dict[str, set[str]]):
        self.existing = existing
        self.base = base
        self.guessed = guessed
        # Keyed by id(): the values keep the objects alive, so an id is never reused meanwhile.
        self._records: dict[tuple[int, int], tuple[RecordBase, RecordBase | None]] = {}
        self._texts: dict[int, tuple[RecordBase, bytes]] = {}
        self.settled: set[int] = set()
        """id() of records known to be in the session as they are (see `apply_plan`'s `only`)."""

    def record(self, raw: RecordBase, index: int) -> RecordBase | None:
        """`_prepared(raw, index, ...)`, computed once; None for a settled record."""
        if id(raw) in self.settled:
            return None
        key = (id(raw), index)
        if key not in self._records:
            self._records[key] = (raw, _prepared(raw, index, self.existing, self.base, self.guessed.get(raw.id, set())))
        return self._records[key][1]

    def text(self, record: RecordBase) -> bytes:
        """The record's file, as bytes."""
        if id(record) not in self._texts:
            self._texts[id(record)] = (record, codec.dump_record(record).encode())
        return self._texts[id(record)][1]

    def make_texts(self, records: list[RecordBase], told: Callable[[RecordBase, bytes], None] | None = None) -> None:
        """`text` of each of these records made now, all at once (see core/store/parallel.py),
        and `told(record, bytes)` of each as soon as it is made."""
        missing = list({id(r): r for r in records if id(r) not in self._texts}.values())
        for record, data in zip(missing, dump_many(missing, told), strict=True):
            self._texts[id(record)] = (record, data)


def _prepared(raw: RecordBase, index: int, existing: dict[str, RecordBase], base: datetime, guessed: set[str]) -> RecordBase | None:
    """The record as it will be written (merged, redacted, timed), or None when the session
    already has it with the same content.

    A record the session already has is updated with what the file says, field by field:
    what the file does not say (tags, links, versions a state document does not show) and
    what the reader had to make up (`guessed`) stay as they are.
    """
    old = existing.get(raw.id)
    record = raw
    if old is not None and old.kind == raw.kind:
        data = old.model_dump()
        data.update({k: v for k, v in raw.model_dump(exclude_unset=True).items() if k not in guessed and k != "at"})
        record = type(raw).model_validate(data)
    record = fit_record(redact_model(record))  # redacted, then cut to the size a file may have
    if record.at is None:
        record = record.model_copy(update={"at": base + timedelta(seconds=index)})
    if old is not None and _comparable(old) == _comparable(record):
        return None
    return record


def _snapshots(
    store: Store,
    sid: str,
    points: list[CheckpointMark],
    meta: Session,
    parent: str | None,
    writes: _Writes,
    taken: set[str],
    also: list[RecordBase],
    told: Callable[[RecordBase, bytes], None] | None = None,
) -> list[tuple[str, CheckpointMark, Snapshot | None]]:
    """For each checkpoint not tagged yet (`taken`: the subjects of the session's dumps): its
    tag's subject, and the commit that holds the state as of that checkpoint (None: the tag
    goes on the import's own commit). The YAML of every record they hold, and of `also` (the
    import's own files), is made first, all at once (on two cores for many records)."""
    before = {c.source for c in meta.checkpoints} - {p.source for p in points}
    wanted: list[tuple[int, str, CheckpointMark, list[RecordBase | None]]] = []
    for k, point in enumerate(points):
        subject = f"State dump ({point.source}): {point.message}"
        if subject in taken:
            continue
        held = [writes.record(raw, index) for index, raw in enumerate(point.records)] if parent is not None else []
        wanted.append((k, subject, point, held))
    writes.make_texts([*also, *(r for *_, held in wanted for r in held if r is not None)], told)
    out: list[tuple[str, CheckpointMark, Snapshot | None]] = []
    # A record unchanged between dumps is the same object in each snapshot: one path for it.
    rels: dict[tuple[str, str], str] = {}
    for k, subject, point, held in wanted:
        if parent is None or not point.records:
            out.append((subject, point, None))
            continue
        seen = before | {p.source for p in points[: k + 1]}
        files = {store.rel(store.session_dir(sid) / SESSION_FILE): codec.dump_session(_as_of(meta, seen)).encode()}
        for record in held:
            if record is None:
                continue
            key = (record.kind, record.id)
            if key not in rels:
                # Made as the repository path it is (pathlib's join and relative_to were a
                # tenth of an import's writing).
                rels[key] = record_path(sid, record.kind, record.id)
            files[rels[key]] = writes.text(record)
        message = f"{subject}\n\nStatedump-Session: {sid}\nStatedump-Action: checkpoint\nStatedump-Source: {point.source}\n"
        out.append((subject, point, Snapshot(files, message, point.at)))
    return out


def _tag_checkpoints(
    store: Store, report: ImportReport, points: list[tuple[str, CheckpointMark, Snapshot | None]], commits: list[str], number: int
) -> None:
    """A dump tag per checkpoint, on its own commit or on the import's, numbered after the
    session's last dump (`number`); the caller holds the lock."""
    if report.commit is None or not points:
        return
    made = iter(commits)
    tags = []
    for subject, point, snap in points:
        number += 1
        name = f"{dumps_prefix(report.session)}{number}"
        tags.append((name, report.commit if snap is None else next(made), redact_text(subject), point.at))
    write_tags(store, tags)
    report.tags += [name for name, _, _, _ in tags]


def _as_of(meta: Session, sources: set[str | None]) -> Session:
    return meta.model_copy(update={"checkpoints": [c for c in meta.checkpoints if c.source in sources]})
