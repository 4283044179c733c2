"""Reading many record files on two cores.

A cold read of a big session (a fresh clone, a pull that changed thousands of files, a
cache made by other models) is parse and validation bound. Above `MIN_FILES` files, half of
them are read in a forked copy of this process, which sends the records back pickled; the
other half are read here meanwhile. Only a single-threaded process forks (core/forking.py):
the TUI and the MCP server read in order.
Any trouble in the child (an error in a file, a broken pipe) means its half is read here
again, in order, so the error raised is the same as without the fork.
"""

from __future__ import annotations

import contextlib
import os
import pickle
from typing import TYPE_CHECKING

from statedump.core.forking import can_fork
from statedump.core.store.reader import parse_record, read_bytes

if TYPE_CHECKING:
    from statedump.models import RecordBase

MIN_FILES = 2000
"""Below this many files a fork costs more than it saves."""


def _read(items: list[tuple[str, str]]) -> list[RecordBase]:
    return [parse_record(read_bytes(path), rel) for rel, path in items]


def _child(items: list[tuple[str, str]], fd: int) -> None:
    try:
        try:
            data = pickle.dumps(_read(items), protocol=pickle.HIGHEST_PROTOCOL)
        except BaseException:
            data = b""  # the parent reads these files itself and raises the error in order
        with os.fdopen(fd, "wb") as out:
            out.write(data)
    finally:
        os._exit(0)  # no atexit handlers, no flushing of the parent's buffers


def read_many(items: list[tuple[str, str]]) -> list[RecordBase]:
    """The records in the files `items` names ((repository path, file path) pairs), in order."""
    if len(items) < MIN_FILES or not can_fork():
        return _read(items)
    half = len(items) // 2
    mine, theirs = items[:half], items[half:]
    r, w = os.pipe()
    try:
        pid = os.fork()
    except OSError:
        os.close(r)
        os.close(w)
        return _read(items)
    if pid == 0:  # pragma: no cover - the child leaves through os._exit
        os.close(r)
        _child(theirs, w)
    os.close(w)
    data = b""
    try:
        first = _read(mine)
        with os.fdopen(r, "rb") as pipe:
            data = pipe.read()
    finally:
        with contextlib.suppress(OSError):
            os.close(r)
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, 0)
    second: list[RecordBase] | None = None
    with contextlib.suppress(Exception):
        # Our own child wrote it, a moment ago, through a pipe: not a file anyone could plant.
        second = pickle.loads(data) if data else None  # noqa: S301
    if second is None or len(second) != len(theirs):
        second = _read(theirs)
    return first + second
