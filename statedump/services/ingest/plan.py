"""What an import would do: the records it found, the session facts, the checkpoints and
the lines it had to skip. Readers build a plan; `apply` writes it in one commit.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from statedump.core.redact import redact_text
from statedump.models import RecordBase, id_problem
from statedump.models.ids import slugify

SESSION_FACTS = ("title", "model", "hardware", "agent", "repo", "branch", "cwd", "started", "body")
"""Session fields an import may fill."""


@dataclass(frozen=True)
class Skipped:
    """A line (or entry) of the input that could not be read."""

    line: int
    reason: str


@dataclass(frozen=True)
class CheckpointMark:
    """A state dump found in the input: an empty user turn followed by a summary, or a compaction."""

    at: datetime | None
    source: str
    message: str
    records: tuple[RecordBase, ...] = ()
    """The plan's records as they stood at this point: the state the dump described."""


@dataclass
class ImportPlan:
    """Everything an import found, before anything is written."""

    format: str
    path: Path
    records: list[RecordBase] = field(default_factory=list)
    session: dict[str, Any] = field(default_factory=dict)
    """Session facts found in the input (see SESSION_FACTS); `id` is a suggested session id."""
    checkpoints: list[CheckpointMark] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    guessed: dict[str, set[str]] = field(default_factory=dict)
    """Record id -> fields the reader made up (a compat cell's title, which a state document
    does not show): an import never overwrites them in a record the session already has."""
    _ids: dict[str, int] = field(default_factory=dict, repr=False)
    _keys: dict[str, str] = field(default_factory=dict, repr=False)
    """Id -> the identity it was given for (see `readable_id`)."""

    def readable_id(self, prefix: str, text: str, key: str, limit: int = 40) -> str:
        """`prefix-slug-of-text`, with a hash suffix only when another record of this plan
        already holds that slug: the same `key` always gets the same id, so a later dump
        of the same record still replaces it."""
        slug = re.sub(r"[^a-z0-9]+", "-", redact_text(text).lower()).strip("-") or "record"
        if len(slug) > limit:
            # Cut at a word boundary when one is near, not in the middle of a word.
            cut = slug[: limit + 1].rfind("-")
            slug = slug[:cut] if cut > limit // 2 else slug[:limit].rstrip("-")
        plain = re.sub(r"-{2,}", "-", f"{prefix}-{slug}" if prefix else slug).strip("-")
        if id_problem(plain) is not None:
            return stable_id(prefix, text, key=key, limit=limit)
        for candidate in (plain, stable_id(prefix, text, key=key, limit=limit)):
            if candidate in self._ids and candidate not in self._keys:
                continue  # a record another reader named
            if self._keys.setdefault(candidate, key) == key:
                return candidate
        return f"r-{short_hash(key, length=16)}"

    def add(self, record: RecordBase, guessed: set[str] | None = None) -> RecordBase:
        """Add a record; a later record with the same id replaces the earlier one (a newer dump wins)."""
        if guessed:
            self.guessed[record.id] = set(guessed)
        else:
            self.guessed.pop(record.id, None)
        if record.id in self._ids:
            self.records[self._ids[record.id]] = record
        else:
            self._ids[record.id] = len(self.records)
            self.records.append(record)
        return record

    def remove(self, record_ids: set[str]) -> None:
        """Take records out again (a summary repeating what the transcript already holds)."""
        if not record_ids & set(self._ids):
            return
        self.records = [r for r in self.records if r.id not in record_ids]
        self._ids = {r.id: i for i, r in enumerate(self.records)}
        for record_id in record_ids:
            self.guessed.pop(record_id, None)

    def skip(self, line: int, reason: str) -> None:
        self.skipped.append(Skipped(line, reason))

    def fact(self, name: str, value: Any) -> None:
        """Set a session fact once: the first value found wins (later lines repeat it)."""
        if value not in (None, "") and name not in self.session:
            self.session[name] = value

    def extend(self, other: ImportPlan) -> None:
        """Take over another plan's records, checkpoints, skipped lines and notes."""
        for record in other.records:
            self.add(record)
        self.checkpoints += other.checkpoints
        self.skipped += other.skipped
        self.notes += other.notes
        for name, value in other.session.items():
            self.fact(name, value)


def short_hash(*parts: str, length: int = 10) -> str:
    """A stable hex digest of some text: the same input always gives the same id."""
    digest = hashlib.sha256("\x00".join(parts).encode("utf-8", "surrogatepass")).hexdigest()
    return digest[:length]


def stable_id(prefix: str, text: str, key: str | None = None, limit: int = 40) -> str:
    """`prefix-slug-of-text-hash`: readable and the same every time the same input is read.

    `key` (a uuid, a line's identity) decides the hash when given, so an edited title
    does not make a new record on re-import.
    """
    # Redacted first: an id is a file name and a commit line, and must not carry a secret.
    slug = slugify(redact_text(text), limit=limit)
    digest = short_hash(key if key is not None else text, length=8)
    out = f"{prefix}-{slug}-{digest}" if prefix else f"{slug}-{digest}"
    out = re.sub(r"-{2,}", "-", out).strip("-")
    return out if id_problem(out) is None else f"r-{digest}"


def one_line(text: str, limit: int = 200) -> str:
    """The first non-empty line of a text, shortened to fit a title (redacted before it is cut,
    so that half a secret never survives the cut)."""
    for line in redact_text(text).splitlines():
        line = " ".join(line.split()).strip("#*>- ").strip()
        if line:
            return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"
    return "(empty)"
