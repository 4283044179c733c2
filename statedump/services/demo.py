"""The example store: the reference session replayed into a fresh git repository, as it happened.

The example's record files hold the session's final state. `replay.yaml` beside them holds the
life of the records that changed on the way (the launch command edited twice, risks opened
and resolved, the prebuilt sgl-kernel replaced, benchmarks gone stale): each earlier version
as the fields in which it differs from the file, with the time and the source of each change.
`build_demo` commits every version at its time, so `log`, `diff` and `render --at` tell the
session's history, and the last commit holds exactly the record files.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path
from typing import Any

from statedump.core import codec
from statedump.core.errors import StatedumpError
from statedump.core.layout import SESSION_FILE, RecordRef, session_path
from statedump.core.store.reader import parse_record, read_bytes, scan_folder
from statedump.core.store.store import Store
from statedump.models import RecordBase
from statedump.models.state import SessionState
from statedump.services.refs import tag_dump

EXAMPLE = "qwen35-397b-a17b-nvfp4"
REPLAY_FILE = "replay.yaml"
"""The example's history, next to its record files (not a record: no kind folder holds it)."""


def example_dir() -> Path:
    """Where the example session's files are: inside the wheel, or in the checkout."""
    packaged = Path(str(resources.files("statedump"))) / "example" / EXAMPLE
    if (packaged / SESSION_FILE).is_file():
        return packaged
    checkout = Path(__file__).resolve().parents[2] / session_path(EXAMPLE)
    if (checkout / SESSION_FILE).is_file():
        return checkout
    raise StatedumpError("the example session is missing from this installation", where=str(packaged), hint="reinstall statedump")


def load_example(folder: Path | None = None) -> SessionState:
    """The example session as data, read straight from its files."""
    folder = folder or example_dir()
    meta = codec.load_session((folder / SESSION_FILE).read_bytes(), folder / SESSION_FILE)
    records = [parse_record(read_bytes(entry.path), rel) for rel, entry in scan_folder(folder, session_path(EXAMPLE))]
    return SessionState(meta, records)


@dataclass(frozen=True)
class Version:
    """One commit of the replay: a record as it was from `at` on."""

    at: datetime
    record: RecordBase
    source: str | None
    """The source of this change (the commit's trailer); None for a record's first version,
    whose trailer is the record's own `source`."""
    first: bool


def load_replay(state: SessionState, folder: Path | None = None) -> dict[str, list[Version]]:
    """Record id -> its versions in order, from `replay.yaml` (empty when there is none).

    Each version is the record's file with that version's `set` fields applied; the last is
    the file itself. A version that the models refuse, a record the example does not have, or
    an entry out of order is an error naming the file and the record.
    """
    path = (folder or example_dir()) / REPLAY_FILE
    if not path.is_file():
        return {}
    data = codec.parse_yaml(path.read_bytes(), path)
    out: dict[str, list[Version]] = {}
    for key, entries in (data.get("records") or {}).items():
        where = f"{path}: {key}"
        ref = RecordRef.parse(f"{session_path(EXAMPLE)}/{key}.yaml")
        final = state.get(ref.id) if ref else None
        if ref is None or final is None or final.kind != ref.kind or not isinstance(entries, list) or not entries:
            raise StatedumpError("not a record of the example with a list of versions", where=where, hint="name it kind/id")
        out[final.id] = [_version(final, entry, n, len(entries), where) for n, entry in enumerate(entries)]
        times = [v.at for v in out[final.id]]
        if times != sorted(times):
            raise StatedumpError("versions out of time order", where=where, hint="list each record's versions oldest first")
    return out


def _version(final: RecordBase, entry: Any, n: int, count: int, where: str) -> Version:
    if not isinstance(entry, dict) or "at" not in entry or set(entry) - {"at", "source", "set"}:
        raise StatedumpError(f"version {n + 1}: expected at, source and set", where=where)
    last, first = n == count - 1, n == 0
    changes = entry.get("set")
    if last == (changes is not None) or first == ("source" in entry):
        raise StatedumpError(
            f"version {n + 1}: the last version is the file (no set), every other one has set; only later versions have a source",
            where=where,
        )
    when = entry["at"] if isinstance(entry["at"], datetime) else datetime.fromisoformat(str(entry["at"]).replace("Z", "+00:00"))
    record = final
    if changes is not None:
        fields = codec.record_data(final)
        for name, value in changes.items():
            if value is None:
                fields.pop(name, None)
            else:
                fields[name] = value
        record = codec.record_from_data(fields, f"{where} (version {n + 1})", final.kind)
    return Version(when, record, entry.get("source"), first)


def build_demo(directory: Path) -> tuple[Store, str, list[str]]:
    """Replay the example into a new store at `directory` and return (store, session, dump tags).

    Every record is added at its `at`, or at each of its versions' times when `replay.yaml`
    gives its life; a dump tag marks each checkpoint. Refuses a non-empty directory.
    """
    if directory.exists() and (not directory.is_dir() or any(directory.iterdir())):
        raise StatedumpError("the directory is not empty", where=directory, hint="name a new or empty directory")
    state = load_example()
    lives = load_replay(state)
    # Dated like the rest of the replay, so the same example gives the same commits.
    store = Store.init(directory, when=state.session.started)
    sid = state.session.id
    store.create_session(state.session, when=state.session.started)
    steps: list[Version] = [v for r in state.records if r.id in lives for v in lives[r.id]]
    # An undated record goes in with the session's start (every record of the example is dated).
    start = state.session.started or datetime.fromtimestamp(0, UTC)
    steps += [Version(r.at or start, r, None, True) for r in state.records if r.id not in lives]
    steps.sort(key=lambda v: v.at)  # stable: same-time steps keep the order of the records
    checkpoints = sorted(state.session.checkpoints, key=lambda c: c.at)
    tags: list[str] = []
    previous: dict[str, RecordBase] = {}
    for step in steps:
        while checkpoints and checkpoints[0].at < step.at:
            point = checkpoints.pop(0)
            tags.append(tag_dump(store, sid, _dump_message(point.source, point.message), point.at).name)
        if step.first:
            # Links may point forward in time; the whole example is validated by the tests.
            store.add(sid, step.record, when=step.at, check_links=False)
        else:
            before = previous[step.record.id]
            only_status = before.model_copy(update={"status": step.record.status}) == step.record
            action = f"status {step.record.status}" if only_status else "edit"
            store.replace_records(sid, [step.record], action=action, source=step.source, when=step.at)
        previous[step.record.id] = step.record
    for point in checkpoints:
        tags.append(tag_dump(store, sid, _dump_message(point.source, point.message), point.at).name)
    return store, sid, tags


def _dump_message(source: str | None, message: str | None) -> str:
    head = f"State dump ({source})" if source else "State dump"
    return f"{head}: {message}" if message else head
