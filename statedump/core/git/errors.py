"""The one translation of a git failure into statedump's error taxonomy."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from statedump.core.errors import GitFailed, StatedumpError

_TAKES_VALUE = ("-c", "-C")
_FULL = (
    ("No space left on device", "the disk is full: free some space and run it again"),
    ("Out of diskspace", "the disk is full: free some space and run it again"),
    ("Disk quota exceeded", "the disk quota is used up: free some space and run it again"),
    ("File too large", "a file-size limit (ulimit -f) stopped the write: raise it and run it again"),
    ("Read-only file system", "the store is on a read-only file system: writes need a writable copy"),
)
"""What git says when the file system, not the command, is at fault: the user's to fix (exit 2)."""


def subcommand(args: Sequence[str]) -> str:
    """The git command `args` run (`log` in `-c log.showRoot=true log ...`)."""
    rest = list(args)
    while rest and rest[0].startswith("-"):
        rest = rest[2:] if rest[0] in _TAKES_VALUE else rest[1:]
    return rest[0] if rest else "git"


class CommandFailed(GitFailed):
    """A git command that exited non-zero: its arguments, exit code and what it said.

    The message is `git <command> failed: <stderr>`; a caller that says more (`git refused the
    commit: ...`) raises its own GitFailed with `last`, the line that says why."""

    def __init__(self, args: Sequence[str], returncode: int, stderr: str, where: str | Path):
        self.args_run = tuple(args)
        self.returncode = returncode
        self.stderr = stderr
        # GitPython quoted git's stderr (`stderr: '...'`); the lines are read the way they
        # were then, so that messages built from them read as before.
        self.lines = [line.strip().removeprefix("stderr: ").strip("'").strip() for line in stderr.splitlines() if line.strip()]
        super().__init__(f"git {subcommand(args)} failed: {stderr.strip()}", where=where)

    @property
    def last(self) -> str:
        """The last line git wrote (where it says why), or the command when it said nothing."""
        return self.lines[-1] if self.lines else f"cmdline: git {' '.join(self.args_run)}"

    def says(self, *words: str) -> bool:
        """True when any line of git's stderr holds any of `words`."""
        return any(word in line for line in self.lines for word in words)


def failed(args: Sequence[str], returncode: int, stderr: bytes, where: str | Path) -> StatedumpError:
    """The error for a git command that exited `returncode`: "not a git repository" when the
    store's folder is no repository (the user's to fix), else a `CommandFailed`."""
    text = stderr.decode("utf-8", errors="replace")
    if text.startswith("fatal: not a git repository"):
        return StatedumpError("not a git repository", where=where, hint="run `statedump init` there first")
    for reason, hint in _FULL:
        if reason in text:
            line = next(line for line in text.splitlines() if reason in line)
            return StatedumpError(f"git could not write: {line.strip()}", where=where, hint=hint)
    return CommandFailed(args, returncode, text, where)
