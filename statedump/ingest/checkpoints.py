"""Commits that hold a session as it stood at each checkpoint of an imported transcript.

An import is one commit on the branch. So that `render --at dump/<session>/<n>` shows the
state the n-th dump described (not the state after the whole import), each checkpoint gets
its own commit beside the branch: its tree is the tree before the import plus the records
known at that point; its parent is the previous checkpoint's commit (the first one's is the
commit before the import). The dump tag points at it. The branch itself never moves.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import tempfile
from datetime import datetime
from pathlib import Path

from statedump.errors import StatedumpError
from statedump.store import Store


def _blob_id(data: bytes) -> str:
    # A blob's id is the SHA-1 of its header and bytes (git's object format).
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


def _write_blobs(store: Store, datas: list[bytes], env: dict[str, str]) -> None:
    """Write the blobs git does not have yet, all in one `git hash-object` call."""
    wanted = {_blob_id(d): d for d in datas}
    if not wanted:
        return
    listing = _git(store, ["cat-file", "--batch-check=%(objectname)"], env, ("\n".join(wanted) + "\n").encode())
    present = {row for row in listing.splitlines() if not row.endswith(" missing")}
    missing = [data for sha, data in wanted.items() if sha not in present]
    if not missing:
        return
    with tempfile.TemporaryDirectory(prefix="statedump-blobs-") as tmp:
        paths = []
        for n, data in enumerate(missing):
            path = Path(tmp) / str(n)
            path.write_bytes(data)
            paths.append(str(path))
        _git(store, ["hash-object", "-w", "--no-filters", "--stdin-paths"], env, "\n".join(paths).encode())


def _git(store: Store, args: list[str], env: dict[str, str], data: bytes | None = None) -> str:
    done = subprocess.run(["git", *args], cwd=store.root, env={**os.environ, **env}, input=data, capture_output=True, check=False)
    if done.returncode != 0:
        raise StatedumpError(f"git {args[0]} failed: {done.stderr.decode(errors='replace').strip()}", where=store.root, status=1)
    return done.stdout.decode().strip()


def checkpoint_commit(store: Store, base: str, parent: str, files: dict[str, bytes], message: str, when: datetime | None) -> str:
    """A commit whose tree is `base`'s tree with `files` (path relative to the store -> bytes)
    written over it, with `parent` as its only parent. Nothing in the work tree or the index
    changes."""
    # The store's own identity fallback (a fresh machine may have no user.email), dated at the checkpoint.
    ident = store.git.identity_env()
    if when is not None:
        ident["GIT_AUTHOR_DATE"] = ident["GIT_COMMITTER_DATE"] = f"{int(when.timestamp())} +0000"
    with tempfile.TemporaryDirectory(prefix="statedump-cp-") as tmp:
        env = {**ident, "GIT_INDEX_FILE": str(Path(tmp) / "index")}
        _git(store, ["read-tree", base], env)
        # Each checkpoint holds every record known so far: only blobs git lacks are written,
        # in one call, so an import with many checkpoints stays linear.
        _write_blobs(store, list(files.values()), env)
        info = "".join(f"100644 {_blob_id(data)}\t{path}\n" for path, data in sorted(files.items()))
        if info:
            _git(store, ["update-index", "--add", "--index-info"], env, info.encode())
        tree = _git(store, ["write-tree"], env)
        return _git(store, ["commit-tree", tree, "-p", parent, "-F", "-"], env, message.encode())
