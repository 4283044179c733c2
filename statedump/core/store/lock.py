"""A per-store write lock, so that concurrent writers take turns instead of racing git."""

from __future__ import annotations

import fcntl
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from statedump.core.errors import LockTimeout


@contextmanager
def store_lock(path: Path, timeout: float = 60.0) -> Iterator[None]:
    """Hold an exclusive lock on `path` for the block.

    flock is released by the kernel when the holder dies, so a crashed writer never
    leaves a lock behind that the next writer has to clear by hand.
    """
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise LockTimeout(
                        f"another statedump process has held the store lock for over {timeout:.0f} s",
                        where=path,
                        hint="wait for it to finish, or check `ps` for a stuck statedump",
                    ) from None
                time.sleep(0.01)
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)
