"""A session together with its records, as read at one point in history."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TypeVar

from statedump.models.base import RecordBase
from statedump.models.session import Session

R = TypeVar("R", bound=RecordBase)
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def chronological(records: Iterable[R]) -> list[R]:
    """Records in the order they happened: by `at`, undated last, then by id."""
    return sorted(records, key=lambda r: (r.at is None, r.at or _EPOCH, r.id))


@dataclass
class SessionState:
    """A session and its records. Pure data: reading and writing live in the store."""

    session: Session
    records: list[RecordBase] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.records = chronological(self.records)
        self._by_id = {r.id: r for r in self.records}

    def get(self, record_id: str) -> RecordBase | None:
        """The record with this id, if any."""
        return self._by_id.get(record_id)

    def of_kind(self, cls: type[R]) -> list[R]:
        """Records of one kind, in the order they happened."""
        return [r for r in self.records if isinstance(r, cls)]

    def linking_to(self, record_id: str) -> list[tuple[str, RecordBase]]:
        """(relation, record) for every record that links to `record_id`."""
        return [(rel, r) for r in self.records for rel, target in r.link_pairs() if target == record_id]

    def dangling(self) -> list[tuple[RecordBase, str, str]]:
        """(record, relation, missing id) for every link to a record that does not exist."""
        return [(r, rel, t) for r in self.records for rel, t in r.link_pairs() if t not in self._by_id]
