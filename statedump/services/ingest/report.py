"""What an import did: the report `apply_plan` and `import_incremental` hand back.

Apart from the plan and the models, which it names only as types: an import of a transcript
that has not changed since the last one returns a report without loading either.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from statedump.models import RecordBase
    from statedump.services.ingest.plan import CheckpointMark, Skipped


@dataclass(frozen=True)
class ReadSpan:
    """Which part of the file an import read (see incremental.py)."""

    mode: str
    """"full" (read whole), "incremental" (read on from `start`) or "unchanged" (not read at all)."""
    start: int
    """Byte offset the read began at."""
    end: int
    """Byte offset after the last complete line read (a line still being written is read next time)."""
    size: int
    """The file's size."""
    why: str = ""
    """Why this way: "grown by N bytes since the last import", "the part read before has changed", ..."""

    def as_json(self) -> dict[str, Any]:
        """The span as JSON-ready data."""
        return {"mode": self.mode, "start": self.start, "end": self.end, "size": self.size, "why": self.why}


@dataclass
class ImportReport:
    """What an import did (or, with a dry run, would do)."""

    format: str
    source: str
    session: str
    created_session: bool = False
    added: list[RecordBase] = field(default_factory=list)
    changed: list[RecordBase] = field(default_factory=list)
    unchanged: int = 0
    skipped: list[Skipped] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    checkpoints: list[CheckpointMark] = field(default_factory=list)
    commit: str | None = None
    tags: list[str] = field(default_factory=list)
    dry_run: bool = False
    read: ReadSpan | None = None
    """Which part of the file was read, when the import went through `import_incremental`."""

    def as_json(self) -> dict[str, Any]:
        """The report as JSON-ready data."""
        extra = {} if self.read is None else {"read": self.read.as_json()}
        return {
            "format": self.format,
            "source": self.source,
            "session": self.session,
            "created_session": self.created_session,
            "added": [f"{r.kind}/{r.id}" for r in self.added],
            "changed": [f"{r.kind}/{r.id}" for r in self.changed],
            "unchanged": self.unchanged,
            "skipped": [{"line": s.line, "reason": s.reason} for s in self.skipped],
            "notes": self.notes,
            "checkpoints": [{"at": c.at.isoformat() if c.at else None, "source": c.source} for c in self.checkpoints],
            "commit": self.commit,
            "tags": self.tags,
            "dry_run": self.dry_run,
            **extra,
        }
