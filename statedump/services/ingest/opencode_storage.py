"""opencode before 1.2: a session kept as a folder of JSON files under `storage/`.

    storage/session/<projectID>/<ses>.json   (older: storage/session/info/<ses>.json)
    storage/message/<ses>/<msg>.json
    storage/part/<msg>/<prt>.json

Each file holds one object, the same as the export's `info`, message `info` and parts. The
path given is the `storage` folder (the most recently updated top-level session is read, and
the report names the others) or one session file inside it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from statedump.core.errors import StatedumpError
from statedump.services.ingest.plan import ImportPlan

Message = tuple[dict[str, Any], list[dict[str, Any]]]
_MAX_BYTES = 64 * 1024 * 1024


def _load(path: Path, plan: ImportPlan | None = None) -> dict[str, Any] | None:
    """One JSON object file, or None (reported on `plan`) when it cannot be read."""
    try:
        if path.stat().st_size > _MAX_BYTES:
            raise ValueError(f"over {_MAX_BYTES} bytes")
        value = json.loads(path.read_bytes().decode("utf-8"))
    except (OSError, ValueError, RecursionError) as err:
        if plan is not None:
            plan.skip(0, f"{path.name}: not readable JSON ({str(err)[:80] or type(err).__name__})")
        return None
    return value if isinstance(value, dict) else None


def storage_root(path: Path) -> Path | None:
    """The `storage` folder `path` is or lies in (a folder holding `session/` and `message/`)."""
    for candidate in (path, *path.parents):
        if candidate.is_dir() and (candidate / "session").is_dir() and (candidate / "message").is_dir():
            return candidate
    return None


def _sessions(root: Path) -> list[Path]:
    return sorted(p for p in (root / "session").glob("*/*.json") if p.is_file())


def _updated(info: dict[str, Any]) -> tuple[float, str]:
    time = info.get("time") if isinstance(info.get("time"), dict) else {}
    assert isinstance(time, dict)
    stamp = time.get("updated") or time.get("created") or 0
    return (float(stamp) if isinstance(stamp, int | float) and not isinstance(stamp, bool) else 0.0, str(info.get("id") or ""))


def pick_session(plan: ImportPlan, root: Path, path: Path) -> dict[str, Any]:
    """The session to read: the file named, else the most recently updated top-level one."""
    if path.is_file():
        info = _load(path)
        if info is None or not isinstance(info.get("id"), str):
            raise StatedumpError("not an opencode session file (no JSON object with an id)", where=path)
        return info
    infos = [i for p in _sessions(root) if (i := _load(p, plan)) is not None and isinstance(i.get("id"), str)]
    top = [i for i in infos if not i.get("parentID")] or infos
    if not top:
        raise StatedumpError(
            "the opencode storage folder holds no session", where=path, hint="name storage/ or a file under storage/session/"
        )
    top.sort(key=_updated, reverse=True)
    if len(infos) > 1:
        plan.notes.append(f"read session {top[0]['id']} (the most recently updated) of {len(infos)} in the storage folder")
    return top[0]


def _created(info: dict[str, Any]) -> tuple[float, str]:
    time = info.get("time") if isinstance(info.get("time"), dict) else {}
    assert isinstance(time, dict)
    stamp = time.get("created") or 0
    return (float(stamp) if isinstance(stamp, int | float) and not isinstance(stamp, bool) else 0.0, str(info.get("id") or ""))


def messages(plan: ImportPlan, root: Path, session_id: str) -> tuple[list[dict[str, Any]], Iterator[Message]]:
    """The session's message infos in order, and each with its parts (read when reached)."""
    folder = root / "message" / session_id
    infos = []
    for p in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        info = _load(p, plan)
        if info is not None:
            info.setdefault("id", p.stem)
            infos.append(info)
    infos.sort(key=_created)

    def walk() -> Iterator[Message]:
        for info in infos:
            parts_dir = root / "part" / str(info.get("id"))
            parts = [q for p in sorted(parts_dir.glob("*.json")) if (q := _load(p, plan)) is not None] if parts_dir.is_dir() else []
            parts.sort(key=lambda q: str(q.get("id") or ""))
            yield info, parts

    return infos, walk()
