"""The lines of a JSONL file, and what each one's bytes say, found on the second core.

`lines` splits a file into lines, block by block, without copying them; `plain` tells a line
that looks undamaged. A Claude Code reader passes over nine lines in ten unparsed, but telling
which from the bytes (`claude_bytes.features`: a line's type, its calls, where its turn ends)
was still as much work as the parse it saved. What the bytes say does not depend on what the
reader knows, so for a file of `FORK_BYTES` or more a forked copy of this process reads the
file and finds the features of every line, and sends them back through a pipe in batches,
while this process decides on each line (which does depend on what it knows) and parses the
few it must, reading only those from the file. A line's decision is the same either way;
only where its features were found differs. The child is started before the reader's modules
are imported (`start`, from `read_plan`), so that it is at work while they load.

Only a single-threaded process forks (core/forking.py). Any trouble with the child (a pipe
cut, a batch cut short) means the rest of the file is scanned here, from the first line it
did not give, so the lines and their features are the same as without the fork.
"""

from __future__ import annotations

import contextlib
import os
import signal
import struct
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Protocol

from statedump.core.forking import can_fork

BLOCK = 4 << 20
"""The file is read this much at a time, and lines are found in the block, not read one by
one (larger blocks are no longer in the processor's cache when their lines are scanned)."""


MAX_LINE_BYTES = 64 << 20
"""A longer line is passed over without being held in memory: no message of it could be kept
whole in a record (see core/store/fit.py), and a 500 MB line read whole took gigabytes."""


class Overlong(bytes):
    """What `lines` yields for a line over `MAX_LINE_BYTES`: its size, not its bytes."""

    size: int

    def __new__(cls, size: int) -> Overlong:
        made = super().__new__(cls, b"\n")
        made.size = size
        return made


def lines(fh: BinaryIO | _Positioned, digest: Digest | None = None) -> Iterator[tuple[bytes, int, int]]:
    """Each line as (buffer, start, end), its newline included: the file is read in large
    blocks (each also handed to the digest), and only a line that spans two blocks is copied."""
    rest = b""
    skipped = 0  # bytes of a line over MAX_LINE_BYTES passed so far: that line is never held whole
    while block := fh.read(BLOCK):
        if digest is not None:
            digest.feed(block)
        start = 0
        if skipped:
            cut = block.find(b"\n")
            if cut < 0:
                skipped += len(block)
                continue
            yield Overlong(skipped + cut + 1), 0, 1
            skipped, start = 0, cut + 1
        elif rest:
            cut = block.find(b"\n")
            if cut < 0:
                rest += block
                if len(rest) > MAX_LINE_BYTES:
                    skipped, rest = len(rest), b""
                continue
            line, rest = rest + block[: cut + 1], b""
            yield line, 0, len(line)
            start = cut + 1
        while (cut := block.find(b"\n", start)) >= 0:
            yield block, start, cut + 1
            start = cut + 1
        rest = block[start:]
    if skipped:
        yield Overlong(skipped), 0, 1
    elif rest:
        yield rest, 0, len(rest)
    if digest is not None:
        digest.close()


def plain(buf: bytes, start: int, end: int, ascii_block: bool, nul_free: bool) -> bool:
    """True when a line's bytes rule out the ways a transcript line is usually damaged: it is
    braced like an object and ends with a newline (a line cut off by a crash does not), it
    holds no NUL (the zero-filled tail a crash can leave), and it is UTF-8 (`ascii_block`,
    `nul_free`: what the whole buffer is known to be). Scanning for every control character
    would cost more than the parse it saves."""
    if not (buf.startswith(b"{", start, end) and buf.endswith(b"}\n", start, end)):
        return False
    if not nul_free and buf.find(b"\x00", start, end) >= 0:
        return False
    if not ascii_block:
        try:
            buf[start:end].decode("utf-8")
        except UnicodeDecodeError:
            return False
    return True


class Digest(Protocol):
    """Told every block read (see jsonl.start_digest)."""

    def feed(self, block: bytes, /) -> None: ...

    def close(self) -> None: ...


Features = Callable[[bytes, int, int, bool], tuple[int, int, bytes]]
"""A line's bytes -> (kind, flags, the tool_use id it answers): see `claude_bytes.features`."""

Line = tuple[int, int, int, int, bytes, int]
"""(where it starts in the file, its length, kind, flags, answers, marks) of one line; kind
`OVERLONG` for a line over the length limit (its length then the line's size)."""

OVERLONG = -1
PLAIN, COMPLETE = 1, 2
"""Marks: the line looks undamaged (`plain`); it ends with a newline."""

FORK_BYTES = 32 << 20
"""From this many bytes to read, the features are found in a child (a fork and its pipe cost
a few milliseconds; below this the file is read in less than 0.05 s)."""

_BATCH = 1024
"""Lines per batch sent back: each is written at once, so that this process decides on them
while the child finds the next (20 to 40 KB each: the pipe holds one or two)."""

_HEAD = struct.Struct("<II")  # lines in the batch, bytes of answers after them
_ROW = struct.Struct("<QQbBBH")  # start, length, kind, flags, marks, length of its answer


@dataclass
class _Child:
    pid: int
    pipe: int


_started: dict[tuple[str, int], _Child] = {}
"""Children started by `start` for (file, offset), until `scan` takes one up or `stop` ends it."""


def forks(size: int) -> bool:
    """Whether a scan of this many bytes is worth a child, and this process may fork."""
    return size >= FORK_BYTES and can_fork()


def start(path: Path, offset: int, features: Features) -> tuple[str, int] | None:
    """A child scanning `path` from `offset` now, for the `scan` of it to come; its key, for
    `stop` (None: the file is too small, or this process may not fork)."""
    try:
        size = path.stat().st_size
    except OSError:
        return None  # the reader says what is wrong with it
    key = (str(path.resolve()), offset)
    if key in _started or not forks(size - offset):
        return None
    child = _fork(path, offset, features)
    if child is None:
        return None
    _started[key] = child
    return key


def stop(key: tuple[str, int] | None) -> None:
    """End a child `start` began that no scan took up (the reader failed first)."""
    child = _started.pop(key, None) if key is not None else None
    if child is not None:
        _end(child, done=False)


def scan(path: Path, fh: BinaryIO, offset: int, features: Features) -> Iterator[list[Line]]:
    """Every line of the file from `offset` (`fh` is open on it), with its features, found by
    a child (one `start` began, else one forked now), in batches as the child sends them."""
    child = _started.pop((str(path.resolve()), offset), None) or _fork(path, offset, features)
    given = offset if child is None else (yield from _take(child))
    if given is not None:  # no child, or it stopped early: the rest is scanned here
        fh.seek(given)
        batch: list[Line] = []
        for line in _here(fh, given, features):
            batch.append(line)
            if len(batch) == _BATCH:
                yield batch
                batch = []
        if batch:
            yield batch


def _here(fh: BinaryIO | _Positioned, offset: int, features: Features) -> Iterator[Line]:
    at = offset
    last: bytes | None = None
    ascii_block = nul_free = True
    for buf, start, stop in lines(fh):
        if type(buf) is Overlong:
            yield at, buf.size, OVERLONG, 0, b"", 0
            at += buf.size
            continue
        if buf is not last:
            last, ascii_block, nul_free = buf, buf.isascii(), b"\x00" not in buf
        code, flags, answers = features(buf, start, stop, True)
        marks = (PLAIN if plain(buf, start, stop, ascii_block, nul_free) else 0) | (COMPLETE if buf[stop - 1] == 10 else 0)
        yield at, stop - start, code, flags, answers, marks
        at += stop - start


def _fork(path: Path, offset: int, features: Features) -> _Child | None:
    try:
        source = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    try:
        r, w = os.pipe()
    except OSError:
        os.close(source)
        return None
    try:
        pid = os.fork()
    except OSError:
        for fd in (r, w, source):
            os.close(fd)
        return None
    if pid == 0:  # pragma: no cover - the child leaves through os._exit
        os.close(r)
        _child(source, offset, w, features)
    os.close(w)
    os.close(source)
    return _Child(pid, r)


def _take(child: _Child) -> Generator[list[Line], None, int | None]:
    # Returns None when the child gave every line, else where the lines it did not give start.
    at: int | None = None
    done = False
    try:
        with os.fdopen(child.pipe, "rb") as pipe:
            while len(head := pipe.read(_HEAD.size)) == _HEAD.size:
                count, answered = _HEAD.unpack(head)
                if count == 0:
                    done = True
                    break
                rows = pipe.read(count * _ROW.size)
                answers = pipe.read(answered)
                if len(rows) != count * _ROW.size or len(answers) != answered:
                    break
                cut = 0
                batch: list[Line] = []
                for start, length, code, flags, marks, size in _ROW.iter_unpack(rows):
                    batch.append((start, length, code, flags, answers[cut : cut + size], marks))
                    cut += size
                yield batch
                at = batch[-1][0] + batch[-1][1]
    finally:
        child.pipe = -1
        _end(child, done)
    return None if done else at


def _end(child: _Child, done: bool) -> None:
    if not done:
        with contextlib.suppress(ProcessLookupError):
            os.kill(child.pid, signal.SIGKILL)  # its lines are not wanted (an error, ^C): it stops now
    if child.pipe >= 0:
        with contextlib.suppress(OSError):
            os.close(child.pipe)
    with contextlib.suppress(ChildProcessError):
        os.waitpid(child.pid, 0)


def _child(source: int, offset: int, fd: int, features: Features) -> None:
    try:
        with contextlib.suppress(BaseException):
            rows, answers, count = bytearray(), bytearray(), 0
            for start, length, code, flags, answer, marks in _here(_Positioned(source, offset), offset, features):
                rows += _ROW.pack(start, length, code, flags, marks, len(answer))
                answers += answer
                count += 1
                if count == _BATCH:
                    _send(fd, _HEAD.pack(count, len(answers)) + rows + answers)
                    rows, answers, count = bytearray(), bytearray(), 0
            if count:
                _send(fd, _HEAD.pack(count, len(answers)) + rows + answers)
            _send(fd, _HEAD.pack(0, 0))
    finally:
        os._exit(0)  # no atexit handlers, no flushing of the parent's buffers


def _send(fd: int, data: bytes | bytearray) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


class _Positioned:
    """A file read with `pread` from a position of its own."""

    def __init__(self, fd: int, at: int):
        self._fd = fd
        self._at = at

    def read(self, size: int) -> bytes:
        data = os.pread(self._fd, size, self._at)
        self._at += len(data)
        return data


def read_at(fh: BinaryIO, start: int, length: int) -> bytes:
    """One line's bytes, read where the scan said it starts (without moving the file's position)."""
    return os.pread(fh.fileno(), length, start)
