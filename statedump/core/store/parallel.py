"""Reading or writing many records on two cores.

A cold read of a big session (a fresh clone, a pull that changed thousands of files, a
cache made by other models) is parse and validation bound, and an import of a long transcript
spends most of its writing on the records' YAML. Above `MIN_FILES` files (`MIN_DUMPS`
records), half of the work is done in a forked copy of this process, which sends its results
back pickled; the other half is done here meanwhile. Only a single-threaded process forks
(core/forking.py): the TUI and the MCP server work in order.
Any trouble in the child (an error in a file, a broken pipe) means its half is done here
again, in order, so the error raised is the same as without the fork.
"""

from __future__ import annotations

import contextlib
import os
import pickle
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from statedump.core.forking import can_fork
from statedump.core.store.reader import parse_record, read_bytes

if TYPE_CHECKING:
    from statedump.models import RecordBase

MIN_FILES = 2000
"""Below this many files a fork costs more than it saves."""
MIN_DUMPS = 600
"""Below this many records a fork costs more than it saves (a record's YAML takes about 50 µs)."""

T = TypeVar("T")
U = TypeVar("U")


def _read(items: list[tuple[str, str]]) -> list[RecordBase]:
    return [parse_record(read_bytes(path), rel) for rel, path in items]


def _dump(records: list[RecordBase]) -> list[bytes]:
    from statedump.core import codec

    return [codec.dump_record(record).encode() for record in records]


def read_many(items: list[tuple[str, str]]) -> list[RecordBase]:
    """The records in the files `items` names ((repository path, file path) pairs), in order."""
    return _on_two_cores(items, _read, MIN_FILES)


def dump_many(records: list[RecordBase], each: Callable[[RecordBase, bytes], None] | None = None) -> list[bytes]:
    """The file of each record (`codec.dump_record`, encoded), in order; `each(record, bytes)`
    is told of each one as soon as this process has it (its own half as it makes them, the
    child's when they come), so that the caller can write it meanwhile."""
    return _on_two_cores(records, _dump, MIN_DUMPS, each)


def _child(work: Callable[[list[T]], list[U]], items: list[T], fd: int) -> None:
    try:
        try:
            data = pickle.dumps(work(items), protocol=pickle.HIGHEST_PROTOCOL)
        except BaseException:
            data = b""  # the parent does this half itself and raises the error in order
        with os.fdopen(fd, "wb") as out:
            out.write(data)
    finally:
        os._exit(0)  # no atexit handlers, no flushing of the parent's buffers


def _on_two_cores(items: list[T], work: Callable[[list[T]], list[U]], least: int, told: Callable[[T, U], None] | None = None) -> list[U]:
    """`work(items)`, half of it in a child; `told(item, result)` of each result as soon as
    this process has it."""

    def here(part: list[T]) -> list[U]:
        if told is None:
            return work(part)
        out = []
        for item in part:
            result = work([item])[0]
            told(item, result)
            out.append(result)
        return out

    if len(items) < least or not can_fork():
        return here(items)
    half = len(items) // 2
    mine, theirs = items[:half], items[half:]
    r, w = os.pipe()
    try:
        pid = os.fork()
    except OSError:
        os.close(r)
        os.close(w)
        return here(items)
    if pid == 0:  # pragma: no cover - the child leaves through os._exit
        os.close(r)
        _child(work, theirs, w)
    os.close(w)
    data = b""
    try:
        first = here(mine)
        with os.fdopen(r, "rb") as pipe:
            data = pipe.read()
    finally:
        with contextlib.suppress(OSError):
            os.close(r)
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, 0)
    second: list[U] | None = None
    with contextlib.suppress(Exception):
        # Our own child wrote it, a moment ago, through a pipe: not a file anyone could plant.
        second = pickle.loads(data) if data else None  # noqa: S301
    if second is None or len(second) != len(theirs):
        return first + here(theirs)
    if told is not None:
        for item, result in zip(theirs, second, strict=True):
            told(item, result)
    return first + second
