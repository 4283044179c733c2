"""Where sync keeps what it needs for a moment: `.git/statedump/` (a scratch index, the
journal of the last step). `statedump doctor` knows each name and clears what a killed sync left."""

from __future__ import annotations

from pathlib import Path

from statedump.core.git.gateway import Git

SCRATCH = "statedump"
"""The folder inside `.git` (the caches live there too)."""
JOURNAL = "sync.json"
"""Names the move of the branch and the work tree while it is under way."""
LEFTOVERS = ("sync.index", "sync-rename.index", "sync.index.lock", "sync-rename.index.lock")
"""Scratch indexes and git's locks on them: nothing in them is needed once the sync that made
them has ended (a sync killed inside `read-tree` leaves the lock)."""
OLD_LEFTOVERS = ("statedump-sync.index", "statedump-sync.attributes")
"""What earlier versions kept directly in `.git`."""


def scratch_dir(git: Git) -> Path:
    """`.git/statedump/`, made when missing, without what a killed sync left in it: only a
    sync (which holds the store lock) uses these names, so whatever is there is stale."""
    folder = git.git_dir / SCRATCH
    folder.mkdir(exist_ok=True)
    for name in LEFTOVERS:
        (folder / name).unlink(missing_ok=True)
    return folder
