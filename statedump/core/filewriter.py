"""Many files written by a second process while this one makes the next.

Creating a file is kernel work: about 20 µs on this project's machine, and ten times that for
minutes after thousands of other files were deleted (ext4 without a journal; 1,800 files took
0.03 s, and 0.33 s after 40,000 were deleted). An import writes one file per record, 1,800 for
a long session. A thread would not help: a thread that makes a system call at every step gets
the interpreter back only when the thread making YAML lets go of it, every few milliseconds
(1,800 files took 17.8 s that way, against 0.1 s written in turn). A
process gets its own core: the files are handed to it through a pipe as they are made, and
it writes each one with `write_atomic`, as this process would.

`write_files` is the one loop that writes such a batch, here or in the child.
"""

from __future__ import annotations

import contextlib
import json
import os
import struct
import subprocess
import sys
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import IO

from statedump.core.store.files import write_atomic

_HEAD = struct.Struct("!BII")
"""One file's frame: 1 to write it (0 to delete it), the path's length, the data's length."""

_BUFFER = 64 * 1024
_PIPE = 1 << 20

_PACKAGE_HOME = str(Path(__file__).resolve().parents[2])
"""The folder that holds the `statedump` package the child imports: this one, however it was found."""

_CHILD = "import sys; sys.path.insert(0, sys.argv[1]); from statedump.core.filewriter import serve; serve()"


def write_files(files: Iterable[tuple[Path, bytes | None]]) -> None:
    """Write each file atomically (no fsync: the caller's journal covers a crash), or delete it
    where the bytes are None; folders are made as needed, each looked at once."""
    folders: set[Path] = set()
    for path, data in files:
        if data is None:
            path.unlink(missing_ok=True)
            continue
        if path.parent not in folders:
            path.parent.mkdir(parents=True, exist_ok=True)
            folders.add(path.parent)
        write_atomic(path, data, durable=False, make_dirs=False)


class FileWriter:
    """A child process that writes the files it is given, in order: `write` each, then `finish`
    (which raises the child's failure as the `OSError` it was) or `abort`."""

    def __init__(self) -> None:
        self._errors: IO[bytes] = tempfile.TemporaryFile()  # noqa: SIM115  # closed in finish or abort
        # -I: none of the user's Python settings or site folders; the package is found where this one is.
        self._child = subprocess.Popen(
            [sys.executable, "-I", "-c", _CHILD, _PACKAGE_HOME],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=self._errors,
            bufsize=_BUFFER,
        )
        self._stopped = False
        if self._child.stdin is not None:
            with contextlib.suppress(AttributeError, OSError):  # not Linux, or a lower limit: the pipe as it is
                import fcntl

                # A megabyte in the pipe (Linux's most, by default, for a user): the files are
                # handed over without waiting for the child to create the ones before.
                fcntl.fcntl(self._child.stdin.fileno(), fcntl.F_SETPIPE_SZ, _PIPE)

    def write(self, path: Path, data: bytes | None) -> None:
        name = os.fsencode(path)
        frame = _HEAD.pack(0 if data is None else 1, len(name), 0 if data is None else len(data)) + name
        self._send(frame if data is None else frame + data)

    def _send(self, frame: bytes) -> None:
        if self._stopped or self._child.stdin is None:
            return
        try:
            self._child.stdin.write(frame)
        except BrokenPipeError:
            self._stopped = True  # the child failed: `finish` says why

    def finish(self) -> None:
        """Once every file is written; the child's failure raised here."""
        if self._child.stdin is not None:
            with contextlib.suppress(BrokenPipeError):
                self._child.stdin.close()
        code = self._child.wait()
        try:
            if code:
                raise self._failure(code)
        finally:
            self._errors.close()

    def _failure(self, code: int) -> OSError:
        self._errors.seek(0)
        said = self._errors.read().decode("utf-8", "replace")
        with contextlib.suppress(ValueError, TypeError):
            number, reason, name = json.loads(said)
            return OSError(number, reason, name)
        last = said.strip().splitlines()[-1] if said.strip() else f"exit status {code}"
        return OSError(f"the process writing the files stopped: {last}")

    def abort(self) -> None:
        """Stop the child where it is (the caller then puts back what it wrote)."""
        with contextlib.suppress(ProcessLookupError):
            self._child.kill()
        self._child.wait()
        if self._child.stdin is not None:
            with contextlib.suppress(BrokenPipeError):
                self._child.stdin.close()
        self._errors.close()


def _frames(source: IO[bytes]) -> Iterable[tuple[Path, bytes | None]]:
    while len(head := source.read(_HEAD.size)) == _HEAD.size:
        op, size, length = _HEAD.unpack(head)
        path = Path(os.fsdecode(source.read(size)))
        data = source.read(length) if op else None
        if data is not None and len(data) < length:
            return  # cut off: the parent stopped, and puts back what was written
        yield path, data


def serve() -> None:
    """The child's loop: the frames on standard input, written as they come. A failure is
    reported on standard error as [errno, reason, file name], and the rest is not written."""
    try:
        write_files(_frames(sys.stdin.buffer))
    except OSError as err:
        sys.stderr.write(json.dumps([err.errno, err.strerror, None if err.filename is None else str(err.filename)]))
        sys.exit(1)
