"""Commits that hold a session as it stood at each checkpoint of an imported transcript.

An import is one commit on the branch. So that `render --at dump/<session>/<n>` shows the
state the n-th dump described (not the state after the whole import), each checkpoint gets
its own commit beside the branch: its tree is the tree before the import plus the records
known at that point; its parent is the previous checkpoint's commit (the first one's is the
commit before the import). The dump tag points at it. The branch itself never moves.

All of it goes through one `git fast-import` before the import's commit (every blob, the
import's files too when there are many, in one pack, and the checkpoint commits; fed while the
files are made) and
one after it (the dump tags), instead of half a dozen git processes per checkpoint and a loose object file per
record. The objects are the ones `git commit-tree` and `git tag -a` would make: the same
trees, the same identity and dates, the same messages.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from statedump.core.errors import GitFailed
from statedump.core.git.fastimport import Stream
from statedump.core.git.feed import Feed
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


class CheckpointObjects:
    """The import's blobs and its checkpoint commits, written by one fast-import fed while the
    import's files are made (see `commit_bulk`): `blob` for each file's bytes as they are
    made, `checkpoints` as soon as the checkpoint commits are known (git builds their trees
    while the rest is handed over and the files are written), `close` once all is given,
    `wait` for the commits' ids. No ref, index or file of the work tree changes. The
    checkpoint commits go on top of `base`, each the parent of the next."""

    def __init__(self, store: Store, base: str | None, *, pack: bool = True):
        self._store = store
        self._base = base
        self._pack = pack
        """The import's own blobs go into the pack too (for a few files, `git update-index`
        writes them itself: cheaper than a fast-import for them alone)."""
        self._git: Feed | None = None
        self._commits: list[int] = []

    def _stream(self) -> Stream:
        if self._git is None:  # started with the first blob: a failure before it leaves no process behind
            self._git = self._store.git.feed()
        return self._git.stream

    def blob(self, data: bytes) -> None:
        if self._pack:
            self._stream().blob(data)

    def checkpoints(self, snapshots: list[Snapshot]) -> None:
        """The checkpoint commits, into the stream now."""
        if not snapshots:
            return
        if self._base is None:
            raise GitFailed("checkpoint commits need a commit before the import", where=self._store.root)
        who = self._store.git.signers()
        tree = self._store.git.rev_parse(f"{self._base}^{{tree}}")
        previous = self._base
        stream = self._stream()
        for snap in snapshots:
            made = stream.commit(_REF, previous, tree, snap.files, snap.message, who, snap.when)
            self._commits.append(made)
            previous = f":{made}"
        stream.reset(_REF)

    def close(self) -> None:
        if self._git is not None:
            self._git.close()

    def wait(self) -> list[str]:
        """The checkpoint commits' ids, once git has written everything."""
        if self._git is None:
            return []
        ids, self._git = self._git.wait(), None
        return [ids[f":{m}"].strip() for m in self._commits]

    def abort(self) -> None:
        if self._git is not None:
            self._git.abort()
            self._git = None


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
