"""Selecting records by kind, status and text."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from statedump.models import RecordBase


def matches(record: RecordBase, needle: str) -> bool:
    """True when any text of the record (id, title, body, kind fields) contains `needle`, ignoring case."""
    low = needle.lower()
    return low in record.id or any(low in text.lower() for text in record.text_fields())


def filter_records(
    records: Iterable[RecordBase], *, kinds: Sequence[str] = (), statuses: Sequence[str] = (), grep: str | None = None
) -> list[RecordBase]:
    """The records that pass every filter given."""
    return [
        r for r in records if (not kinds or r.kind in kinds) and (not statuses or r.status in statuses) and (not grep or matches(r, grep))
    ]
