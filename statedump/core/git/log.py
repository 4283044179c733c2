"""Commits as `git log` prints them, read without GitPython (`statedump log` is a git log and
little else, and importing GitPython would be a third of its time)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime


@dataclass(frozen=True)
class Commit:
    """One commit as the history commands need it."""

    sha: str
    date: datetime
    subject: str
    trailers: dict[str, str]
    parents: tuple[str, ...]


def parse_trailers(message: str) -> dict[str, str]:
    """Trailers of the last paragraph of a commit message (`Key: value` lines)."""
    last = message.strip().split("\n\n")[-1]
    out: dict[str, str] = {}
    for line in last.splitlines():
        key, sep, value = line.partition(": ")
        if sep and key.replace("-", "").isalnum():
            out[key] = value.strip()
    return out


LOG_FORMAT = "--format=%x00%x1e%H%x00%P%x00%at%x00%B%x00"
"""Each commit of a `git log` opens with NUL and a record separator: a commit message cannot
hold a NUL, so no subject or body (not even one with a stray \\x1e) can be read as a new commit."""

LOG_ARGS = ("-c", "log.showRoot=true", "log", "--no-color", "--no-renames", "--name-only", LOG_FORMAT)
"""`git` arguments for a log with the paths each commit changed. The root commit lists its files
whatever the user's `log.showRoot`; a move lists both paths, as a one-path pathspec sees it."""

_SHA = re.compile(r"[0-9a-f]{40}(?:[0-9a-f]{24})?")


def parse_log(out: bytes) -> list[tuple[str, str, int, str, list[str]]]:
    """(sha, parents, author time, message, changed paths) per commit of a `LOG_ARGS` output, newest first.

    Raises ValueError on output that is not in that shape.
    """
    rows = []
    for chunk in out.decode("utf-8", errors="replace").split("\x00\x1e")[1:]:
        sha, parents, stamp, message, names = chunk.split("\x00", 4)
        if not _SHA.fullmatch(sha):
            raise ValueError(f"not a commit id: {sha[:50]!r}")
        rows.append((sha, parents, int(stamp), message, [n for n in names.splitlines() if n.strip()]))
    return rows


def log_commit(sha: str, parents: str, stamp: int, message: str) -> Commit:
    """A `Commit` from the fields of a log entry."""
    subject = message.strip().split("\n", 1)[0] if message.strip() else ""
    return Commit(sha, datetime.fromtimestamp(stamp, UTC), subject, parse_trailers(message), tuple(parents.split()))
