"""opencode sessions: `opencode export <id>` JSON, the `opencode.db` SQLite store (1.2 and
later), or the `storage/` folder of JSON files opencode kept before 1.2 (`opencode_storage`).

Both hold a session's info and its messages with their parts. Text parts of user
messages become instructions (the message id as source); a user message that carries a
`compaction` part asks for a summary, and the assistant message marked `summary: true`
holds it: it is imported as Markdown and becomes a checkpoint. An empty user message
followed by a state dump is a checkpoint too. From the database the most recently updated
top-level session is read; the report names the others. Acknowledgements ("thanks", "ok")
are no instruction. Tool parts go to `opencode_tools` (todo lists, shell commands, edited
files, subagent tasks and their child sessions).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from statedump.core.errors import StatedumpError
from statedump.services.ingest import opencode_storage
from statedump.services.ingest.chatter import is_chatter
from statedump.services.ingest.jsonl import Progress, check_file, read_json
from statedump.services.ingest.opencode_tools import OpencodeTools
from statedump.services.ingest.plan import ImportPlan
from statedump.services.ingest.reports import report
from statedump.services.ingest.transcript import Transcript, when
from statedump.services.ingest.turns import Turns

_SQLITE_MAGIC = b"SQLite format 3\x00"

Message = tuple[dict[str, Any], list[dict[str, Any]]]


def _info(plan: ImportPlan, info: dict[str, Any]) -> None:
    sid = info.get("id")
    if isinstance(sid, str):
        plan.fact("id", sid.lower().replace("_", "-")[:40])
    plan.fact("title", info.get("title"))
    plan.fact("cwd", info.get("directory"))
    time = info.get("time") if isinstance(info.get("time"), dict) else {}
    assert isinstance(time, dict)
    plan.fact("started", when(time.get("created")))
    if info.get("version"):
        plan.fact("agent", f"opencode {info['version']}")


def _text(parts: list[dict[str, Any]]) -> str:
    return "\n\n".join(str(p.get("text", "")) for p in parts if p.get("type") == "text" and not p.get("synthetic") and not p.get("ignored"))


def _walk(
    plan: ImportPlan, messages: Iterator[Message], progress: Progress | None, total: int, todos: list[dict[str, Any]] | None = None
) -> None:
    talk = Transcript(plan, "opencode")
    tools = OpencodeTools(plan)
    turns = Turns(plan, "opencode")
    model = None
    for count, (info, parts) in enumerate(messages, start=1):
        if progress is not None and count % 100 == 0:
            progress(count, max(total, count))
        role = info.get("role")
        key = str(info.get("id") or f"message {count}")
        time = info.get("time") if isinstance(info.get("time"), dict) else {}
        assert isinstance(time, dict)
        at = when(time.get("created"))
        if role == "user":
            chosen = info.get("model")
            if isinstance(chosen, dict) and chosen.get("modelID"):
                model = model or f"{chosen.get('providerID', '')}/{chosen['modelID']}".strip("/")
            if any(p.get("type") == "compaction" for p in parts):
                continue  # the request for a summary, not the person's words
            text = _text(parts)
            if is_chatter(text):
                talk.summary("", key, at, "")  # the person's turn, with nothing to do in it
                turns.resumed()
            else:
                known = turns.before()
                talk.user(text, key, at)
                turns.request(known)
                tools.user_text(text, f"opencode {key}", at)
        elif role == "assistant":
            if any(p.get("type") in ("text", "tool") for p in parts):
                turns.did()
            if info.get("finish") == "stop":
                turns.closed()
            for part in parts:
                if part.get("type") == "tool":
                    tools.part(part, f"opencode {key}", at)
            if info.get("summary") is True:
                talk.summary(_text(parts), key, at, "compaction summary")
            else:
                talk.assistant(_text(parts), key, at)
                if info.get("finish") == "stop" and not any(p.get("type") == "tool" for p in parts):
                    report(plan, _text(parts), f"opencode {key}", at, tags=["opencode"])  # the reply that closed its turn
    talk.finish()
    if todos:
        # The database's todo table: the session's plan as it stands now, after every todowrite.
        tools.actions.todo_items(todos, "opencode todo table")
    tools.finish()
    turns.settle()
    if model:
        current = plan.session.get("agent")
        plan.session["agent"] = f"{current} ({model})" if current else f"opencode ({model})"
    if progress is not None:
        progress(total, total)


def _from_export(plan: ImportPlan, data: Any, progress: Progress | None) -> None:
    if not isinstance(data, dict) or not isinstance(data.get("info"), dict) or not isinstance(data.get("messages"), list):
        raise StatedumpError(
            "not an opencode export: expected {info, messages: [...]}", where=plan.path, hint="use `opencode export <session>`"
        )
    _info(plan, data["info"])

    def messages() -> Iterator[Message]:
        for n, entry in enumerate(data["messages"], start=1):
            if not isinstance(entry, dict) or not isinstance(entry.get("info"), dict):
                plan.skip(n, "message without info")
                continue
            parts = [p for p in entry.get("parts") or [] if isinstance(p, dict)]
            yield entry["info"], parts

    _walk(plan, messages(), progress, len(data["messages"]))


def _columns(db: sqlite3.Connection, table: str) -> set[str]:
    return {row[1] for row in db.execute(f"PRAGMA table_info({table})")}


def _from_db(plan: ImportPlan, path: Path, progress: Progress | None) -> None:
    try:
        db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    except sqlite3.Error as err:
        raise StatedumpError(f"cannot open the database: {err}", where=path) from None
    try:
        if not {"id", "title"} <= _columns(db, "session") or "data" not in _columns(db, "message"):
            raise StatedumpError("not an opencode database (no session / message tables)", where=path)
        cols = _columns(db, "session")
        where = "WHERE parent_id IS NULL" if "parent_id" in cols else ""
        order = "time_updated" if "time_updated" in cols else "id"
        picked = ["id", "title", *(c for c in ("directory", "version", "time_created", "time_updated") if c in cols)]
        rows = db.execute(f"SELECT {', '.join(picked)} FROM session {where} ORDER BY {order} DESC, id DESC").fetchall()  # noqa: S608
        if not rows:
            raise StatedumpError("the database holds no session", where=path)
        row = dict(zip(picked, rows[0], strict=True))
        if len(rows) > 1:
            plan.notes.append(f"read session {row['id']} (the most recently updated) of {len(rows)} in the database")
        _info(
            plan,
            {
                "id": row["id"],
                "title": row["title"],
                "directory": row.get("directory"),
                "version": row.get("version"),
                "time": {"created": row.get("time_created")},
            },
        )
        total = db.execute("SELECT count(*) FROM message WHERE session_id = ?", (row["id"],)).fetchone()[0]

        def messages() -> Iterator[Message]:
            cursor = db.execute("SELECT id, data FROM message WHERE session_id = ? ORDER BY time_created, id", (row["id"],))
            for mid, data in cursor:
                try:
                    info = {**json.loads(data), "id": mid, "sessionID": row["id"]}
                    parts = [
                        {**json.loads(pdata), "id": pid}
                        for pid, pdata in db.execute("SELECT id, data FROM part WHERE message_id = ? ORDER BY id", (mid,))
                    ]
                except json.JSONDecodeError as err:
                    plan.skip(0, f"message {mid}: data is not JSON ({err.msg})")
                    continue
                yield info, parts

        todos: list[dict[str, Any]] = []
        if {"session_id", "content", "status"} <= _columns(db, "todo"):
            order = "position" if "position" in _columns(db, "todo") else "rowid"
            cursor = db.execute(f"SELECT * FROM todo WHERE session_id = ? ORDER BY {order}", (row["id"],))  # noqa: S608
            names = [d[0] for d in cursor.description]
            todos = [dict(zip(names, found, strict=True)) for found in cursor]
        _walk(plan, messages(), progress, int(total), todos)
    except sqlite3.DatabaseError as err:
        raise StatedumpError(f"cannot read the database: {err}", where=path) from None
    finally:
        db.close()


def _from_storage(plan: ImportPlan, root: Path, path: Path, progress: Progress | None) -> None:
    info = opencode_storage.pick_session(plan, root, path)
    _info(plan, info)
    infos, walk = opencode_storage.messages(plan, root, str(info["id"]))
    if not infos:
        plan.notes.append(f"session {info['id']} has no messages in the storage folder")
    _walk(plan, walk, progress, len(infos))


def read(path: Path, progress: Progress | None = None) -> ImportPlan:
    """Read an opencode export, database or storage folder into a plan."""
    plan = ImportPlan("opencode", path)
    root = opencode_storage.storage_root(path if path.is_dir() else path.parent)
    if root is not None and (path.is_dir() or path.parent.parent.parent == root):
        _from_storage(plan, root, path, progress)
        return plan
    if path.is_file():
        with open(path, "rb") as fh:
            magic = fh.read(len(_SQLITE_MAGIC))
        if magic == _SQLITE_MAGIC:
            _from_db(plan, path, progress)
            return plan
    check_file(path, "opencode export (JSON)")
    try:
        data = read_json(path, "opencode export (JSON)")
    except RecursionError:
        raise StatedumpError("not an opencode export: the JSON nests too deeply to read", where=path) from None
    _from_export(plan, data, progress)
    return plan
