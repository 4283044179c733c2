"""Files a command writes for the user (`--out`, `--dir`): checked before any work that cannot be
undone (a dump's tag), written whole or not at all, and refused in one line that names the place
and what to do — never a traceback from deep inside the write.
"""

from __future__ import annotations

import contextlib
import errno
import os
from pathlib import Path

from statedump.core.errors import BadInput

# What to do about each refusal, by the reason the system gave.
_HINTS = {
    errno.ENOENT: "create the folder first, or name one that exists",
    errno.ENOTDIR: "a part of the path is a file, not a folder",
    errno.EISDIR: "name a file, not a folder",
    errno.EACCES: "choose a folder you may write to",
    errno.EPERM: "choose a folder you may write to",
    errno.EROFS: "the file system is read-only: choose another place",
    errno.ENOSPC: "the disk is full: free some space, or choose another place",
    errno.EDQUOT: "the disk quota is used up: free some space, or choose another place",
    errno.EFBIG: "the file is larger than this process may write (ulimit -f)",
}


def write_failure(err: OSError, where: Path) -> BadInput:
    """`err` as one line: where, why in the system's words, and what to do."""
    reason = err.strerror or str(err)
    return BadInput(f"cannot write: {reason.lower()}", where=where, hint=_HINTS.get(err.errno or 0, "choose another place"))


def check_output(path: Path) -> None:
    """Refuse now, before any other work, an output file that could not be written: a missing or
    unwritable folder, a folder where the file should be."""
    if path.is_dir():
        raise write_failure(OSError(errno.EISDIR, "Is a directory", str(path)), path)
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.exists():
        raise write_failure(OSError(errno.ENOENT, "No such file or directory", str(parent)), parent)
    if not parent.is_dir():
        raise write_failure(OSError(errno.ENOTDIR, "Not a directory", str(parent)), parent)
    if not os.access(parent, os.W_OK | os.X_OK):
        raise write_failure(OSError(errno.EACCES, "Permission denied", str(parent)), parent)


def write_output(path: Path, text: str) -> None:
    """Write `text` to `path` through a temporary file beside it: on any failure (a full disk
    included) the old file is as it was, no temporary file stays, and the error is one line."""
    check_output(path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    except OSError as err:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise write_failure(err, path) from None


def make_folder(folder: Path) -> None:
    """Create `folder` (and its parents) for an export, or refuse in one line."""
    if folder.exists() and not folder.is_dir():
        raise write_failure(OSError(errno.ENOTDIR, "Not a directory", str(folder)), folder)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise write_failure(err, folder) from None
    if not os.access(folder, os.W_OK | os.X_OK):
        raise write_failure(OSError(errno.EACCES, "Permission denied", str(folder)), folder)
