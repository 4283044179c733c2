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

from dataclasses import dataclass
from datetime import datetime

from statedump.core.errors import GitFailed
from statedump.core.git.fastimport import Stream
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


def write_objects(store: Store, base: str | None, blobs: list[bytes], snapshots: list[Snapshot]) -> list[str]:
    """Write the blobs and, on top of `base`, one commit per snapshot (each the parent of the
    next); return the commits' ids. No ref, index or file of the work tree changes."""
    stream = Stream()
    for data in blobs:
        stream.blob(data)
    commits: list[int] = []
    if snapshots:
        if base is None:
            raise GitFailed("checkpoint commits need a commit before the import", where=store.root)
        who = store.git.signers()
        tree = store.git.rev_parse(f"{base}^{{tree}}")
        previous = base
        for snap in snapshots:
            made = stream.commit(_REF, previous, tree, snap.files, snap.message, who, snap.when)
            commits.append(made)
            previous = f":{made}"
        stream.reset(_REF)
    ids = store.git.fast_import(stream)
    return [ids[f":{m}"].strip() for m in commits]


def write_tags(store: Store, tags: list[tuple[str, str, str, datetime | None]]) -> None:
    """Annotated tags (name, commit, message, date), all in one git process; the caller holds
    the store's lock and has chosen names that are free."""
    if not tags:
        return
    _, committer = store.git.signers()
    stream = Stream()
    for name, sha, message, when in tags:
        stream.tag(name, sha, message, committer, when)
    store.git.fast_import(stream)
