"""Where things live in a store: the one place that turns (session, kind, id) into a path and back.

```
sessions/<session>/session.yaml
sessions/<session>/<kind>/<id>.yaml
```

Paths here are repository paths (POSIX, relative to the work tree's top), as git names them;
`Store` joins them to its root for the file system. Plain Python: `statedump log` finds a
record's files without importing pydantic.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePosixPath

from statedump.core.errors import StatedumpError
from statedump.models.ids import KIND_NAMES, id_problem

SESSIONS = "sessions"
"""The folder at the top of the work tree that holds every session."""
SESSION_FILE = "session.yaml"
"""The session's own metadata, beside its kind folders."""
SUFFIX = ".yaml"


def check_id(value: str, what: str = "id") -> str:
    """`value` when it is a safe id; else one clear error naming `what` (an id, a session, …)."""
    problem = id_problem(value)
    if problem:
        raise StatedumpError(f"{what} {value!r} is not safe: {problem}", where=what, hint="choose a short lowercase slug")
    return value


def is_record_name(name: str) -> bool:
    """True for a file name that can hold a record: `<id>.yaml`, not hidden (editors' and our own
    temporary files start with a dot)."""
    return name.endswith(SUFFIX) and not name.startswith(".") and name != SESSION_FILE


def session_path(session: str) -> str:
    """`sessions/<session>`: the session's folder."""
    return f"{SESSIONS}/{check_id(session, 'session')}"


def session_file(session: str) -> str:
    """`sessions/<session>/session.yaml`."""
    return f"{session_path(session)}/{SESSION_FILE}"


@dataclass(frozen=True, order=True)
class RecordRef:
    """A record's address: its session, its kind folder and its id."""

    session: str
    kind: str
    id: str

    @property
    def path(self) -> str:
        """`sessions/<session>/<kind>/<id>.yaml`, with every part checked."""
        return f"{session_path(self.session)}/{self.kind}/{check_id(self.id)}{SUFFIX}"

    @property
    def key(self) -> str:
        """`<kind>/<id>`: how commits name the record (`Statedump-Record`)."""
        return f"{self.kind}/{self.id}"

    @classmethod
    def parse(cls, path: str) -> RecordRef | None:
        """The record a repository path holds, or None for anything else (the session file,
        a hidden file, a folder that is no kind, a path outside `sessions/`)."""
        parts = PurePosixPath(path).parts
        if len(parts) == 4 and parts[0] == SESSIONS and parts[2] in KIND_NAMES and is_record_name(parts[3]):
            return cls(parts[1], parts[2], parts[3][: -len(SUFFIX)])
        return None


def record_path(session: str, kind: str, record_id: str) -> str:
    """The repository path of a record's file in one kind folder."""
    return RecordRef(session, kind, record_id).path


def record_paths(session: str, record_id: str) -> list[str]:
    """The record's file in every kind folder, as literal paths, so that kind changes stay in its
    history (a wildcard would make git walk every commit's kind folders)."""
    return [record_path(session, kind, record_id) for kind in KIND_NAMES]
