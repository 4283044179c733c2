"""A per-store write lock, so that concurrent writers take turns instead of racing git."""

from __future__ import annotations

import errno
import fcntl
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from statedump.core.errors import LockTimeout, StatedumpError

_HINTS = {
    errno.EROFS: "the store is on a read-only file system: writes need a writable copy (reads still work)",
    errno.EACCES: f"the store belongs to someone else (you are uid {os.geteuid()}): work in a clone you own",
    errno.EPERM: f"the store belongs to someone else (you are uid {os.geteuid()}): work in a clone you own",
    errno.ENOSPC: "the disk is full: free some space and run it again",
}


@contextmanager
def store_lock(path: Path, timeout: float = 60.0) -> Iterator[None]:
    """Hold an exclusive lock on `path` for the block.

    flock is released by the kernel when the holder dies, so a crashed writer never
    leaves a lock behind that the next writer has to clear by hand.
    """
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    except OSError as err:
        # A read-only store, one owned by someone else, a full disk: one line, not a traceback.
        raise StatedumpError(
            f"cannot take the store's write lock: {err.strerror}",
            where=path,
            hint=_HINTS.get(err.errno or 0, "check the store's folder and its permissions"),
        ) from None
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
