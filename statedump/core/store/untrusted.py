"""Reading the files statedump keeps inside `.git` (caches, journals), which anyone who can
write the folder may have replaced: only a regular file is read, and opening never blocks
(a FIFO planted as a journal would otherwise hang `doctor` or `list` for ever)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

MAX_BYTES = 256 << 20
"""More than any cache or journal statedump writes: a bigger file is not ours."""


def open_regular(path: Path) -> int | None:
    """A read-only descriptor on `path` when it is a regular file (symlinks not followed);
    None when it is missing, not a regular file, or cannot be opened."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            os.close(fd)
            return None
    except OSError:
        os.close(fd)
        return None
    return fd


def read_regular(path: Path, limit: int = MAX_BYTES) -> bytes | None:
    """The bytes of `path` when it is a regular file of at most `limit` bytes, else None."""
    fd = open_regular(path)
    if fd is None:
        return None
    with os.fdopen(fd, "rb", buffering=0) as fh:
        data = fh.read(limit + 1)
    return None if data is None or len(data) > limit else data
