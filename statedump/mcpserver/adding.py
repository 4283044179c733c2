"""One `add_<kind>` tool per record kind, whose parameters are that kind's fields.

The advertised input schema is the kind's own JSON Schema (the same one `schemas/`
publishes), so an agent sees each field with its description and closed status set.
The SDK is deliberately not asked to validate the arguments: `draft.build` does, so a
bad record is refused with exactly the message the CLI prints.
"""

from __future__ import annotations

import contextlib
import json
from typing import Any

from mcp.server.mcpserver.tools import Tool
from mcp.server.mcpserver.utilities.func_metadata import ArgModelBase, FuncMetadata
from mcp_types import ToolAnnotations
from pydantic import ConfigDict

from statedump.core.fielddocs import json_schema
from statedump.core.render.json import plain
from statedump.core.store.store import Store
from statedump.mcpserver.errors import tool_errors
from statedump.mcpserver.tools import compact
from statedump.models import KINDS
from statedump.services.records import build

# Fields the server fills in: the kind is the tool's, an id is made from the title.
_OPTIONAL = {"id", "status", "at"}
SESSION_PARAM = {
    "type": "string",
    "description": "Session id (default: the store's only or most recently started active session).",
}


class _AnyArguments(ArgModelBase):
    """Accepts any arguments and hands them over as one mapping."""

    model_config = ConfigDict(extra="allow", arbitrary_types_allowed=True)

    def model_dump_one_level(self) -> dict[str, Any]:
        return {"arguments": dict(self.model_extra or {})}


def _inline(node: Any, defs: dict[str, Any]) -> Any:
    # Some clients do not follow `$ref`; the models are not recursive, so each one is
    # replaced by its definition and the schema stands alone.
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            extra = {k: v for k, v in node.items() if k != "$ref"}
            return {**_inline(defs[ref.removeprefix("#/$defs/")], defs), **extra}
        return {k: _inline(v, defs) for k, v in node.items()}
    if isinstance(node, list):
        return [_inline(v, defs) for v in node]
    return node


def input_schema(kind: str) -> dict[str, Any]:
    """The JSON Schema of `add_<kind>`: the kind's fields, minus `kind`, plus `session`."""
    schema = json_schema(KINDS[kind])
    schema = _inline({k: v for k, v in schema.items() if k != "$defs"}, schema.get("$defs", {}))
    props = {name: prop for name, prop in schema["properties"].items() if name != "kind"}
    props["id"] = {**props["id"], "description": props["id"].get("description", "") + " Default: made from the title."}
    props["session"] = SESSION_PARAM
    out: dict[str, Any] = {
        "type": "object",
        "properties": props,
        "required": [n for n in schema.get("required", []) if n in props and n not in _OPTIONAL],
        "additionalProperties": False,
    }
    return out


def _structured_fields(schema: dict[str, Any]) -> set[str]:
    """Fields that hold lists or mappings (some clients send those as JSON text)."""
    out = set()
    for name, prop in schema["properties"].items():
        shapes = [prop, *prop.get("anyOf", [])]
        if any(s.get("type") in ("array", "object") or "$ref" in s for s in shapes):
            out.add(name)
    return out


def _decode_json_text(arguments: dict[str, Any], structured: set[str]) -> dict[str, Any]:
    out = dict(arguments)
    for name in structured & out.keys():
        value = out[name]
        if isinstance(value, str) and value.lstrip()[:1] in ("[", "{"):
            # Text that is not JSON stays text, so validation names the field.
            with contextlib.suppress(ValueError):
                out[name] = json.loads(value)
    return out


def add_record(store: Store, kind: str, arguments: dict[str, Any], structured: set[str]) -> dict[str, Any]:
    """Validate `arguments` as a record of `kind`, add it to the session and commit it."""
    data = _decode_json_text(arguments, structured)
    session = data.pop("session", None)
    sid = store.pick_session(session if isinstance(session, str) else None)
    record, made_up = build(kind, base=data, where="arguments")
    record, sha = store.add(sid, record, unique=made_up)
    return {"commit": sha, "session": sid, "record": compact(plain(record))}


def _tool_for(store: Store, kind: str) -> Tool:
    schema = input_schema(kind)
    structured = _structured_fields(schema)

    @tool_errors
    def run(arguments: dict[str, Any]) -> dict[str, Any]:
        return add_record(store, kind, arguments, structured)

    doc = (KINDS[kind].__doc__ or "").strip()
    return Tool(
        fn=run,
        name=f"add_{kind}",
        title=f"Add a {kind}",
        description=(
            f"Record a {kind} in the session the moment you learn it: {doc} "
            "The record is validated, secrets in it are redacted, and it is committed alone. "
            "Link it to other records by id through `links` (they must exist). "
            "Returns the stored record and its commit."
        ),
        parameters=schema,
        fn_metadata=FuncMetadata(arg_model=_AnyArguments),
        is_async=False,
        annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=False),
    )


def add_tools(store: Store) -> list[Tool]:
    """An `add_<kind>` tool for every record kind."""
    return [_tool_for(store, kind) for kind in KINDS]
