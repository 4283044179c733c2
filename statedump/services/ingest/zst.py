"""Zstandard-compressed inputs (Codex rewrites rollouts idle for a week as `.jsonl.zst`).

A compressed file is recognised by its magic bytes, not its name, and decompressed as a
stream into a temporary file, which the line reader then
reads as it reads any rollout. The standard library's `compression.zstd` (Python 3.14) is
used when there is one, else the `zstandard` package (BSD); either is imported only when a
compressed file is read.
"""

from __future__ import annotations

import contextlib
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from statedump.core.errors import StatedumpError

MAGIC = b"\x28\xb5\x2f\xfd"
"""A zstd frame starts with these four bytes."""

_CHUNK = 1 << 20


def is_zstd(path: Path) -> bool:
    """True when `path` is a file that starts with the zstd magic bytes."""
    try:
        with open(path, "rb") as fh:
            return fh.read(len(MAGIC)) == MAGIC
    except OSError:
        return False


def _reader(raw: IO[bytes]) -> tuple[Any, type[Exception]]:
    """A stream of the decompressed bytes of `raw`, and the error class a bad stream raises."""
    try:
        from compression import zstd  # type: ignore[import-not-found,unused-ignore]  # Python 3.14
    except ImportError:
        pass
    else:
        return zstd.ZstdFile(raw), zstd.ZstdError
    try:
        import zstandard  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        raise StatedumpError(
            "the file is zstd-compressed and no zstd decoder is installed", hint="pip install zstandard, or unzstd the file first"
        ) from None
    return zstandard.ZstdDecompressor().stream_reader(raw, read_across_frames=True), zstandard.ZstdError


@contextlib.contextmanager
def decompressed(path: Path) -> Iterator[Path]:
    """The decompressed content of the zstd file `path`, as a temporary file removed afterwards.

    A damaged or cut-off stream is refused with one line naming `path`, unless some of it
    could be read: then what was read is given, and its last line, cut off, is reported by
    the line reader like any cut-off line.
    """
    folder = Path(tempfile.mkdtemp(prefix="statedump-zst-"))
    out = folder / path.name.removesuffix(".zst")
    try:
        with open(path, "rb") as raw, open(out, "wb") as sink:
            stream, error = _reader(raw)
            try:
                with stream:
                    while chunk := stream.read(_CHUNK):
                        sink.write(chunk)
            except (error, EOFError, OSError, ValueError) as err:
                if sink.tell() == 0:
                    raise StatedumpError(f"cannot decompress the zstd file: {err}", where=path) from None
        if out.stat().st_size == 0:
            raise StatedumpError("the zstd file decompresses to nothing", where=path)
        yield out
    finally:
        shutil.rmtree(folder, ignore_errors=True)
