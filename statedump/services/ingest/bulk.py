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

import queue
import threading
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import TypeVar

from statedump.core.store.files import write_atomic
from statedump.core.store.store import Store

T = TypeVar("T")


Content = bytes | Callable[[], bytes] | None
"""A file's bytes, or how to make them (called once, in order), or None to delete it."""


class _Writer(threading.Thread):
    """Writes the files in the background: open, write and rename are system calls, during
    which the main thread goes on (Python lets other threads run while one waits on them)."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.files: queue.SimpleQueue[tuple[Path, bytes | None] | None] = queue.SimpleQueue()
        self.error: BaseException | None = None

    def run(self) -> None:
        made: set[Path] = set()
        while (item := self.files.get()) is not None:
            if self.error is not None:
                continue  # the rest is only drained: the write is undone
            path, data = item
            try:
                if data is None:
                    path.unlink(missing_ok=True)
                    continue
                if path.parent not in made:
                    path.parent.mkdir(parents=True, exist_ok=True)
                    made.add(path.parent)
                write_atomic(path, data, durable=False, make_dirs=False)
            except BaseException as err:  # handed to the main thread, which undoes the write
                self.error = err


def commit_bulk(
    store: Store, files: dict[Path, Content], message: str, when: datetime | None, meanwhile: Callable[[list[bytes]], T]
) -> tuple[str, T]:
    """Write (or delete) the files and commit them as one change; the caller holds the lock.

    Each file's bytes are made (when they are given as a callable) while the ones before it
    are being written; then `meanwhile(every file's bytes)` runs while the writing finishes
    (work that does not need the files on disk, such as git objects written elsewhere), and
    its result is returned with the commit's id.
    """
    message, backups, paths = store.begin_write(files, message)
    writer = _Writer()
    try:
        writer.start()
        try:
            blobs = []
            for path, content in files.items():
                data = content() if callable(content) else content
                if data is not None:
                    blobs.append(data)
                writer.files.put((path, data))
        finally:
            writer.files.put(None)
        try:
            result = meanwhile(blobs)
        finally:
            writer.join()
        if writer.error is not None:
            raise writer.error
        sha = store.git.commit(paths, message, when, exact=True)
    except BaseException as err:
        writer.join()
        store.undo_write(backups, paths, err)
    store.journal_path.unlink(missing_ok=True)
    return sha, result
