"""Dumps: named snapshots of a session's state, kept as annotated tags `dump/<session>/<n>`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from statedump.core.errors import StatedumpError
from statedump.core.redact import redact_text
from statedump.core.store.store import Store


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
    with store.lock():
        return _tag_locked(store, session, message, when, sha)


def _tag_locked(store: Store, session: str, message: str, when: datetime | None, sha: str | None) -> Dump:
    target = sha or store.git.head()
    if target is None:
        raise StatedumpError("the store has no commits to dump", where=store.root)
    number = max((d.number for d in list_dumps(store, session)), default=0) + 1
    name = f"{prefix(session)}{number}"
    store.git.tag(name, target, redact_text(message), when)
    return Dump(name, number, target, when or datetime.now().astimezone(), message)


def last_dump(store: Store, session: str) -> Dump | None:
    dumps = list_dumps(store, session)
    return dumps[-1] if dumps else None


DEFAULT_MESSAGE = "State dump"


def make_dump(store: Store, session: str, message: str | None = None, before_tag: Callable[[str], None] | None = None) -> tuple[Dump, str]:
    """Render the session's committed state and tag HEAD as its next dump.

    Returns the dump and the rendered state document. Refuses (exit 2, nothing tagged)
    when the session's files have uncommitted changes, since the tag could not
    reproduce what was rendered.
    """
    from statedump.core.clock import fixed
    from statedump.core.layout import session_path
    from statedump.core.render import render_markdown

    # Under the lock, like any write: a write in flight is waited for, not taken for a hand edit.
    with store.lock():
        folder = f"{session_path(session)}/"
        dirty = store.git.dirty([folder])
        if dirty:
            more = f" (and {len(dirty) - 1} more)" if len(dirty) > 1 else ""
            raise StatedumpError(
                f"uncommitted changes to {dirty[0]}{more}",
                where=folder,
                hint="commit them (git commit) or drop them (git checkout -- FILE) before dumping; a dump tags a commit",
            )
        head = store.git.head()
        if head is None:
            raise StatedumpError("the store has no commits to dump", where=store.root)
        last = last_dump(store, session)
        if last is not None and not store.git.diff_names(last.sha, head, folder):
            raise StatedumpError(
                f"nothing changed since {last.name}", where=session, hint=f"`statedump render --at {last.name}` shows that dump"
            )
        document = render_markdown(store.load(session, head))
        text = " ".join((message or DEFAULT_MESSAGE).split())
        if not text:
            raise StatedumpError("the dump message is empty", where="-m", hint="say what the dump is about, or leave -m out")
        if before_tag is not None:
            before_tag(document)  # `dump --out`: the file is written first, so a refused write leaves no tag
        return _tag_locked(store, session, text, fixed(), head), document
