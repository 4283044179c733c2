"""The tools that read the store, set a status, and call the audit and report services."""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.mcpserver import MCPServer
from mcp_types import ToolAnnotations
from pydantic import Field

from statedump.core.errors import StatedumpError
from statedump.core.render.json import plain
from statedump.core.store.store import Store
from statedump.mcpserver.errors import tool_errors
from statedump.models import KINDS

SessionArg = Annotated[str | None, Field(description="Session id (default: the store's only or most recently started active session).")]
READ = ToolAnnotations(read_only_hint=True, open_world_hint=False)
WRITE = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=False)


def compact(value: Any) -> Any:
    """JSON data without empty lists and mappings: they are defaults, and cost an agent tokens."""
    if isinstance(value, dict):
        kept = {k: compact(v) for k, v in value.items()}
        return {k: v for k, v in kept.items() if v not in ([], {})}
    if isinstance(value, list):
        return [compact(v) for v in value]
    return value


def summary(record: Any) -> dict[str, Any]:
    """The few fields a listing needs."""
    return {"id": record.id, "kind": record.kind, "status": record.status, "title": record.title}


def change_status(store: Store, session: str | None, record_id: str, new_status: str, source: str | None) -> dict[str, Any]:
    """Move a record to another status of its kind's closed set, as `statedump status` does."""
    from statedump.services.records import set_status

    current, record, sha = set_status(store, store.pick_session(session), record_id, new_status, source)
    return {"id": record.id, "kind": record.kind, "from": current.status, "to": new_status, "commit": sha}


def register(app: MCPServer[Any], store: Store) -> None:
    """Add the reading, status, audit and report tools to `app`."""

    @app.tool(annotations=READ)
    @tool_errors
    def state_document(session: SessionArg = None) -> str:
        """The session's state document in Markdown: Goal, Instructions, Discoveries, Accomplished,
        Next steps, Deployment commands, Relevant files, References. Read it first."""
        from statedump.core.render import render_markdown

        return render_markdown(store.load(store.pick_session(session)))

    @app.tool(annotations=READ)
    @tool_errors
    def list_sessions() -> dict[str, Any]:
        """Every session in the store with its title and status."""
        out = []
        for sid in store.session_ids():
            meta = store.load_session(sid)
            out.append({"id": sid, "title": meta.title, "status": meta.status})
        return {"sessions": out}

    @app.tool(annotations=READ)
    @tool_errors
    def list_records(
        kind: Annotated[list[str] | None, Field(description=f"Only these kinds: {', '.join(KINDS)}.")] = None,
        status: Annotated[list[str] | None, Field(description="Only these statuses.")] = None,
        grep: Annotated[str | None, Field(description="Only records whose text contains this (case-insensitive).")] = None,
        session: SessionArg = None,
    ) -> dict[str, Any]:
        """Records of the session in the order they happened (id, kind, status, title), filtered."""
        from statedump.services.query import filter_records

        for k in kind or []:
            if k not in KINDS:
                raise StatedumpError(f"unknown kind {k!r}", where="--kind", hint=f"use one of: {', '.join(KINDS)}")
        records = store.load(store.pick_session(session)).records
        return {"records": [summary(r) for r in filter_records(records, kinds=kind or (), statuses=status or (), grep=grep)]}

    @app.tool(annotations=READ)
    @tool_errors
    def show_record(id: Annotated[str, Field(description="The record id.")], session: SessionArg = None) -> dict[str, Any]:
        """One record with every field."""
        out: dict[str, Any] = compact(plain(store.get(store.pick_session(session), id)))
        return out

    @app.tool(annotations=WRITE)
    @tool_errors
    def set_status(
        id: Annotated[str, Field(description="The record id.")],
        status: Annotated[str, Field(description="The new status, from the record kind's closed set.")],
        source: Annotated[str | None, Field(description="Why, or where the change came from (e.g. 'msg 6031').")] = None,
        session: SessionArg = None,
    ) -> dict[str, Any]:
        """Change a record's status, e.g. a task to done or a decision to accepted. One commit."""
        return change_status(store, session, id, status, source)

    @app.tool(annotations=READ)
    @tool_errors
    def next_steps(session: SessionArg = None) -> dict[str, Any]:
        """Open tasks in the order to do them: by priority, agreed work before proposals."""
        from statedump.core.render import next_steps as ordered

        tasks = ordered(store.load(store.pick_session(session)))
        return {"tasks": [{**summary(t), "priority": t.priority, "impact": t.impact} for t in tasks]}
