"""Resources: the list of sessions, each session's state document and records, and each kind's schema."""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import MCPServer

from statedump.core import codec
from statedump.core.render.json import to_json
from statedump.core.store.store import Store
from statedump.mcpserver.errors import resource_errors
from statedump.mcpserver.tools import summary

SCHEME = "statedump://"


def state_uri(session: str) -> str:
    return f"{SCHEME}sessions/{session}/state"


def record_uri(session: str, record_id: str) -> str:
    return f"{SCHEME}sessions/{session}/records/{record_id}"


def register(app: MCPServer[Any], store: Store) -> None:
    """Add the resources to `app`."""

    @app.resource(f"{SCHEME}sessions", name="sessions", mime_type="application/json")
    @resource_errors
    def sessions() -> str:
        """Every session, with the URIs of its state document and record list."""
        rows = [
            {"id": sid, "title": store.load_session(sid).title, "state": state_uri(sid), "records": f"{SCHEME}sessions/{sid}/records"}
            for sid in store.session_ids()
        ]
        return to_json(rows)

    @app.resource(f"{SCHEME}sessions/{{session}}/state", name="state-document", mime_type="text/markdown")
    @resource_errors
    def state(session: str) -> str:
        """The session's state document (Markdown)."""
        from statedump.core.render import render_markdown

        return render_markdown(store.load(store.pick_session(session)))

    @app.resource(f"{SCHEME}sessions/{{session}}/records", name="records", mime_type="application/json")
    @resource_errors
    def records(session: str) -> str:
        """Every record of the session (id, kind, status, title, uri), in the order they happened."""
        sid = store.pick_session(session)
        rows = [{**summary(r), "uri": record_uri(sid, r.id)} for r in store.load(sid).records]
        return to_json(rows)

    @app.resource(f"{SCHEME}schema/{{kind}}", name="kind-schema", mime_type="application/json")
    @resource_errors
    def kind_schema(kind: str) -> str:
        """Every field of a record kind (goal, decision, ...) with its description: what
        `add_record` accepts for that kind."""
        from statedump.mcpserver.kinds import describe

        return to_json(describe(kind))

    @app.resource(f"{SCHEME}sessions/{{session}}/records/{{record_id}}", name="record", mime_type="application/yaml")
    @resource_errors
    def record(session: str, record_id: str) -> str:
        """One record as its YAML file."""
        return codec.dump_record(store.get(store.pick_session(session), record_id))
