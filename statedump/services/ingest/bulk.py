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
and unstaged when anything fails, the journal removed after the commit.

The files' blobs go to a git process (`Objects`), which packs them on another core while the
files are written. A batch of many files is written by a child process as the files are made
(`core/filewriter.py`), so that the kernel's time creating them overlaps the making of the
next ones; a few files are written here, after all are made. The caller may make the files'
bytes its own way (`make`: on two cores, see apply.py) and hand each over as soon as it has it.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Protocol, TypeVar

from statedump.core.filewriter import FileWriter, write_files
from statedump.core.store.store import Store

T_co = TypeVar("T_co", covariant=True)


OFFLOAD = 200
"""From this many files, a child process writes them (starting one costs about 25 ms of the
other core), and their blobs go to git in one pack (fewer: `update-index` writes them)."""

Content = bytes | Callable[[], bytes] | None
"""A file's bytes, or how to make them (called once, in order), or None to delete it."""


class Objects(Protocol[T_co]):
    """Where the files' blobs go as they are made (see `checkpoints.CheckpointObjects`)."""

    def blob(self, data: bytes) -> None:
        """One file's bytes, just made."""

    def close(self) -> None:
        """Every file is made: what else is to be written is given now; the work may go on."""

    def wait(self) -> T_co:
        """The work finished, and its result."""

    def abort(self) -> None:
        """The write failed: stop, leaving nothing any ref names."""


def commit_bulk(
    store: Store,
    files: dict[Path, Content],
    message: str,
    when: datetime | None,
    objects: Objects[T_co],
    make: Callable[[Callable[[Path | None, bytes | None], None]], None] | None = None,
) -> tuple[str, T_co]:
    """Write (or delete) the files and commit them as one change; the caller holds the lock.

    Once the write is begun (the journal written, the writer started), `make(give)` may make
    the files' bytes its own way and hand each over as soon as it has it: `give(path, bytes)`
    for one of `files`, `give(None, bytes)` for a blob only `objects` wants. Every file not
    given then has its bytes made (when they are given as a callable) and handed over in
    turn; then `objects` is closed, the files are finished while it works, and its result is
    returned with the commit's id.
    """
    message, backups, paths = store.begin_write(files, message)
    writer = FileWriter() if len(files) >= OFFLOAD else None
    made: list[tuple[Path, bytes | None]] = []
    given: set[Path] = set()

    def give(path: Path | None, data: bytes | None) -> None:
        if data is not None:
            objects.blob(data)
        if path is None:
            return
        given.add(path)
        if writer is None:
            made.append((path, data))
        else:
            writer.write(path, data)

    try:
        if make is not None:
            make(give)
        for path, content in files.items():
            if path not in given:
                give(path, content() if callable(content) else content)
        objects.close()
        if writer is None:
            write_files(made)
        else:
            writer.finish()
            writer = None
        result = objects.wait()
        sha = store.git.commit(paths, message, when, exact=True)
    except BaseException as err:
        if writer is not None:
            writer.abort()  # stopped before the files are put back, so that it writes none after
        objects.abort()
        store.undo_write(backups, paths, err)
    store.journal_path.unlink(missing_ok=True)
    return sha, result
