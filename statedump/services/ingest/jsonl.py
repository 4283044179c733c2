"""Reading input files: JSON lines streamed one at a time, and small text files whole.

A transcript can be hundreds of megabytes, so JSON lines are read one line at a time
and only what an importer keeps stays in memory. Every refusal names the file; a bad
line is reported with its number and the rest goes on.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import queue
import threading
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, Protocol

from statedump.core.errors import StatedumpError

if TYPE_CHECKING:
    # A type only: the unchanged-transcript check of an import must not pay for the models.
    from statedump.services.ingest.plan import ImportPlan

Progress = Callable[[int, int], None]
"""Called with (bytes read so far, total bytes) while a file is read."""

MAX_TEXT_BYTES = 64 * 1024 * 1024
"""Formats read whole (Markdown, JSON, unit files, scripts) must be smaller than this."""

_SNIFF = 8192


def check_file(path: Path, what: str) -> int:
    """Refuse a missing path, a folder, an empty or a binary file; return the size in bytes."""
    if path.is_dir():
        raise StatedumpError(f"is a folder, not a {what} file", where=path, hint="name the file itself")
    if not path.is_file():
        raise StatedumpError("no such file", where=path)
    size = path.stat().st_size
    if size == 0:
        raise StatedumpError(f"the file is empty; expected a {what} file", where=path)
    with open(path, "rb") as fh:
        head = fh.read(_SNIFF)
    if b"\x00" in head:
        raise StatedumpError(f"the file looks binary (it contains NUL bytes); expected a {what} file", where=path)
    return size


def read_text(path: Path, what: str) -> str:
    """A small text file, whole, as UTF-8 (a leading BOM dropped)."""
    size = check_file(path, what)
    if size > MAX_TEXT_BYTES:
        raise StatedumpError(f"the file is {size} bytes, over the {MAX_TEXT_BYTES}-byte limit for a {what} file", where=path)
    data = path.read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise StatedumpError(f"not valid UTF-8 (byte {err.start})", where=path, hint="save the file as UTF-8") from None
    return text.removeprefix("\ufeff")


def read_json(path: Path, what: str) -> Any:
    """A whole JSON document (bare Infinity and NaN accepted, as Python writes them)."""
    text = read_text(path, what)
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        raise StatedumpError(
            f"not JSON: {err.msg} at line {err.lineno}, column {err.colno}", where=path, hint=f"expected a {what} file"
        ) from None


_BLOCK = 4 << 20
"""The file is read this much at a time, and lines are found in the block, not read one by
one (larger blocks are no longer in the processor's cache when their lines are scanned)."""


class PassOver(Protocol):
    """Tells from a line's bytes that the reader has no use for its parse (see `iter_jsonl`).

    True passes the line over; so does a non-empty `bytes` token, which says that deciding
    it told the reader something all the same (Claude Code's reader counts the agent's work
    from lines it does not parse). An incremental import keeps the token and hands it to
    `replay` where the line was, so that the reader learns it again without the line.
    """

    def __call__(self, buf: bytes, start: int, end: int, /) -> bool | bytes: ...

    def replay(self, token: bytes, /) -> None: ...


@dataclass
class Resume:
    """Where `iter_jsonl` picks a file up again (see incremental.py), and what it read this time.

    The lines the reader parsed before `offset` are handed to it again (`replay`, with their
    numbers) before the file is read on from `offset`: a reader that passes over a line only
    when reading it would change nothing (`passed_over`) is then in the very state a whole
    read would have left it in, without any reader keeping state of its own between imports.
    """

    path: Path
    """The file, resolved: only `iter_jsonl` calls for this file resume."""
    offset: int = 0
    """Bytes already read (the end of a complete line): reading starts here."""
    lines: int = 0
    """Lines before `offset`: numbering goes on after them."""
    replay: list[tuple[int, bytes]] = field(default_factory=list)
    """(number, line) of every line parsed before `offset`, handed to the reader first; an
    entry that starts with `!` is instead a token a line passed over gave (see `PassOver`)."""
    keep_limit: int = 64 << 20
    """Bytes of parsed lines kept for the next import at most; beyond it `kept` is None (the
    next import reads the file whole: a reader that parses every line would otherwise keep a
    second copy of the file)."""
    kept: list[tuple[int, bytes]] | None = None
    """After the read: `replay` and the lines parsed now, or None when over `keep_limit`."""
    positions: dict[int, int] = field(default_factory=dict)
    """Line number -> where the kept line starts in the file: the state file names kept lines
    by place and digest, never by their text (a transcript holds what the user pasted)."""
    end: int = 0
    """After the read: the end of the last complete line (a line still being written is read again)."""
    end_lines: int = 0
    """After the read: lines before `end`."""
    others: dict[str, tuple[int, int]] = field(default_factory=dict)
    """After the read: (size, mtime in ns) of every other file read meanwhile (the subagent
    transcripts a Claude Code reader follows): when one changes, the file is not unchanged."""
    used: bool = False
    """After the read: whether the file was read here (a reader may read another file instead,
    such as the decompressed copy of a zstd rollout)."""


_resume: ContextVar[Resume | None] = ContextVar("statedump_resume", default=None)
"""The resume point of the import under way. A context variable rather than a parameter, so
that every reader built on `iter_jsonl` resumes without knowing about it."""


@contextlib.contextmanager
def resuming(resume: Resume) -> Iterator[Resume]:
    """Within the block, `iter_jsonl` reads `resume.path` from `resume.offset` and fills in
    what it read; other files are read as usual."""
    token = _resume.set(resume)
    try:
        yield resume
    finally:
        _resume.reset(token)


def iter_jsonl(
    path: Path,
    plan: ImportPlan,
    what: str,
    progress: Progress | None = None,
    passed_over: PassOver | Callable[[bytes, int, int], bool] | None = None,
) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) for every line that holds a JSON object.

    Blank lines are passed over; a line that is not a JSON object (cut off, mangled) goes
    to `plan.skipped` with its number. When no line at all could be read the file is
    refused, since it is not JSON lines.

    `passed_over(buffer, start, end)` lets a reader pass over the line `buffer[start:end]`
    without parsing it, when it can tell from the bytes that the line is a JSON object it
    has no use for. Such a line counts as read, but only when it also looks undamaged (see
    `_plain`); otherwise it is parsed, and reported when it is not JSON. It may also answer
    with a token (see `PassOver`).

    Within `resuming(...)` for this file, the lines parsed before are handed over first,
    then the file is read from the resume offset (see `Resume`).
    """
    size = check_file(path, what)
    resume = _resume.get()
    if resume is not None and resume.path != path.resolve():
        st = path.stat()
        resume.others[str(path.resolve())] = (st.st_size, st.st_mtime_ns)
        resume = None
    kept: list[tuple[int, bytes]] | None = None
    kept_bytes = limit = 0
    offset = lines = 0
    good = 0
    if resume is not None:
        offset, lines, kept, limit = resume.offset, resume.lines, list(resume.replay), resume.keep_limit
        kept_bytes = sum(len(raw) for _, raw in kept)
        for number, raw in resume.replay:
            if raw.startswith(b"!"):
                passed_over.replay(raw[1:-1])  # type: ignore[union-attr]  # only a PassOver gives tokens
                continue
            good += 1
            yield number, json.loads(raw)
    total = size - offset
    # A whole file is hashed beside the reader, for `file_digest`; an incremental import names
    # what it read by the digest of its tail instead (hashing 200 MB cost half a json.loads loop).
    digest: _Digest | _NoDigest = start_digest(path) if resume is None else _NoDigest()
    done = 0
    end = offset
    last: bytes | None = None
    ascii_block = nul_free = True
    with open(path, "rb", buffering=0) as fh:
        fh.seek(offset)
        for number, (buf, start, stop) in enumerate(_lines(fh, digest), start=lines + 1):
            if type(buf) is Overlong:
                done += buf.size
                plan.skip(number, f"a line of {buf.size} bytes, over the {MAX_LINE_BYTES}-byte limit of one line: passed over unread")
                continue
            done += stop - start
            if resume is not None and buf[stop - 1] == 10:  # b"\n": a complete line
                end, lines = offset + done, number
            if progress is not None and (number % 256 == 0 or done == total):
                progress(done, total)
            if passed_over is not None and (passed := passed_over(buf, start, stop)):
                if kept is not None and passed is not True:
                    kept_bytes += len(passed) + 2
                    kept.append((number, b"!" + passed + b"\n"))
                if buf is not last:
                    last, ascii_block, nul_free = buf, buf.isascii(), b"\x00" not in buf
                if _plain(buf, start, stop, ascii_block, nul_free):
                    good += 1
                    continue
            raw = buf[start:stop]
            if not raw.strip():
                continue
            try:
                value = json.loads(raw.decode("utf-8"))
            except UnicodeDecodeError as err:
                plan.skip(number, f"not valid UTF-8 (byte {err.start})")
                continue
            except json.JSONDecodeError as err:
                cut = " (cut off?)" if not raw.endswith(b"\n") else ""
                plan.skip(number, f"not JSON: {err.msg}{cut}")
                continue
            if not isinstance(value, dict):
                plan.skip(number, f"expected a JSON object, found {type(value).__name__}")
                continue
            good += 1
            if kept is not None and raw.endswith(b"\n"):
                kept_bytes += len(raw)
                if kept_bytes > limit:
                    kept = None
                else:
                    kept.append((number, raw))
                    resume.positions[number] = offset + done - (stop - start)  # type: ignore[union-attr]  # kept only when resuming
            yield number, value
    if progress is not None:
        progress(total, total)
    if resume is not None:
        resume.kept, resume.end, resume.end_lines, resume.used = kept, end, lines, True
    if good == 0:
        first = plan.skipped[0].reason if plan.skipped else "no JSON object on any line"
        raise StatedumpError(f"not a {what} file: no line could be read ({first})", where=path, hint="check the format name and the file")


MAX_LINE_BYTES = 64 << 20
"""A longer line is passed over without being held in memory: no message of it could be kept
whole in a record (see core/store/fit.py), and a 500 MB line read whole took gigabytes."""


class Overlong(bytes):
    """What `_lines` yields for a line over `MAX_LINE_BYTES`: its size, not its bytes."""

    size: int

    def __new__(cls, size: int) -> Overlong:
        made = super().__new__(cls, b"\n")
        made.size = size
        return made


def _lines(fh: BinaryIO, digest: _Digest | _NoDigest) -> Iterator[tuple[bytes, int, int]]:
    """Each line as (buffer, start, end), its newline included: the file is read in large
    blocks (each also handed to the digest), and only a line that spans two blocks is copied."""
    rest = b""
    skipped = 0  # bytes of a line over MAX_LINE_BYTES passed so far: that line is never held whole
    while block := fh.read(_BLOCK):
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
    digest.close()


def _plain(buf: bytes, start: int, end: int, ascii_block: bool, nul_free: bool) -> bool:
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


class _Digest(threading.Thread):
    """The sha256 of the blocks the reader hands over, computed beside it: hashlib lets
    other threads run while it works on a block, so the digest costs the reader nothing."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self._blocks: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
        self._hash = hashlib.sha256()
        self.complete = False
        self.hexdigest: str | None = None
        self.start()

    def feed(self, block: bytes) -> None:
        self._blocks.put(block)

    def close(self) -> None:
        """The whole file was handed over."""
        self.complete = True
        self._blocks.put(None)

    def run(self) -> None:
        while (block := self._blocks.get()) is not None:
            self._hash.update(block)
        self.hexdigest = self._hash.hexdigest()


class _NoDigest:
    """Where no digest is wanted."""

    def feed(self, block: bytes) -> None:
        pass

    def close(self) -> None:
        pass


_digests: dict[tuple[str, int, int], _Digest] = {}


def _stamp(path: Path) -> tuple[str, int, int]:
    st = path.stat()
    return (str(path.resolve()), st.st_size, st.st_mtime_ns)


def start_digest(path: Path) -> _Digest:
    """A digest to hand the file's blocks to as they are read; `file_digest` takes it up."""
    digest = _digests[_stamp(path)] = _Digest()
    return digest


def file_digest(path: Path) -> str:
    """sha256 of a file: the one its reader computed when the file was read to its end and has
    not changed since, else computed now."""
    digest = _digests.pop(_stamp(path), None)
    if digest is not None and digest.complete:
        digest.join()
        if digest.hexdigest is not None:
            return digest.hexdigest
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(_BLOCK):
            h.update(block)
    return h.hexdigest()
