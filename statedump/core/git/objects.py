"""Files as of a revision, read through one long-lived `git cat-file --batch`.

git finds `<rev>:<path>` itself, in C; GitPython would parse every tree on the way in Python
(a kind folder of 1,000 records is 1,000 entries per look), which made each look for a record
that was not there cost as much as reading it.
"""

from __future__ import annotations

import os
import subprocess
import threading
from pathlib import Path
from typing import IO


class CatFile:
    """One `git cat-file --batch` process for a work tree, started on first use."""

    def __init__(self, root: Path):
        self.root = root
        self._proc: subprocess.Popen[bytes] | None = None
        self._lock = threading.Lock()

    def _pipes(self) -> tuple[IO[bytes], IO[bytes]]:
        if self._proc is None or self._proc.poll() is not None:
            env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C"}
            self._proc = subprocess.Popen(
                ["git", "-C", str(self.root), "cat-file", "--batch"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env
            )
        assert self._proc.stdin is not None and self._proc.stdout is not None
        return self._proc.stdin, self._proc.stdout

    def blob(self, rev: str, path: str) -> bytes | None:
        """The bytes of the file at `path` as of `rev`, or None when there is no such file."""
        if "\n" in rev or "\n" in path:
            return None
        with self._lock:
            stdin, stdout = self._pipes()
            stdin.write(f"{rev}:{path}\n".encode())
            stdin.flush()
            header = stdout.readline().split()
            if len(header) != 3:
                return None  # `<name> missing` (or ambiguous)
            size = int(header[2])
            data = stdout.read(size + 1)[:size]
            return data if header[1] == b"blob" else None

    def close(self) -> None:
        if self._proc is not None:
            if self._proc.stdin is not None:
                self._proc.stdin.close()
            self._proc.wait()
            if self._proc.stdout is not None:
                self._proc.stdout.close()
            self._proc = None

    def __del__(self) -> None:
        self.close()
