"""Local commits replayed onto the remote branch with git's plumbing alone.

`git rebase` works in the work tree: killed half-way it leaves the repository with HEAD
detached, records of the branch missing from the work tree and a rebase to finish by hand.
Here each local commit is merged in a scratch index (`read-tree -m`, a three-way merge that
never merges a file's lines: a file changed on both sides stays unmerged, as records must),
and written with `commit-tree`. Nothing but new objects exists until the branch and the work
tree are moved in one last step (`finish`), which a journal covers: killed at any moment, the
branch is where it was or where it is going, and `statedump doctor` puts the work tree back
in line with HEAD.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass

from statedump.core.errors import StatedumpError, Unmerged
from statedump.core.git.errors import CommandFailed
from statedump.core.git.gateway import Git
from statedump.core.layout import SESSIONS
from statedump.core.store.files import write_atomic
from statedump.core.store.store import Store
from statedump.core.store.untrusted import read_regular
from statedump.services.sync.conflicts import Conflict, copy_path
from statedump.services.sync.scratch import JOURNAL, SCRATCH, scratch_dir

INDEX = "sync.index"
_AUTHOR = ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_AUTHOR_DATE")


@dataclass(frozen=True)
class Replayed:
    """Where the replay ended, and the records kept twice on the way."""

    tip: str
    conflicts: list[Conflict]


def replay(store: Store, base: str, local: str, onto: str, env: dict[str, str], remote: str) -> Replayed:
    """The commits `base..local` replayed, in order, on top of `onto`; a commit that changes
    nothing there is dropped (as `git rebase` drops it). A record changed on both sides keeps
    the remote's version in place and ours as a copy under `conflicts/`; any other file
    changed on both sides raises Unmerged, with nothing changed but new objects."""
    git = store.git
    if git.merges_between(base, local):
        raise StatedumpError("local history has merge commits", where=store.root, hint="rebase them into a line with git, then sync")
    stamp = git.rev_parse(local, short=7)
    conflicts: dict[str, Conflict] = {}
    tip = onto
    tip_tree = git.rev_parse(f"{onto}^{{tree}}")  # then known from each commit written: one process fewer per commit
    path = scratch_dir(git) / INDEX
    with git.scratch_index(str(path.relative_to(git.git_dir))) as index:
        for sha in git.commits_between(base, local):
            path.unlink(missing_ok=True)  # a fresh index for each merge: read-tree merges into what is there
            index.merge(f"{sha}^", tip, sha)
            for rel, stages in sorted(index.unmerged().items()):
                if not rel.startswith(f"{SESSIONS}/"):
                    raise Unmerged(
                        f"{rel} was changed both here and on {remote}, and statedump only settles records",
                        where=store.root,
                        hint="merge it with git (`git pull --rebase`), then run `statedump sync` again",
                    )
                index.remove(rel)
                if 2 in stages:
                    index.add_blob(rel, stages[2])
                copy = None
                if 3 in stages and stages[3] != stages.get(2):
                    copy = copy_path(rel, stamp)
                    index.add_blob(copy, stages[3])
                conflicts[rel] = Conflict(rel, copy, remote_deleted=2 not in stages)
            tree = index.write_tree()
            if tree == tip_tree:
                continue  # already there, or settled to no change at all
            who = git.signature_env(sha)
            tip = git.commit_tree(tree, tip, git.message(sha), {**env, **{k: who[k] for k in _AUTHOR}})
            tip_tree = tree
    return Replayed(tip, list(conflicts.values()))


def finish(store: Store, old: str, new: str) -> None:
    """Move the branch and the work tree from `old` to `new`, under the sync journal: a sync
    killed here leaves the journal, and `statedump doctor` restores the files it names from HEAD."""
    git = store.git
    journal = scratch_dir(git) / JOURNAL
    write_atomic(journal, json.dumps({"from": old, "to": new, "pid": os.getpid()}).encode(), make_dirs=False)
    try:
        git.reset_keep(new)
    except CommandFailed:
        journal.unlink(missing_ok=True)  # refused before it changed anything (a file in the way)
        raise
    journal.unlink(missing_ok=True)


def read_journal(git: Git) -> tuple[str, str] | None:
    """(from, to) of a sync that did not finish moving the work tree; None when there is none
    (or the file is no regular file, or not a journal sync writes: never trusted for paths)."""
    data = read_regular(git.git_dir / SCRATCH / JOURNAL)
    if data is None:
        return None
    try:
        entry = json.loads(data)
        old, new = str(entry["from"]), str(entry["to"])
    except (ValueError, KeyError, TypeError):
        return ("", "")
    hexes = all(len(s) in (40, 64) and all(c in "0123456789abcdef" for c in s) for s in (old, new))
    return (old, new) if hexes else ("", "")
