"""Sharing a store through a git remote: fetch, replay local commits onto the remote
branch, push. statedump runs no server; any git remote will do.

Records are one file each, so two people adding records touch different files and
replay cleanly. Local commits are replayed with git's plumbing, never `git rebase` (see
replay.py): a sync killed at any moment leaves the branch where it was or where it was
going, never a rebase half-way, and `statedump doctor` restores any file it was moving.
Two cases need statedump's help, and both are settled without ever leaving the repository
mid-way:

- The same id added on both sides with different content. Before replaying, the local
  commits are rewritten so that the local record takes the id `<id>-<sha>` (the short
  sha of the local commit that added it, unique across clones) and every record changed
  locally that links to the old id links to the new one.
- The same record changed on both sides. Record files are never merged line by line (a
  merged YAML file can be wrong in ways no conflict marker shows); the remote
  version stays in place and the local one is committed as a copy under
  `conflicts/<session>/...`, where no loader looks. Nothing is pushed until the user has
  resolved it and removed the copy.

Dump tags travel too: `refs/tags/dump/*` are fetched and pushed. A local dump whose
number was meanwhile taken on the remote by another dump is renumbered.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from statedump.core.errors import GitFailed, StatedumpError, Unmerged
from statedump.core.git.errors import CommandFailed
from statedump.core.git.gateway import Git
from statedump.core.store.store import Store
from statedump.services.sync.conflicts import CONFLICTS, Conflict, conflict_line
from statedump.services.sync.ids import Renamed, collisions, rename_locally
from statedump.services.sync.replay import finish, replay
from statedump.services.sync.tags import REMOTE_DUMPS, adopt_dumps, tag_objects

__all__ = ["Conflict", "Renamed", "SyncResult", "sync"]

BACKUP_REF = "refs/statedump/pre-sync"
"""The branch as it was before the last sync that rewrote it."""
ATTEMPTS = 3


@dataclass
class SyncResult:
    """What one sync did."""

    remote: str
    branch: str
    fetched: int = 0
    rebased: int = 0
    pushed: bool = False
    tags_pushed: list[str] = field(default_factory=list)
    renamed: list[Renamed] = field(default_factory=list)
    renumbered: list[tuple[str, str]] = field(default_factory=list)
    conflicts: list[Conflict] = field(default_factory=list)

    def lines(self) -> list[str]:
        """The report for a person, one line per fact."""
        where = f"{self.remote}/{self.branch}"
        out = [f"fetched {self.fetched} new commit(s) from {where}"]
        if self.rebased:
            out.append(f"replayed {self.rebased} local commit(s) on top of {where}")
        for r in self.renamed:
            out.append(
                f"renamed {r.kind} {r.old} -> {r.new}: the id was also added on {self.remote} with other content; "
                "your records that linked to it now link to the new id"
            )
        for old, new in self.renumbered:
            out.append(f"renumbered dump {old} -> {new}: the number was taken on {self.remote}")
        for c in self.conflicts:
            out.append(conflict_line(c, self.remote))
        if self.conflicts:
            out.append("nothing was pushed; after resolving, run `statedump sync` again")
        elif self.pushed:
            tags = f" and {len(self.tags_pushed)} dump tag(s)" if self.tags_pushed else ""
            out.append(f"pushed {self.branch}{tags} to {self.remote}")
        else:
            out.append("nothing to push")
        return out


def _check_ready(store: Store) -> None:
    git = store.git
    if git.busy():
        raise StatedumpError("a git rebase or merge is in progress", where=store.root, hint="finish or abort it with git first")
    if git.branch() is None:
        raise StatedumpError("HEAD is detached", where=store.root, hint="check out the store's branch (e.g. `git switch main`)")
    dirty = git.status_porcelain(untracked="no")
    if dirty:
        raise StatedumpError(
            f"uncommitted changes ({dirty[0][3:]}{' and more' if len(dirty) > 1 else ''})",
            where=store.root,
            hint="commit or discard them first; statedump commits its own writes",
        )
    pending = git.tracked(CONFLICTS)
    if pending:
        raise Unmerged(
            f"unresolved conflict copies: {', '.join(pending)}",
            where=store.root,
            hint="bring your changes in with `statedump edit ID`, `git rm` the copies and commit, then sync again",
        )


def _pick_remote(git: Git, name: str | None, branch: str) -> str:
    remotes = git.remotes()
    if name is not None:
        if name not in remotes:
            known = ", ".join(remotes) or "none"
            raise StatedumpError(f"no git remote {name!r}", where="--remote", hint=f"remotes: {known}; add one with `git remote add`")
        return name
    configured = git.config_get(f"branch.{branch}.remote")
    if configured in remotes:
        return configured
    if "origin" in remotes:
        return "origin"
    if len(remotes) == 1:
        return remotes[0]
    if not remotes:
        raise StatedumpError("the store has no git remote", where=git.root, hint="add one: `git remote add origin URL`")
    raise StatedumpError("the store has several remotes", where="--remote", hint=f"pick one of: {', '.join(remotes)}")


def _remote_branch(git: Git, branch: str) -> str:
    return git.config_get(f"branch.{branch}.merge").removeprefix("refs/heads/") or branch


def _once(store: Store, remote: str, branch: str, upstream: str) -> SyncResult:
    git = store.git
    result = SyncResult(remote, upstream)
    git.fetch(remote, f"+refs/heads/*:refs/remotes/{remote}/*", f"+refs/tags/dump/*:{REMOTE_DUMPS}/{remote}/dump/*")
    result.renumbered = adopt_dumps(git, remote)
    tracking = f"refs/remotes/{remote}/{upstream}"
    env = git.identity_env()  # statedump's fallback identity when git has none
    local = git.rev_parse("HEAD")
    if git.ref_exists(tracking):
        base = git.merge_base(local, tracking)
        if base is None:
            raise StatedumpError(
                f"the store and {remote}/{upstream} share no history",
                where=store.root,
                hint="clone the remote (`git clone URL`) instead of starting a store with `statedump init`",
            )
        result.fetched = git.count(f"{base}..{tracking}")
        result.rebased = git.count(f"{base}..{local}")
        if result.fetched and result.rebased:
            # Everything up to `finish` writes objects only: the branch, the index and the
            # work tree are untouched until the one step that moves them (see replay.py).
            git.update_ref(BACKUP_REF, local)
            result.renamed = collisions(git, base, local, tracking)
            tip = rename_locally(store, base, local, result.renamed) if result.renamed else local
            replayed = replay(store, base, tip, tracking, env, remote)
            result.conflicts = replayed.conflicts
            finish(store, local, replayed.tip)
        elif result.fetched:
            finish(store, local, git.rev_parse(tracking))
    if result.conflicts:
        return result
    theirs = tag_objects(git, f"{REMOTE_DUMPS}/{remote}/")
    mine = tag_objects(git, "refs/tags/")
    result.tags_pushed = sorted(n for n, o in mine.items() if n.startswith("dump/") and theirs.get(n) != o)
    ahead = not git.ref_exists(tracking) or git.count(f"{tracking}..HEAD") > 0
    if ahead or result.tags_pushed:
        upstream_set = bool(git.config_get(f"branch.{branch}.merge"))
        git.push(remote, f"HEAD:refs/heads/{upstream}", "refs/tags/dump/*:refs/tags/dump/*", set_upstream=not upstream_set)
        result.pushed = True
    return result


def _failure(err: CommandFailed, store: Store) -> GitFailed:
    """git's failure in one line: the line that says why (a lock git could not take names
    its file, and `doctor` clears one nobody holds)."""
    reason = next((line for line in err.lines if "Unable to create" in line and ".lock" in line), err.last)
    hint = None
    if reason is not err.last:
        lock = reason.split("'")[1] if reason.count("'") >= 2 else ""
        here = lock.startswith(str(store.git.git_dir))
        hint = (
            "if no git is running, `statedump doctor --repair` removes a lock left by a crash"
            if here
            else "the lock is in the remote's repository (a push there was cut off): if no push is running, remove it there"
        )
    return GitFailed(f"git failed: {reason}", where=store.root, hint=hint)


def sync(store: Store, remote: str | None = None) -> SyncResult:
    """Fetch from `remote`, replay local commits on top of its branch, and push, with dump tags.

    Raises StatedumpError when the store is not ready (changes not committed, a rebase in
    progress, unresolved conflict copies) or git fails; the branch is then where it was.
    """
    with store.lock():
        _check_ready(store)
        branch = store.git.branch() or ""
        name = _pick_remote(store.git, remote, branch)
        upstream = _remote_branch(store.git, branch)
        for attempt in range(ATTEMPTS):
            try:
                return _once(store, name, branch, upstream)
            except CommandFailed as err:
                if err.says("rejected", "fetch first") and attempt + 1 < ATTEMPTS:
                    continue  # someone pushed between our fetch and push: fetch again
                raise _failure(err, store) from None
    raise AssertionError("unreachable")
