"""The tools that read the store, describe a kind, and tag a dump.

Every tool is registered with `structured_output=False`: the SDK would otherwise publish an
output schema per tool (tokens on every turn) for results that are plain mappings; a mapping
still reaches the client as `structuredContent` (see errors.result).
"""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.mcpserver import MCPServer
from mcp_types import ToolAnnotations
from pydantic import Field

from statedump.core.render.json import plain
from statedump.core.store.store import Store
from statedump.mcpserver.errors import tool_errors
from statedump.models import KINDS

SessionArg = Annotated[str | None, Field(description="Session id (default: the store's only or most recently started active session).")]
READ = ToolAnnotations(read_only_hint=True, open_world_hint=False)
WRITE = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=False)
DUMP = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=False)


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
    from statedump.services.changes import set_status

    change = set_status(store, store.pick_session(session), record_id, new_status, source)
    assert change.before is not None and change.after is not None
    return {"id": change.after.id, "kind": change.after.kind, "from": change.before.status, "to": new_status, "commit": change.commit}


def register(app: MCPServer[Any], store: Store) -> None:
    """Add the reading tools, `describe_kind` and `dump` to `app`."""
    from statedump.mcpserver import kinds

    @app.tool(annotations=READ, structured_output=False)
    @tool_errors
    def state_document(session: SessionArg = None) -> str:
        """The session's state document in Markdown: goal, instructions, discoveries, accomplished,
        next steps, deployment commands, files, references. Read it first."""
        from statedump.core.render import render_markdown

        return render_markdown(store.load(store.pick_session(session)))

    @app.tool(annotations=READ, structured_output=False)
    @tool_errors
    def list_sessions() -> dict[str, Any]:
        """Every session in the store with its title and status."""
        out = []
        for sid in store.session_ids():
            meta = store.load_session(sid)
            out.append({"id": sid, "title": meta.title, "status": meta.status})
        return {"sessions": out}

    @app.tool(annotations=READ, structured_output=False)
    @tool_errors
    def list_records(
        kind: Annotated[list[str] | str | None, Field(description="Only this kind, or these kinds.")] = None,
        status: Annotated[list[str] | str | None, Field(description="Only this status, or these statuses.")] = None,
        grep: Annotated[str | None, Field(description="Only records whose text contains this (any case).")] = None,
        session: SessionArg = None,
    ) -> dict[str, Any]:
        """Records of the session in the order they happened (id, kind, status, title), filtered.
        Call it before adding, to update a record rather than duplicate it."""
        from statedump.services.query import check_filters, filter_records

        kinds = [kind] if isinstance(kind, str) else kind or []
        statuses = [status] if isinstance(status, str) else status or []
        check_filters(kinds, statuses, kind_arg="kind", status_arg="status")
        records = store.load(store.pick_session(session)).records
        return {"records": [summary(r) for r in filter_records(records, kinds=kinds, statuses=statuses, grep=grep)]}

    @app.tool(annotations=READ, structured_output=False)
    @tool_errors
    def show_record(id: Annotated[str, Field(description="The record id.")], session: SessionArg = None) -> dict[str, Any]:
        """One record with every field that is set."""
        out: dict[str, Any] = compact(plain(store.get(store.pick_session(session), id)))
        return out

    @app.tool(annotations=READ, structured_output=False)
    @tool_errors
    def describe_kind(kind: Annotated[str, Field(description="A record kind: " + ", ".join(KINDS) + ".")]) -> dict[str, Any]:
        """Every field of a record kind with its description, type and closed set, and the kind's
        statuses: what add_record and update_record accept (also statedump://schema/{kind})."""
        return kinds.describe(kind)

    @app.tool(annotations=READ, structured_output=False)
    @tool_errors
    def next_steps(session: SessionArg = None) -> dict[str, Any]:
        """Open tasks in the order to do them: by priority, agreed work before proposals."""
        from statedump.core.render import next_steps as ordered

        tasks = ordered(store.load(store.pick_session(session)))
        return {"tasks": [{**summary(t), "priority": t.priority, "impact": t.impact} for t in tasks]}

    @app.tool(annotations=DUMP, structured_output=False)
    @tool_errors
    def dump(
        message: Annotated[str | None, Field(description="What the dump is about (default: 'State dump').")] = None,
        session: SessionArg = None,
    ) -> dict[str, Any]:
        """Tag the session's current committed state as its next state dump, dump/<session>/<n>,
        after recording everything a new agent would need. Refused when nothing changed since
        the last dump."""
        from statedump.services.refs import make_dump

        made, _ = make_dump(store, store.pick_session(session), message)
        return {"tag": made.name, "number": made.number, "commit": made.sha, "message": made.message}
