"""The tools that write records: add, update, remove, and change a status.

`add_record` takes the kind's fields beside `kind` (the tool list outlines them; see kinds.py),
so its arguments are not checked by the SDK against a model: `services.records.build` does, and
a bad record is refused with exactly the message the CLI prints, in the server's words.
"""

from __future__ import annotations

import contextlib
import json
from functools import cache
from typing import Annotated, Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.tools import Tool
from mcp.server.mcpserver.utilities.func_metadata import ArgModelBase, FuncMetadata
from mcp_types import ToolAnnotations
from pydantic import ConfigDict, Field

from statedump.core.errors import BadInput
from statedump.core.render.json import plain
from statedump.core.store.store import Store
from statedump.mcpserver import kinds
from statedump.mcpserver.errors import tool_errors
from statedump.mcpserver.tools import WRITE, SessionArg, compact
from statedump.models import KINDS

ADD = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=False)
REMOVE = ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=True, open_world_hint=False)
IdArg = Annotated[str, Field(description="The record id.")]
SourceArg = Annotated[str | None, Field(description="Why, or where the change came from (e.g. 'msg 6031'); goes into the commit.")]


class _AnyArguments(ArgModelBase):
    """Accepts any arguments and hands them over as one mapping."""

    model_config = ConfigDict(extra="allow", arbitrary_types_allowed=True)

    def model_dump_one_level(self) -> dict[str, Any]:
        return {"arguments": dict(self.model_extra or {})}


def session_of(value: Any) -> str | None:
    """The `session` argument, which must be an id (text) when it is given: a number or a list
    is refused rather than taken as "the default session"."""
    if value is None or isinstance(value, str):
        return value
    raise BadInput(f"must be a session id (text), not {json.dumps(value)[:40]}", where="session", hint="`list_sessions` lists them")


@cache
def _structured(kind: str) -> frozenset[str]:
    """Fields of `kind` that hold lists or mappings (some clients send those as JSON text)."""
    out = set()
    for name, prop in kinds.kind_schema(kind)["properties"].items():
        shapes = [prop, *prop.get("anyOf", [])]
        if any(s.get("type") in ("array", "object") for s in shapes):
            out.add(name)
    return frozenset(out)


def decode_json_text(kind: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """`arguments` with JSON text in a list or mapping field read as JSON."""
    out = dict(arguments)
    for name in _structured(kind) & out.keys():
        value = out[name]
        if isinstance(value, str) and value.lstrip()[:1] in ("[", "{"):
            # Text that is not JSON stays text, so validation names the field.
            with contextlib.suppress(ValueError, RecursionError):
                out[name] = json.loads(value)
    return out


def add_record(store: Store, arguments: dict[str, Any]) -> dict[str, Any]:
    """Validate `arguments` as a record of their `kind`, add it to the session and commit it."""
    from statedump.services.records import build

    data = dict(arguments)
    kind = data.pop("kind", None)
    if not isinstance(kind, str) or kind not in KINDS:
        shown = "missing" if kind is None else f"{json.dumps(kind)[:40]} is not a kind"
        raise BadInput(shown, where="kind", hint=f"use one of: {', '.join(KINDS)}")
    sid = store.pick_session(session_of(data.pop("session", None)))
    record, made_up = build(kind, base=decode_json_text(kind, data), where="arguments")
    record, sha = store.add(sid, record, unique=made_up)
    return {"commit": sha, "session": sid, "record": compact(plain(record))}


def add_tool(store: Store) -> Tool:
    """`add_record`: one tool for every kind, with the compact schema."""

    @tool_errors
    def run(arguments: dict[str, Any]) -> dict[str, Any]:
        return add_record(store, arguments)

    return Tool(
        fn=run,
        name="add_record",
        title="Add a record",
        description=kinds.add_description(),
        parameters=kinds.add_schema(),
        fn_metadata=FuncMetadata(arg_model=_AnyArguments),
        is_async=False,
        annotations=ADD,
    )


def _changed(before: Any, after: Any, keys: list[str]) -> list[str]:
    old, new = plain(before), plain(after)
    return sorted(k for k in keys if _at(old, k) != _at(new, k))


def _at(data: Any, key: str) -> Any:
    # `environment.tp` reaches into a mapping, as update_record's fields do.
    for part in key.split("."):
        data = data.get(part) if isinstance(data, dict) else None
    return data


def update_record(store: Store, session: str | None, record_id: str, fields: dict[str, Any], source: str | None) -> dict[str, Any]:
    """Set `fields` of an existing record (null clears one) and commit the change alone
    (`services.changes.update`: read, changed and written under the store's lock)."""
    from statedump.services.changes import update

    sid = store.pick_session(session)
    if not fields:
        raise BadInput('give the fields to change, e.g. {"body": "..."}', where="fields")
    found = store.find_path(sid, record_id)
    if found is not None:  # JSON text in a list or mapping field, read by the record's kind
        fields = decode_json_text(found.parent.name, fields)
    change = update(store, sid, record_id, fields, source, where="fields")
    return {
        "commit": change.commit,
        "session": sid,
        "changed": _changed(change.before, change.after, list(fields)),
        "record": compact(plain(change.after)),
    }


def remove_record(store: Store, session: str | None, record_id: str, force: bool, source: str | None) -> dict[str, Any]:
    """Delete a record in one commit (`services.changes.remove`); refused while other records
    link to it, unless `force` removes those links in the same commit."""
    from statedump.services.changes import remove

    sid = store.pick_session(session)
    change = remove(store, sid, record_id, force=force, source=source)
    assert change.before is not None
    gone = change.before
    return {
        "commit": change.commit,
        "session": sid,
        "removed": {"id": gone.id, "kind": gone.kind, "title": gone.title},
        "unlinked": change.also,
    }


def register(app: MCPServer[Any], store: Store) -> None:
    """Add `update_record`, `remove_record` and `set_status` to `app` (`add_record` is given
    to the server when it is made, see `add_tool`)."""
    from statedump.mcpserver.tools import change_status

    @app.tool(name="update_record", annotations=WRITE, structured_output=False)
    @tool_errors
    def update(
        id: IdArg,
        fields: Annotated[dict[str, Any], Field(description="Fields to change and their new values (null clears one); the id stays.")],
        source: SourceArg = None,
        session: SessionArg = None,
    ) -> dict[str, Any]:
        """Change fields of an existing record instead of adding a duplicate; validated like
        add_record and committed alone. Returns the record and which fields changed."""
        return update_record(store, session, id, fields, source)

    @app.tool(name="remove_record", annotations=REMOVE, structured_output=False)
    @tool_errors
    def remove(
        id: IdArg,
        force: Annotated[bool, Field(description="Also remove other records' links to it (else refused while they link).")] = False,
        source: SourceArg = None,
        session: SessionArg = None,
    ) -> dict[str, Any]:
        """Delete a record recorded by mistake, in one commit (history keeps it). To replace a
        record, add the new one and set this one's status instead."""
        return remove_record(store, session, id, force, source)

    @app.tool(annotations=WRITE, structured_output=False)
    @tool_errors
    def set_status(
        id: IdArg,
        status: Annotated[str, Field(description="The new status, from the record kind's closed set.")],
        source: SourceArg = None,
        session: SessionArg = None,
    ) -> dict[str, Any]:
        """Change a record's status, e.g. a task to done or a decision to accepted. One commit."""
        return change_status(store, session, id, status, source)
