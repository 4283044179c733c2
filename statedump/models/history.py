"""What the history of a store is made of: commits touching a session, and record-by-record
differences between two states. Plain data, shared by the history service that finds them
and the renderers that print them."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal


@dataclass(frozen=True)
class Entry:
    """One commit in the history of a record or a session."""

    sha: str
    date: datetime
    subject: str
    action: str | None
    """From the `Statedump-Action` trailer: add, edit, `status done`, new, ..."""
    record: str | None
    """`kind/id`, e.g. `decision/bf16-kv-cache`; None for a change to the session itself."""
    source: str | None
    """From the `Statedump-Source` trailer, e.g. `msg 6007`."""
    session: str | None
    paths: tuple[str, ...] = ()
    """The session files the commit changed."""

    @property
    def short(self) -> str:
        """The first ten characters of the sha."""
        return self.sha[:10]


@dataclass
class FieldChange:
    """One field of a record, before and after (None when absent on that side)."""

    field: str
    old: Any
    new: Any


@dataclass
class RecordDiff:
    """How one record differs between two states."""

    id: str
    kind: str
    change: Literal["added", "removed", "changed"]
    fields: list[FieldChange] = field(default_factory=list)
    """For `changed`, each differing field; for `added`/`removed`, every field of the record."""
    title: str = ""


@dataclass
class Comparison:
    """Two states of one session and how they differ."""

    old_ref: str
    old_sha: str
    new_ref: str
    new_sha: str | None
    """None for the working tree."""
    changes: list[RecordDiff]
