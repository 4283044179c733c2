"""The one way statedump writes a file: a temporary file beside it, then a rename.

A reader sees the old file or the new one, never half of one. `durable=True` (the default)
syncs the data before the rename, as a single `add` wants; a bulk import passes False and
relies on its journal instead (see `services/ingest/bulk.py`).
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path


def write_atomic(path: Path, data: bytes, *, durable: bool = True, make_dirs: bool = True) -> None:
    """Write `data` to `path` atomically; on any failure the temporary file is removed and
    `path` is as it was."""
    if make_dirs:
        path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    # os.open rather than open(): no buffer, no terminal check, no seek, three system calls
    # fewer for each of the hundreds of files an import writes.
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o666)
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            if durable:
                os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException as err:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(err, OSError) and err.filename is None:
            err.filename = str(path)  # a failed write(2) names no file: the error line should
        raise


def write_text_atomic(path: Path, text: str, *, durable: bool = True) -> None:
    """`write_atomic` of UTF-8 text, its line ends exactly as given."""
    write_atomic(path, text.encode("utf-8"), durable=durable, make_dirs=False)
