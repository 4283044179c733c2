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
from statedump.services.ingest import linescan

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


def resume_offset(path: Path) -> int | None:
    """Where `iter_jsonl` will start reading `path`, when it is the file being resumed."""
    resume = _resume.get()
    return resume.offset if resume is not None and resume.path == path.resolve() else None


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
    `linescan.plain`); otherwise it is parsed, and reported when it is not JSON. It may also answer
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
    digest = start_digest(path) if resume is None else None
    done = 0
    end = offset
    with open(path, "rb", buffering=0) as fh:
        fh.seek(offset)
        # A pass-over whose decision is split in two (claude_lines.Calls: `features` of the
        # bytes, then `decide`) has the features found by a child for a big file.
        features = getattr(passed_over, "features", None)
        if features is not None and resume is not None and linescan.forks(total):
            source = _forked(path, fh, offset, passed_over.decide, features)  # type: ignore[union-attr]  # (it has both)
        else:
            source = _decided(fh, offset, passed_over, digest)
        for number, (at, length, complete, passed, plain, given) in enumerate(source, start=lines + 1):
            if length < 0:
                done -= length
                plan.skip(
                    number, f"a line of {-length} bytes, over the {linescan.MAX_LINE_BYTES}-byte limit of one line: passed over unread"
                )
                continue
            done += length
            if resume is not None and complete:
                end, lines = offset + done, number
            if progress is not None and (number % 256 == 0 or done == total):
                progress(done, total)
            if passed:
                if kept is not None and passed is not True:
                    kept_bytes += len(passed) + 2
                    kept.append((number, b"!" + passed + b"\n"))
                if plain:
                    good += 1
                    continue
            raw = given if given is not None else linescan.read_at(fh, at, length)
            value = _parsed(raw, number, plan)
            if value is None:
                continue
            good += 1
            if kept is not None and raw.endswith(b"\n"):
                kept_bytes += len(raw)
                if kept_bytes > limit:
                    kept = None
                else:
                    kept.append((number, raw))
                    resume.positions[number] = at  # type: ignore[union-attr]  # kept only when resuming
            yield number, value
    if progress is not None:
        progress(total, total)
    if resume is not None:
        resume.kept, resume.end, resume.end_lines, resume.used = kept, end, lines, True
    if good == 0:
        first = plan.skipped[0].reason if plan.skipped else "no JSON object on any line"
        raise StatedumpError(f"not a {what} file: no line could be read ({first})", where=path, hint="check the format name and the file")


Decided = tuple[int, int, bool, bool | bytes, bool, bytes | None]
"""One line for `iter_jsonl`: where it starts, its length (the negated size of a line over
the limit), whether it ends with a newline, what `passed_over` said of it, whether it looks
undamaged (asked only of a line passed over), and its bytes (None: read them from the file)."""


def _decided(
    fh: BinaryIO, offset: int, passed_over: PassOver | Callable[[bytes, int, int], bool] | None, digest: _Digest | None
) -> Iterator[Decided]:
    """The lines of the file from `offset`, each decided here as it comes."""
    at = offset
    last: bytes | None = None
    ascii_block = nul_free = True
    for buf, start, stop in linescan.lines(fh, digest):
        if type(buf) is linescan.Overlong:
            yield at, -buf.size, False, False, False, None
            at += buf.size
            continue
        length = stop - start
        passed: bool | bytes = passed_over(buf, start, stop) if passed_over is not None else False
        plain = False
        if passed:
            if buf is not last:
                last, ascii_block, nul_free = buf, buf.isascii(), b"\x00" not in buf
            plain = linescan.plain(buf, start, stop, ascii_block, nul_free)
        yield at, length, buf[stop - 1] == 10, passed, plain, None if passed and plain else buf[start:stop]
        at += length


def _forked(
    path: Path, fh: BinaryIO, offset: int, decide: Callable[[int, int, bytes], bool | bytes], features: linescan.Features
) -> Iterator[Decided]:
    """The same lines, their features found by a child process (linescan.py) and each decided
    here as it comes; a line to parse is read from the file then."""
    complete, looks_plain, overlong = linescan.COMPLETE, linescan.PLAIN, linescan.OVERLONG
    for batch in linescan.scan(path, fh, offset, features):
        for at, length, code, flags, answers, marks in batch:
            if code == overlong:
                yield at, -length, False, False, False, None
                continue
            yield at, length, bool(marks & complete), decide(code, flags, answers), bool(marks & looks_plain), None


def _parsed(raw: bytes, number: int, plan: ImportPlan) -> dict[str, Any] | None:
    """The object on a line, or None (a blank line; a damaged one, told to `plan.skipped`)."""
    if not raw.strip():
        return None
    try:
        value = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as err:
        plan.skip(number, f"not valid UTF-8 (byte {err.start})")
        return None
    except json.JSONDecodeError as err:
        cut = " (cut off?)" if not raw.endswith(b"\n") else ""
        plan.skip(number, f"not JSON: {err.msg}{cut}")
        return None
    if not isinstance(value, dict):
        plan.skip(number, f"expected a JSON object, found {type(value).__name__}")
        return None
    return value


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
        while block := fh.read(linescan.BLOCK):
            h.update(block)
    return h.hexdigest()
