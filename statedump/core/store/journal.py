"""The journal of a write under way: which files it is changing and what each held before.

Written durably before the first file of a write and removed after its commit, so that
`statedump doctor` can undo a write that was killed in between. It keeps each file's bytes
from before the write (not HEAD's): an uncommitted hand edit of a file the write touched
is put back as it was. The journal lives inside `.git`, so it is read as untrusted: a
planted one may name nothing outside the store's sessions.
"""

from __future__ import annotations

import base64
import json
import os
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from statedump.core.layout import SESSIONS
from statedump.core.store.files import write_atomic
from statedump.core.store.untrusted import read_regular


@dataclass(frozen=True)
class Journal:
    """What a journal says. `before` is None for a journal of an older statedump, which kept
    no contents (the files then go back to HEAD); a path missing from it did not exist."""

    head: str | None
    paths: list[str]
    subject: str
    before: dict[str, bytes | None] | None


def write_journal(path: Path, head: str | None, before: dict[str, bytes | None], subject: str, *, durable: bool = True) -> None:
    """Record a write of the repository paths in `before`, with their bytes now; synced to disk
    when `durable` (as git syncs its commits: core/git/durability.py)."""
    kept = {rel: None if data is None else base64.b64encode(data).decode() for rel, data in before.items()}
    entry = {"head": head, "paths": list(before), "subject": subject, "pid": os.getpid(), "before": kept}
    write_atomic(path, json.dumps(entry).encode(), durable=durable)


def unsafe_path(rel: str) -> str | None:
    """Why `rel` may not be touched by a repair (None when it may): only files under
    `sessions/`, named without `..`, absolute parts or backslashes."""
    pure = PurePosixPath(rel)
    if not rel or "\\" in rel or "\0" in rel or pure.is_absolute():
        return "not a relative path"
    if ".." in pure.parts or "." in rel.split("/"):
        return "it climbs out with '..'"
    if pure.parts[0] != SESSIONS or len(pure.parts) < 3:
        return f"not a file under {SESSIONS}/"
    return None


def read_journal(path: Path) -> Journal | None:
    """The journal at `path`; None when there is none. Raises ValueError for one that is
    damaged or names a path a repair must not touch (the message says which)."""
    if not os.path.lexists(path):
        return None
    data = read_regular(path, limit=1 << 30)
    if data is None:
        raise ValueError("not a regular file")
    entry = json.loads(data)
    if not isinstance(entry, dict) or not isinstance(entry.get("paths"), list):
        raise ValueError("no list of paths")
    paths = [str(p) for p in entry["paths"]]
    for rel in paths:
        why = unsafe_path(rel)
        if why:
            raise ValueError(f"it names {rel!r}: {why}")
    raw = entry.get("before")
    before: dict[str, bytes | None] | None = None
    if isinstance(raw, dict):
        before = {rel: None if raw.get(rel) is None else base64.b64decode(str(raw[rel]), validate=True) for rel in paths}
    head = entry.get("head")
    return Journal(str(head) if head else None, paths, str(entry.get("subject", "")), before)
