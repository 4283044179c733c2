"""Commits that hold a session as it stood at each checkpoint of an imported transcript.

An import is one commit on the branch. So that `render --at dump/<session>/<n>` shows the
state the n-th dump described (not the state after the whole import), each checkpoint gets
its own commit beside the branch: its tree is the tree before the import plus the records
known at that point; its parent is the previous checkpoint's commit (the first one's is the
commit before the import). The dump tag points at it. The branch itself never moves.

All of it goes through one `git fast-import` before the import's commit (every blob, the
import's files too, in one pack, and the checkpoint commits) and one after it (the dump
tags), instead of half a dozen git processes per checkpoint and a loose object file per
record. The objects are the ones `git commit-tree` and `git tag -a` would make: the same
trees, the same identity and dates, the same messages.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import tempfile
import time
import weakref
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from statedump.core.errors import GitFailed
from statedump.core.git.gateway import Git
from statedump.core.store.store import Store

_REF = "refs/statedump/import-checkpoints"
"""The ref fast-import builds the checkpoint commits on; removed again in the same run."""


@dataclass(frozen=True)
class Snapshot:
    """One checkpoint commit to make: files (path relative to the store -> bytes) written over
    the tree of the commit before the import."""

    files: dict[str, bytes]
    message: str
    when: datetime | None


def blob_id(data: bytes) -> str:
    """A blob's id: the SHA-1 of its header and bytes (git's object format)."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


def _date(when: datetime | None) -> str:
    # `git commit-tree` and `git tag` are given the checkpoint's time as `<epoch> +0000`;
    # without one they take the current time in the local zone.
    if when is not None:
        return f"{int(when.timestamp())} +0000"
    offset = time.strftime("%z") or "+0000"
    return f"{int(time.time())} {offset}"


def _git(store: Store, args: list[str], data: bytes | None = None) -> str:
    env = {**os.environ, **store.git.identity_env()}
    done = subprocess.run(["git", *args], cwd=store.root, env=env, input=data, capture_output=True, check=False)
    if done.returncode != 0:
        raise GitFailed(f"git {args[0]} failed: {done.stderr.decode(errors='replace').strip()}", where=store.root)
    return done.stdout.decode()


_signers: weakref.WeakKeyDictionary[Git, tuple[str, str]] = weakref.WeakKeyDictionary()


def _identities(store: Store) -> tuple[str, str]:
    """`Name <email>` of the author and the committer, as git would sign now (asked once per
    `Git`, as it asks about the identity once)."""
    if store.git not in _signers:
        _signers[store.git] = _ask_identities(store)
    return _signers[store.git]


def _ask_identities(store: Store) -> tuple[str, str]:
    found: dict[str, str] = {}
    for row in _git(store, ["var", "-l"]).splitlines():
        name, sep, value = row.partition("=")
        if sep and name in ("GIT_AUTHOR_IDENT", "GIT_COMMITTER_IDENT"):
            found[name] = value.rsplit(" ", 2)[0]  # without the date git appends
    if len(found) < 2:
        raise GitFailed("git var gave no identity to sign the checkpoints with", where=store.root)
    return found["GIT_AUTHOR_IDENT"], found["GIT_COMMITTER_IDENT"]


def _data(text: bytes) -> bytes:
    return b"data %d\n" % len(text) + text + b"\n"


def write_objects(store: Store, base: str | None, blobs: list[bytes], snapshots: list[Snapshot]) -> list[str]:
    """Write the blobs and, on top of `base`, one commit per snapshot (each the parent of the
    next); return the commits' ids. No ref, index or file of the work tree changes."""
    marks: dict[str, int] = {}
    out: list[bytes] = []
    count = [0]

    def mark() -> int:
        count[0] += 1
        return count[0]

    def blob(data: bytes) -> int:
        sha = blob_id(data)
        if sha not in marks:
            marks[sha] = mark()
            out.append(b"blob\nmark :%d\n" % marks[sha] + _data(data))
        return marks[sha]

    for data in blobs:
        blob(data)
    commits: list[int] = []
    if snapshots:
        if base is None:
            raise GitFailed("checkpoint commits need a commit before the import", where=store.root)
        author, committer = _identities(store)
        tree = _git(store, ["rev-parse", f"{base}^{{tree}}"]).strip()
        previous = base
        for snap in snapshots:
            files = sorted((path, blob(data)) for path, data in snap.files.items())
            made = mark()
            date = _date(snap.when)
            out.append(
                f"commit {_REF}\nmark :{made}\nauthor {author} {date}\ncommitter {committer} {date}\n".encode()
                + _data(snap.message.encode())
                + f'from {previous}\nM 040000 {tree} ""\n'.encode()
                + b"".join(b"M 100644 :%d %s\n" % (m, _path(p)) for p, m in files)
                + b"\n"
            )
            commits.append(made)
            previous = f":{made}"
        out.append(f"reset {_REF}\n\n".encode())
    if not out:
        return []
    with tempfile.TemporaryDirectory(prefix="statedump-import-") as tmp:
        exported = Path(tmp) / "marks"
        _git(store, ["fast-import", "--quiet", "--done", f"--export-marks={exported}"], b"".join(out) + b"done\n")
        ids = dict(row.split(" ", 1) for row in exported.read_text().splitlines())
    return [ids[f":{m}"].strip() for m in commits]


def _path(path: str) -> bytes:
    # fast-import takes a path as it is unless it starts with a quote or holds a newline;
    # record paths are ids checked by `check_id`, so this only guards the format.
    if path.startswith('"') or "\n" in path:
        raise GitFailed(f"cannot write the path {path!r} in a checkpoint")
    return path.encode()


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


def write_tags(store: Store, tags: list[tuple[str, str, str, datetime | None]]) -> None:
    """Annotated tags (name, commit, message, date), all in one git process; the caller holds
    the store's lock and has chosen names that are free."""
    if not tags:
        return
    _, committer = _identities(store)
    out = b"".join(
        f"tag {name}\nfrom {sha}\ntagger {committer} {_date(when)}\n".encode() + _data(clean_message(message).encode())
        for name, sha, message, when in tags
    )
    _git(store, ["fast-import", "--quiet", "--done"], out + b"done\n")
