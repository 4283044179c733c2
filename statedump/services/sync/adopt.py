"""A clone whose remote's HEAD names a branch the remote does not have.

`git init --bare` makes its HEAD name `master`; `statedump init` works on `main`. A clone of
such a remote checks nothing out ("remote HEAD refers to nonexistent ref"): the work tree is
empty and HEAD has no commit, so there is no store to sync. When the remote holds exactly one
branch with a statedump store in it (preferring `main`), `statedump sync` checks that branch out,
tracking it, says so, and goes on.
"""

from __future__ import annotations

from pathlib import Path

from statedump.core.errors import StatedumpError
from statedump.core.git.gateway import Git, find_worktree
from statedump.core.layout import SESSIONS


def adopt_remote_branch(start: Path) -> str | None:
    """Check out the remote's statedump branch in an empty clone at or above `start`; returns
    what was done (a line for the user), or None when this is not such a clone."""
    top = find_worktree(start.resolve())
    if top is None or (top / SESSIONS).exists():
        return None
    git = Git(top)
    if git.head() is not None or any(p.name != ".git" for p in top.iterdir()):
        return None  # a repository with work of its own: not ours to switch
    candidates: list[tuple[str, str]] = []
    for ref in git.refs("refs/remotes/"):
        remote, _, branch = ref.removeprefix("refs/remotes/").partition("/")
        # `statedump init` commits sessions/.gitkeep: a branch that has it holds a store.
        if branch and branch != "HEAD" and git.file_at(ref, f"{SESSIONS}/.gitkeep") is not None:
            candidates.append((remote, branch))
    if not candidates:
        return None
    mains = [c for c in candidates if c[1] == "main"]
    if len(mains) == 1:
        remote, branch = mains[0]
    elif len(candidates) == 1:
        remote, branch = candidates[0]
    else:
        names = ", ".join(f"{r}/{b}" for r, b in candidates)
        raise StatedumpError(
            f"the remote has several branches with a store ({names}) and its HEAD names none of them",
            where=top,
            hint="check one out: git switch -c BRANCH --track REMOTE/BRANCH",
        )
    git.switch_tracking(branch, f"{remote}/{branch}")
    named = git.config_get(f"remote.{remote}.url") or remote
    return f"checked out {branch} from {remote}/{branch}: the remote's HEAD names a branch it does not have ({named})"
