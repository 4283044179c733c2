"""One `git fast-import` stream: many blobs, commits and tags written by one git process.

A process per object (`hash-object`, `commit-tree`, `tag -a`) and a loose object file per
blob cost far more than the objects themselves when an import writes hundreds. The objects
made here are the ones those commands would make: the same trees, identities, dates and
messages.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from datetime import datetime

from statedump.core.errors import GitFailed
from statedump.core.git.identity import git_date


def blob_id(data: bytes) -> str:
    """A blob's id: the SHA-1 of its header and bytes (git's object format)."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


def clean_message(message: str) -> str:
    """A tag message as `git tag -m` stores it: trailing white space and `#` lines dropped,
    runs of blank lines made one, none at either end, one newline after each line."""
    lines: list[str] = []
    for line in message.split("\n"):
        line = line.rstrip()
        if line.startswith("#"):
            continue
        if not line and (not lines or not lines[-1]):
            continue
        lines.append(line)
    while lines and not lines[-1]:
        lines.pop()
    return "".join(f"{line}\n" for line in lines)


def _data(text: bytes) -> bytes:
    return b"data %d\n" % len(text) + text + b"\n"


def _path(path: str) -> bytes:
    # fast-import takes a path as it is unless it starts with a quote or holds a newline;
    # record paths are ids checked by `check_id`, so this only guards the format.
    if path.startswith('"') or "\n" in path:
        raise GitFailed(f"cannot write the path {path!r} in a checkpoint")
    return path.encode()


class Stream:
    """The commands of one fast-import run; `Git.fast_import` runs it (or `Git.start_fast_import`, in the background). Objects are named by
    marks (`:n`) until git has written them. With a `sink`, each command goes to it as it is
    made (a `Feed`: git already running) instead of into `parts`."""

    def __init__(self, sink: Callable[[bytes], object] | None = None) -> None:
        self.parts: list[bytes] = []
        self._put: Callable[[bytes], object] = self.parts.append if sink is None else sink
        self._marks: dict[str, int] = {}
        self._seen: dict[int, tuple[bytes, int]] = {}
        """id() of a bytes object given before -> (it, its mark): the import hands the same
        object for a record in every checkpoint that holds it, hashed once (kept alive here)."""
        self._count = 0

    def _mark(self) -> int:
        self._count += 1
        return self._count

    def blob(self, data: bytes) -> int:
        """The mark of a blob holding `data` (each distinct blob written once)."""
        seen = self._seen.get(id(data))
        if seen is not None and seen[0] is data:
            return seen[1]
        sha = blob_id(data)
        if sha not in self._marks:
            self._marks[sha] = self._mark()
            self._put(b"blob\nmark :%d\n" % self._marks[sha] + _data(data))
        self._seen[id(data)] = (data, self._marks[sha])
        return self._marks[sha]

    def commit(
        self, ref: str, parent: str, tree: str, files: dict[str, bytes], message: str, who: tuple[str, str], when: datetime | None
    ) -> int:
        """A commit on `ref` whose tree is `tree` with `files` written over it; returns its mark.
        `parent` is a sha or the mark (`:n`) of a commit earlier in the stream."""
        marked = sorted((path, self.blob(data)) for path, data in files.items())
        made = self._mark()
        date = git_date(when)
        author, committer = who
        self._put(
            f"commit {ref}\nmark :{made}\nauthor {author} {date}\ncommitter {committer} {date}\n".encode()
            + _data(message.encode())
            + f'from {parent}\nM 040000 {tree} ""\n'.encode()
            + b"".join(b"M 100644 :%d %s\n" % (m, _path(p)) for p, m in marked)
            + b"\n"
        )
        return made

    def tag(self, name: str, sha: str, message: str, tagger: str, when: datetime | None) -> None:
        """An annotated tag `name` on commit `sha`, with the message cleaned as `git tag -m` does."""
        self._put(f"tag {name}\nfrom {sha}\ntagger {tagger} {git_date(when)}\n".encode() + _data(clean_message(message).encode()))

    def reset(self, ref: str) -> None:
        """Remove `ref` when the stream ends (a ref the commits were only built on)."""
        self._put(f"reset {ref}\n\n".encode())
