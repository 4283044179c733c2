"""Checking a whole session: every file readable and valid, ids unique, links resolved."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from statedump.core.errors import StatedumpError
from statedump.core.layout import SESSION_FILE
from statedump.core.store.store import Store
from statedump.models.state import SessionState


@dataclass(frozen=True)
class Problem:
    """One thing wrong, with the file it is in."""

    where: str
    message: str

    def __str__(self) -> str:
        return f"{self.where}: {self.message}"


def validate_session(store: Store, session: str) -> list[Problem]:
    """Every problem in the session, one per file and field; empty when it is sound."""
    problems: list[Problem] = []
    try:
        meta = store.load_session(session)
    except StatedumpError as err:
        return [Problem(err.where or f"sessions/{session}/{SESSION_FILE}", err.message)]
    files = store.record_files(session)
    records = store.parse_files(files, on_error=lambda e: problems.append(Problem(e.where or "?", e.message)))
    seen: dict[str, str] = {}
    for rel, _ in files:
        stem = Path(rel).stem
        if stem in seen:
            problems.append(Problem(rel, f"duplicate id {stem!r} (also {seen[stem]})"))
        seen.setdefault(stem, rel)
    state = SessionState(meta, records)
    for record, rel, target in state.dangling():
        path = store.find_path(session, record.id)
        where = store.rel(path) if path else record.id
        problems.append(Problem(where, f"link {rel} -> {target!r}: no such record in session {session!r}"))
    return sorted(problems, key=lambda p: (p.where, p.message))
