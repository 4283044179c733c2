"""Reading input files: JSON lines streamed one at a time, and small text files whole.

A transcript can be hundreds of megabytes, so JSON lines are read one line at a time
and only what an importer keeps stays in memory. Every refusal names the file; a bad
line is reported with its number and the rest goes on.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from statedump.errors import StatedumpError
from statedump.ingest.plan import ImportPlan

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


def iter_jsonl(
    path: Path,
    plan: ImportPlan,
    what: str,
    progress: Progress | None = None,
    passed_over: Callable[[bytes], bool] | None = None,
) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) for every line that holds a JSON object.

    Blank lines are passed over; a line that is not a JSON object (cut off, mangled) goes
    to `plan.skipped` with its number. When no line at all could be read the file is
    refused, since it is not JSON lines.

    `passed_over(raw)` lets a reader pass over a line without parsing it, when it can tell
    from the bytes (see `plain_object`) that the line is a JSON object it has no use for;
    such a line counts as read.
    """
    size = check_file(path, what)
    start_digest(path)
    good = 0
    done = 0
    # A larger buffer than the default: lines of tool output are often longer than 8 kB.
    with open(path, "rb", buffering=1 << 16) as fh:
        for number, raw in enumerate(fh, start=1):
            done += len(raw)
            if progress is not None and (number % 256 == 0 or done == size):
                progress(done, size)
            if passed_over is not None and passed_over(raw):
                good += 1
                continue
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
            yield number, value
    if progress is not None:
        progress(size, size)
    if good == 0:
        first = plan.skipped[0].reason if plan.skipped else "no JSON object on any line"
        raise StatedumpError(f"not a {what} file: no line could be read ({first})", where=path, hint="check the format name and the file")


def plain_object(raw: bytes) -> bool:
    """True when a line's bytes rule out the ways a transcript line is usually damaged: it is
    braced like an object and ends with a newline (a line cut off by a crash does not), it
    holds no NUL (the zero-filled tail a crash can leave), and it is UTF-8. A reader that
    passes over a line unparsed checks this first, so that such lines are still parsed and
    reported as skipped. (Scanning for every control character would cost more than the
    parse it saves.)"""
    if not (raw.startswith(b"{") and raw.endswith(b"}\n")) or b"\x00" in raw:
        return False
    if not raw.isascii():
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError:
            return False
    return True


_DIGEST_CHUNK = 16 << 20


class _Digest(threading.Thread):
    def __init__(self, path: Path):
        super().__init__(daemon=True)
        self.path = path
        self.hexdigest: str | None = None

    def run(self) -> None:
        # Large chunks: the thread needs Python's lock only between them, and while the
        # reader holds it, each wait for it is a few milliseconds.
        h = hashlib.sha256()
        buffer = bytearray(_DIGEST_CHUNK)
        view = memoryview(buffer)
        try:
            with open(self.path, "rb", buffering=0) as fh:
                while size := fh.readinto(buffer):
                    h.update(view[:size])
        except OSError:
            return
        self.hexdigest = h.hexdigest()


_digests: dict[tuple[str, int, int], _Digest] = {}


def _stamp(path: Path) -> tuple[str, int, int]:
    st = path.stat()
    return (str(path.resolve()), st.st_size, st.st_mtime_ns)


def start_digest(path: Path) -> None:
    """Begin the file's sha256 in a thread while it is read (hashlib lets other threads run
    meanwhile), so that the import's source label costs no time of its own."""
    key = _stamp(path)
    if key not in _digests:
        _digests[key] = thread = _Digest(path)
        thread.start()


def file_digest(path: Path) -> str:
    """sha256 of a file: the one `start_digest` began when the file has not changed since,
    else computed now."""
    thread = _digests.pop(_stamp(path), None) or _Digest(path)
    if thread.ident is None:
        thread.run()
    else:
        thread.join()
    if thread.hexdigest is None:
        raise StatedumpError("the file could not be read again", where=path)
    return thread.hexdigest
