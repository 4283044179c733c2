"""The same record changed on both sides: the remote version in place, ours as a copy."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from statedump.core.errors import StatedumpError, Unmerged
from statedump.core.git.errors import CommandFailed
from statedump.core.layout import SESSIONS, RecordRef
from statedump.core.store.store import Store

CONFLICTS = "conflicts"
"""Top-level folder of conflict copies: visible, committed, and read by no loader."""


@dataclass(frozen=True)
class Conflict:
    """A file changed on both sides: the remote's version is in place, ours is in `copy`.

    `copy` is None when this clone deleted the file; `path` is gone when the remote did."""

    path: str
    copy: str | None
    remote_deleted: bool = False

    @property
    def record(self) -> str:
        """`kind/id` (or the file name) of what conflicted."""
        found = RecordRef.parse(self.path)
        return found.key if found else self.path


def conflict_line(c: Conflict, remote: str) -> str:
    """How one conflict was kept and how to resolve it."""
    rid = Path(c.path).stem
    drop = f"`git rm {c.copy} && git commit -m 'resolve {rid}'`"
    is_record = RecordRef.parse(c.path) is not None
    bring_in = f"`statedump edit {rid}`" if is_record else f"your editor (then commit {c.path})"
    put_back = f"`statedump add {c.record.split('/')[0]} --from {c.copy}`" if is_record else f"`git mv {c.copy} {c.path}`"
    if c.copy is None:
        return (
            f"conflict: {c.record} was deleted here but changed on {remote}; the {remote} version is kept at {c.path}. "
            f"If it should go, delete it again: `git rm {c.path} && git commit`"
        )
    if c.remote_deleted:
        return (
            f"conflict: {c.record} was deleted on {remote} but changed here; yours is kept at {c.copy}. "
            f"If it should stay, add it back with {put_back}. Either way, then {drop}"
        )
    return (
        f"conflict: {c.record} was changed both here and on {remote}. The {remote} version is in place ({c.path}); "
        f"yours is kept at {c.copy}. Resolve: compare the two, bring your changes in with {bring_in}, then {drop}"
    )


def _copy_path(path: str, stamp: str) -> str:
    rel = Path(path).relative_to(SESSIONS)
    return str(Path(CONFLICTS) / rel.parent / f"{rel.stem}.{stamp}{rel.suffix}")


def _keep_both(store: Store, stamp: str, remote: str) -> list[Conflict]:
    """Settle every unmerged path: the remote's version in place, ours as a conflict copy."""
    git = store.git
    stages = git.unmerged()
    if not stages:
        raise StatedumpError("git stopped the rebase without a conflict", where=store.root, hint="run `git status` to see why")
    out = []
    for path, by_stage in sorted(stages.items()):
        if not path.startswith(f"{SESSIONS}/"):
            raise Unmerged(
                f"{path} was changed both here and on {remote}, and statedump only settles records",
                where=store.root,
                hint="merge it with git (`git pull --rebase`), then run `statedump sync` again",
            )
        target = store.root / path
        if 2 in by_stage:
            target.write_bytes(git.blob(by_stage[2]))
            git.add(path)
        else:
            git.forget(path)
            target.unlink(missing_ok=True)
        copy = None
        if 3 in by_stage:
            copy = _copy_path(path, stamp)
            (store.root / copy).parent.mkdir(parents=True, exist_ok=True)
            (store.root / copy).write_bytes(git.blob(by_stage[3]))
            git.add(copy)
        out.append(Conflict(path, copy, remote_deleted=2 not in by_stage))
    return out


def rebase_keeping_both(store: Store, onto: str, env: dict[str, str], remote: str) -> list[Conflict]:
    """Rebase the branch onto `onto`, settling record conflicts; never stops half-way."""
    git = store.git
    attrs = git.git_dir / "statedump-sync.attributes"
    attrs.write_text(f"{SESSIONS}/** -merge\n", encoding="utf-8")
    # Record files are not merged line by line: any change on both sides is a conflict.
    env = {
        **env,
        "GIT_EDITOR": "true",
        "GIT_CONFIG_COUNT": "1",
        "GIT_CONFIG_KEY_0": "core.attributesFile",
        "GIT_CONFIG_VALUE_0": str(attrs),
    }
    stamp = git.rev_parse("HEAD", short=7)
    conflicts: dict[str, Conflict] = {}
    try:
        try:
            git.rebase("--no-verify", "--no-autosquash", onto, env=env)
        except CommandFailed:
            while git.rebasing():
                if git.unmerged():
                    for c in _keep_both(store, stamp, remote):
                        conflicts[c.path] = c
                try:
                    git.rebase("--continue", env=env)
                except CommandFailed:
                    if git.rebasing() and not git.unmerged() and not git.staged():
                        git.rebase("--skip", env=env)  # settled to no change at all
    finally:
        attrs.unlink(missing_ok=True)
    return list(conflicts.values())
