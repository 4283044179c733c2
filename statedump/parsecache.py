"""A cache of parsed record files, so reading a big session does not re-parse every YAML file.

PyYAML spends about 0.1 ms on each record file even with its C loader: 1.2 s for a
session of 10,000 records, most of `statedump render`. The cache keeps what the
parser returned for each file, keyed the way git's index keys its entries (size,
mtime, ctime, inode), in one JSON file inside `.git/`. The files stay the truth:

- a file whose stat does not match its entry is parsed again;
- a file changed within the last `RACY_NS` is never cached (two writes in one clock
  tick can leave the same stat behind), so it is parsed until it has settled;
- only data that JSON gives back exactly is cached (plain YAML scalars, lists and
  string-keyed mappings; `at` as a timestamp), so a cached record validates to the
  same model as a freshly parsed one; anything else is parsed every time;
- cached data is validated by the models on every read, like parsed data;
- an unreadable, foreign or stale cache file is ignored and rewritten.

Nothing here is needed for correctness: deleting the cache only costs time.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections.abc import Iterator
from datetime import date, datetime
from pathlib import Path
from typing import Any

from statedump import codec
from statedump.errors import StatedumpError
from statedump.models import KINDS, RecordBase

VERSION = 1
RACY_NS = 2_000_000_000
"""Files changed this recently (ns) are parsed, not cached: file times are coarser than writes."""

_Key = list[int]


def cache_path(root: Path, session: str) -> Path | None:
    """Where the cache of `session` lives: inside the repository's `.git` folder (None when `.git` is not a folder)."""
    git_dir = root / ".git"
    return git_dir / "statedump" / f"parsed-{session}.json" if git_dir.is_dir() else None


def _key(st: os.stat_result) -> _Key:
    return [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino]


def _plain(value: Any) -> bool:
    """True when JSON gives `value` back exactly."""
    if isinstance(value, str | bool | int | float) or value is None:
        return True
    if isinstance(value, list):
        return all(_plain(v) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _plain(v) for k, v in value.items())
    return False


def _to_cache(data: dict[str, Any]) -> dict[str, Any] | None:
    at = data.get("at")
    rest = {k: v for k, v in data.items() if k != "at"}
    if not _plain(rest):
        return None
    if at is None or "at" not in data:
        return data
    if isinstance(at, datetime):
        return {**rest, "at": {"datetime": at.isoformat()}}
    if isinstance(at, date):
        return {**rest, "at": {"date": at.isoformat()}}
    return None


def _from_cache(data: dict[str, Any]) -> dict[str, Any]:
    at = data.get("at")
    if isinstance(at, dict):
        # fromisoformat gives back the same value (and the same tzinfo class) PyYAML built.
        data["at"] = datetime.fromisoformat(at["datetime"]) if "datetime" in at else date.fromisoformat(at["date"])
    return data


def _read(path: Path | None) -> dict[str, list[Any]]:
    if path is None:
        return {}
    try:
        loaded = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return {}
    if not isinstance(loaded, dict) or loaded.get("version") != VERSION or not isinstance(loaded.get("entries"), dict):
        return {}
    entries: dict[str, list[Any]] = loaded["entries"]
    return entries


def _write(path: Path, entries: dict[str, list[Any]]) -> None:
    # Any complete file is a valid cache, so a rename is all the locking needed; a
    # store that cannot be written (read-only clone) simply goes without.
    with contextlib.suppress(OSError):
        path.parent.mkdir(exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps({"version": VERSION, "entries": entries}, ensure_ascii=False), encoding="utf-8")
        os.replace(tmp, path)


def _files(folder: Path) -> Iterator[tuple[str, str, os.DirEntry[str]]]:
    """(kind, file name, entry) of every record file under a session folder, in a stable order."""
    for kind in KINDS:
        try:
            entries = sorted(os.scandir(folder / kind), key=lambda e: e.name)
        except (FileNotFoundError, NotADirectoryError):
            continue
        for entry in entries:
            if entry.name.endswith(".yaml") and not entry.name.startswith("."):
                yield kind, entry.name, entry


def load_records(root: Path, session: str) -> list[RecordBase]:
    """Every record of a session in the working tree, parsed or taken from the cache.

    Raises the same StatedumpError as parsing would for the first bad file.
    """
    folder = root / "sessions" / session
    path = cache_path(root, session)
    old = _read(path)
    new: dict[str, list[Any]] = {}
    settled = time.time_ns() - RACY_NS
    records: list[RecordBase] = []
    changed = False
    for kind, name, entry in _files(folder):
        rel = f"sessions/{session}/{kind}/{name}"
        if not entry.is_file():
            raise StatedumpError("expected a record file, found a folder", where=rel)
        st = entry.stat()
        key = _key(st)
        cached = old.get(rel)
        data: dict[str, Any] | None = None
        if cached is not None and cached[0] == key:
            data = _from_cache(dict(cached[1]))
        record = _validated(data, kind, name, rel) if data is not None else None
        if record is None:
            with open(entry.path, "rb") as fh:
                raw = fh.read()
            data = codec.parse_yaml(raw, rel)
            keep = _to_cache(data) if max(st.st_mtime_ns, st.st_ctime_ns) < settled else None
            record = _checked(codec.record_from_data(data, rel, kind), name, rel)
            if keep is not None:
                new[rel] = [key, keep]
                changed = True
        elif cached is not None:
            new[rel] = cached
        records.append(record)
    if path is not None and (changed or new.keys() != old.keys()):
        _write(path, new)
    return records


def _checked(record: RecordBase, name: str, rel: str) -> RecordBase:
    stem = name[: -len(".yaml")]
    if record.id != stem:
        raise StatedumpError(
            f"field 'id' is {record.id!r} but the file is named {stem}.yaml", where=rel, hint="rename the file or fix the id"
        )
    return record


def _validated(data: dict[str, Any], kind: str, name: str, rel: str) -> RecordBase | None:
    """The record from cached data, or None when it no longer validates (the models changed): then the file is parsed."""
    try:
        return _checked(codec.record_from_data(data, rel, kind), name, rel)
    except StatedumpError:
        return None
