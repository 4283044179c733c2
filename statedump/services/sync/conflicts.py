"""The same record changed on both sides: the remote version in place, ours as a copy."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from statedump.core.layout import SESSIONS, RecordRef

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


def copy_path(path: str, stamp: str) -> str:
    """Where our version of `path` is kept when the remote changed it too."""
    rel = Path(path).relative_to(SESSIONS)
    return str(Path(CONFLICTS) / rel.parent / f"{rel.stem}.{stamp}{rel.suffix}")
