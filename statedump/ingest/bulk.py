"""One commit of many files, written without an fsync for each.

`Store.commit_files` fsyncs every file it writes: right for an `add` of one record, but an
import writes hundreds, and the fsyncs were most of its time. Here the journal alone is
written durably, before any file: if the process or the machine dies before the commit,
`statedump doctor` finds the journal and puts every path it names back as HEAD has it. Each
file is still written to a temporary name and renamed, so no reader ever sees half a file.
A separate fsync per file would not make the commit itself survive a power cut either: git
does not fsync the loose objects of a commit by default (`core.fsync`), and once the commit
exists the files are only its copy in the work tree.

Everything else is as `Store.commit_files` does it: the message redacted, the files restored
and unstaged when anything fails, the journal removed after the commit. The files are
written by a second thread, so that the time the file system takes overlaps other work.
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import TypeVar

from statedump.errors import StatedumpError
from statedump.redact import redact_text
from statedump.store import Store

T = TypeVar("T")


def _write(path: Path, data: bytes, durable: bool = False) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(tmp, "wb") as fh:
        fh.write(data)
        if durable:
            fh.flush()
            os.fsync(fh.fileno())
    os.replace(tmp, path)


class _Writer(threading.Thread):
    """Writes the files in the background: open, write and rename are system calls, during
    which the main thread goes on (Python lets other threads run while one waits on them)."""

    def __init__(self, files: dict[Path, bytes | None]):
        super().__init__(daemon=True)
        self.files = files
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            made: set[Path] = set()
            for path, data in self.files.items():
                if data is None:
                    path.unlink(missing_ok=True)
                    continue
                if path.parent not in made:
                    path.parent.mkdir(parents=True, exist_ok=True)
                    made.add(path.parent)
                _write(path, data)
        except BaseException as err:  # handed to the main thread, which undoes the write
            self.error = err


def commit_bulk(
    store: Store, files: dict[Path, bytes | None], message: str, when: datetime | None = None, meanwhile: Callable[[], T] | None = None
) -> tuple[str, T | None]:
    """Write (or delete, for None) the files and commit them as one change; the caller holds the lock.

    `meanwhile` runs while the files are written (work that does not need them, such as git
    objects written elsewhere); its result is returned with the commit's id.
    """
    import git

    message = redact_text(message)
    backups = {p: (p.read_bytes() if p.exists() else None) for p in files}
    paths = [store.rel(p) for p in files]
    journal = {"head": store.git.head(), "paths": paths, "subject": message.split("\n", 1)[0], "pid": os.getpid()}
    _write(store.journal_path, json.dumps(journal).encode(), durable=True)
    writer = _Writer(files)
    try:
        writer.start()
        try:
            result = meanwhile() if meanwhile is not None else None
        finally:
            writer.join()
        if writer.error is not None:
            raise writer.error
        sha = store.git.commit(paths, message, when)
    except BaseException as err:
        for path, old in backups.items():
            if old is None:
                path.unlink(missing_ok=True)
            else:
                _write(path, old, durable=True)
        with contextlib.suppress(git.GitCommandError):
            store.git.unstage(paths)
        store.journal_path.unlink(missing_ok=True)
        if isinstance(err, git.GitCommandError):
            detail = (err.stderr or str(err)).strip().splitlines()
            raise StatedumpError(f"git refused the commit: {detail[-1] if detail else err}", where=store.root, status=1) from None
        raise
    store.journal_path.unlink(missing_ok=True)
    return sha, result
