"""The one way a record file becomes a record: found by `layout`, parsed by the codec, checked
against its place. The store reads through it, and the record cache is a layer over it."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from statedump.core.errors import BadInput, StatedumpError
from statedump.core.layout import SESSION_FILE, SESSIONS, RecordRef, is_record_name, session_path
from statedump.models.ids import KIND_NAMES

if TYPE_CHECKING:
    from statedump.models import RecordBase


def parse_record(data: bytes, rel: str) -> RecordBase:
    """The record in `data`, read from the repository path `rel`: its kind must be its folder's
    and its id its file's name."""
    from statedump.core import codec  # PyYAML only when a file has to be parsed

    ref = RecordRef.parse(rel)
    record = codec.load_record(data, rel, ref.kind if ref else None)
    stem = ref.id if ref else Path(rel).stem
    if record.id != stem:
        raise StatedumpError(
            f"field 'id' is {record.id!r} but the file is named {stem}.yaml", where=rel, hint="rename the file or fix the id"
        )
    return record


def confined(root: Path, path: Path) -> Path:
    """`path` when it stays inside the store `root` once every symbolic link on the way is
    followed; else one error naming it. A cloned store can hold a link planted to any file
    (`~/.ssh/id_rsa`, `/etc/passwd`): reading through it would show that file, and writing
    through it would replace it, or commit its contents for `sync` to push."""
    top = os.path.realpath(root)
    real = os.path.realpath(path)
    if real == top or real.startswith(top.rstrip(os.sep) + os.sep):
        return path
    try:
        rel: str | Path = path.relative_to(root)
    except ValueError:
        rel = path
    raise BadInput(
        "is a symbolic link (or lies under one) that leads out of the store; statedump never reads or writes through it",
        where=rel,
        hint="remove the link, or put the file itself in its place",
    )


def confine_session(root: Path, session: str) -> None:
    """Refuse a session whose folder, `session.yaml` or kind folders lead out of the store."""
    base = root / session_path(session)
    for path in (root / SESSIONS, base, base / SESSION_FILE, *(base / kind for kind in KIND_NAMES)):
        confined(root, path)


def scan_records(root: Path, session: str) -> Iterator[tuple[str, os.DirEntry[str]]]:
    """(repository path, directory entry) of every record file of a session in the work tree,
    kind by kind and by name, so that errors and caches come in a stable order. A session
    that leads out of the store through a symbolic link is refused (see `confined`)."""
    confine_session(root, session)
    base = session_path(session)
    for rel, entry in scan_folder(root / base, base):
        if entry.is_symlink():
            confined(root, Path(entry.path))
        yield rel, entry


def scan_folder(folder: Path, base: str) -> Iterator[tuple[str, os.DirEntry[str]]]:
    """`scan_records` of a session folder anywhere (the example inside the wheel), its files
    named as if the folder were `base` in a store."""
    for kind in KIND_NAMES:
        try:
            entries = sorted(os.scandir(folder / kind), key=lambda e: e.name)
        except (FileNotFoundError, NotADirectoryError):
            continue
        for entry in entries:
            if is_record_name(entry.name):
                rel = f"{base}/{kind}/{entry.name}"
                if not entry.is_file():
                    raise StatedumpError("expected a record file, found a folder", where=rel)
                yield rel, entry


def read_bytes(path: str | os.PathLike[str]) -> bytes:
    """A file's bytes, read without Python's buffering (record files are small and read once)."""
    with open(path, "rb", buffering=0) as fh:
        return fh.readall()
