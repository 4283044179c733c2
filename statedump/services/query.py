"""Selecting records by kind, status and text."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from statedump.core.errors import BadInput
from statedump.models import KINDS, RecordBase


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


def check_filters(kinds: Sequence[str], statuses: Sequence[str], *, kind_arg: str = "--kind", status_arg: str = "--status") -> None:
    """Refuse a kind that does not exist, or a status none of the kinds asked for has: a filter
    that can match nothing is a mistake, not an empty answer (the same for the CLI and MCP)."""
    for kind in kinds:
        if kind not in KINDS:
            raise BadInput(f"unknown kind {kind!r}", where=kind_arg, hint=f"use one of: {', '.join(KINDS)}")
    known = {st for k in (kinds or KINDS) for st in KINDS[k].STATUSES}
    for wanted in statuses:
        if wanted not in known:
            raise BadInput(
                f"no {' or '.join(kinds) or 'record'} has status {wanted!r}",
                where=status_arg,
                hint=f"use one of: {', '.join(sorted(known))}",
            )
