"""A `git fast-import` that runs while its stream is still being made.

An import makes a few thousand files and cannot commit before git has written their blobs.
Fed as each file is made, git packs the blobs in its own process, on another core, while
this one makes the next files; what is left for git once the last is made is the few
checkpoint commits. The pipe to git is widened (Linux lets a pipe hold up to 1 MB), so that
handing git a blob almost never waits for git to read the one before. The objects are those
`Git.fast_import` writes for the same stream.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import IO

from statedump.core.git.errors import failed
from statedump.core.git.fastimport import Stream
from statedump.core.git.runner import start_git

_ARGS = ("fast-import", "--quiet", "--done")

_CHUNK = 64 * 1024
"""Bytes of stream gathered before each write to git: a few dozen system calls for an import, not one per blob."""

_PIPE = 1 << 20
"""What the pipe to git is asked to hold (Linux's default most a user may ask for)."""


class Feed:
    """One fast-import process: give it commands through `stream`, then `wait` for the object
    ids (mark -> id), or `abort` it. Nothing but the objects and the refs the stream names changes."""

    def __init__(self, root: Path, env: Mapping[str, str]):
        self._root = root
        self._tmp = tempfile.TemporaryDirectory(prefix="statedump-import-")
        folder = Path(self._tmp.name)
        self._marks = folder / "marks"
        self._args = (*_ARGS, f"--export-marks={self._marks}")
        self._errors: IO[bytes] = open(folder / "errors", "w+b")  # noqa: SIM115  # closed in _end
        try:
            self._git: subprocess.Popen[bytes] | None = start_git(root, *self._args, env=env, stdin=subprocess.PIPE, stderr=self._errors)
        except BaseException:
            self._end()
            raise
        assert self._git.stdin is not None
        self._pipe: int | None = self._git.stdin.fileno()
        with contextlib.suppress(AttributeError, OSError):  # not Linux, or a lower limit: the pipe as it is
            import fcntl

            fcntl.fcntl(self._pipe, fcntl.F_SETPIPE_SZ, _PIPE)
        self._pending = bytearray()
        self._broken = False
        self.stream = Stream(sink=self.write)

    def write(self, part: bytes) -> None:
        """Commands for git, as `Stream` makes them."""
        self._pending += part
        if len(self._pending) >= _CHUNK:
            self._flush()

    def _flush(self) -> None:
        if self._broken or self._pipe is None:
            self._pending.clear()
            return
        view = memoryview(self._pending)
        try:
            while view:
                view = view[os.write(self._pipe, view) :]
        except BrokenPipeError:
            self._broken = True  # git stopped reading: it failed, and says why (see `wait`)
        finally:
            view.release()
            self._pending.clear()

    def close(self) -> None:
        """The stream is complete; git may still be writing what it was given."""
        if self._git is None or self._pipe is None:
            return
        self.write(b"done\n")
        self._flush()
        self._pipe = None
        if self._git.stdin is not None:
            with contextlib.suppress(BrokenPipeError):
                self._git.stdin.close()

    def wait(self) -> dict[str, str]:
        """Mark (`:n`) -> id of every object written, once git has finished (its refusal as the error)."""
        self.close()
        assert self._git is not None, "waited on a fast-import already ended"
        code = self._git.wait()
        try:
            if code:
                self._errors.seek(0)
                raise failed(self._args, code, self._errors.read(), self._root)
            return dict(row.split(" ", 1) for row in self._marks.read_text().splitlines())
        finally:
            self._end()

    def abort(self) -> None:
        """Stop git before it finishes: no ref names anything it wrote. (Killed, not told the
        stream ended early, which would leave a crash report in the repository.)"""
        if self._git is not None:
            with contextlib.suppress(ProcessLookupError):
                self._git.kill()
            self._git.wait()
            self._pipe = None
            if self._git.stdin is not None:
                with contextlib.suppress(BrokenPipeError):
                    self._git.stdin.close()
        self._end()

    def _end(self) -> None:
        self._git = None
        self._errors.close()
        self._tmp.cleanup()
