"""Dumps: named snapshots of a session's state, kept as annotated tags `dump/<session>/<n>`."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from statedump.errors import StatedumpError
from statedump.store import Store


@dataclass(frozen=True)
class Dump:
    """One dump tag."""

    name: str
    number: int
    sha: str
    date: datetime
    message: str


def prefix(session: str) -> str:
    return f"dump/{session}/"


def list_dumps(store: Store, session: str) -> list[Dump]:
    """The session's dumps, oldest first."""
    out = []
    for name, sha, date, message in store.git.tags(f"{prefix(session)}*"):
        tail = name[len(prefix(session)) :]
        if tail.isdigit():
            out.append(Dump(name, int(tail), sha, date, message))
    return sorted(out, key=lambda d: d.number)


def tag_dump(store: Store, session: str, message: str, when: datetime | None = None, sha: str | None = None) -> Dump:
    """Tag HEAD (or `sha`) as the session's next dump."""
    target = sha or store.git.head()
    if target is None:
        raise StatedumpError("the store has no commits to dump", where=store.root)
    with store.lock():
        number = max((d.number for d in list_dumps(store, session)), default=0) + 1
        name = f"{prefix(session)}{number}"
        store.git.tag(name, target, message, when)
    return Dump(name, number, target, when or datetime.now().astimezone(), message)


def last_dump(store: Store, session: str) -> Dump | None:
    dumps = list_dumps(store, session)
    return dumps[-1] if dumps else None
