"""What the server says about the record kinds: a compact outline for the tool list, and each
kind's whole field documentation on request.

The tool list is sent to the model on every turn, so it carries one `add_record` whose input
schema names only the fields every kind shares, and a one-line outline of each kind (its
statuses and fields, required ones starred). The whole schema of a kind, every field with its
description, is the `describe_kind` tool and the resource `statedump://schema/{kind}`; both
are generated from the same pydantic models as `schemas/`. Validation is not in the schema
but in `services.records.build`, so it is as strict as the CLI's whatever the schema says.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from statedump.core.fielddocs import json_schema
from statedump.models import KINDS, RELATIONS, RecordBase

SESSION_PARAM = {"type": "string", "description": "Session id (default: the store's only or most recently started active session)."}
# Fields the server fills in when they are left out.
_OPTIONAL = {"id", "status", "at"}
_SHARED = set(RecordBase.model_fields) - {"kind"}


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


def _untitled(node: Any) -> Any:
    # pydantic titles every schema with its field name again ("title": "Prompted By"): noise.
    if isinstance(node, list):
        return [_untitled(v) for v in node]
    if not isinstance(node, dict):
        return node
    out = {}
    for key, value in node.items():
        if key == "title" and isinstance(value, str):
            continue
        if key == "properties" and isinstance(value, dict):
            out[key] = {name: _untitled(prop) for name, prop in value.items()}
        else:
            out[key] = _untitled(value)
    return out


@cache
def kind_schema(kind: str) -> dict[str, Any]:
    """The whole input schema of a record of `kind` as `add_record` takes it: the kind's fields
    with their descriptions and closed sets, `id` and `status` optional, plus `session`."""
    schema = json_schema(KINDS[kind])
    schema = _untitled(_inline({k: v for k, v in schema.items() if k != "$defs"}, schema.get("$defs", {})))
    props = {name: prop for name, prop in schema["properties"].items() if name != "kind"}
    props["id"] = {**props["id"], "description": props["id"].get("description", "") + " Default: made from the title."}
    props["session"] = SESSION_PARAM
    return {
        "type": "object",
        "description": (KINDS[kind].__doc__ or "").strip(),
        "properties": props,
        "required": [n for n in schema.get("required", []) if n in props and n not in _OPTIONAL],
        "additionalProperties": False,
    }


def _shape(prop: dict[str, Any]) -> str:
    """`[]` for a list, `[{a*, b}]` for a list of objects, `{}` for a mapping, `=a|b` for a
    closed set, else nothing."""
    shapes = [prop, *prop.get("anyOf", [])]
    for s in shapes:
        if s.get("enum"):
            return "=" + "|".join(str(v) for v in s["enum"])
        if s.get("type") == "array":
            items = s.get("items", {})
            return f"[{{{_fields(items)}}}]" if items.get("properties") else "[]"
        if s.get("type") == "object":
            return f"{{{_fields(s)}}}" if s.get("properties") else "{}"
    return ""


def _fields(schema: dict[str, Any], skip: frozenset[str] = frozenset()) -> str:
    required = set(schema.get("required", []))
    return ", ".join(
        f"{name}{'*' if name in required else ''}{_shape(prop)}" for name, prop in schema["properties"].items() if name not in skip
    )


@cache
def outline(kind: str) -> str:
    """One line for the tool list: the kind, its statuses (the default first) and its own fields."""
    cls = KINDS[kind]
    default = cls.model_fields["status"].default
    statuses = "|".join([default, *(s for s in cls.STATUSES if s != default)])
    own = _fields(kind_schema(kind), frozenset(_SHARED | {"session"}))
    return f"{kind} ({statuses}): {own}" if own else f"{kind} ({statuses})"


def add_schema() -> dict[str, Any]:
    """The compact input schema of `add_record`: the kind and the fields every kind shares; the
    kind's own fields go beside them (see the outline in the tool's description)."""
    return {
        "type": "object",
        "properties": {
            "kind": {"type": "string", "enum": list(KINDS)},
            "title": {"type": "string", "description": "One line that says what the record is."},
            "id": {"type": "string", "description": "Lowercase slug, unique in the session (default: made from the title)."},
            "status": {"type": "string", "description": "From the kind's set (default: the first listed)."},
            "source": {"type": "string", "description": "Where it came from, e.g. 'msg 6007'."},
            "body": {"type": "string", "description": "Longer Markdown text."},
            "tags": {"type": "array", "items": {"type": "string"}},
            "links": {
                "type": "object",
                "description": f"Relation -> ids of existing records; relations: {', '.join(RELATIONS)}.",
                "additionalProperties": {"type": "array", "items": {"type": "string"}},
            },
            "session": SESSION_PARAM,
        },
        "required": ["kind", "title"],
        "additionalProperties": True,
    }


def add_description() -> str:
    """The description of `add_record`, with the outline of every kind."""
    lines = "\n".join(f"- {outline(kind)}" for kind in KINDS)
    return (
        "Record one thing the moment you learn it: give `kind`, `title` and that kind's fields "
        "(* = required) beside them. The record is validated, secrets are redacted, and it is "
        "committed alone; links must name existing records. `describe_kind` gives every field "
        f"with its description.\n{lines}"
    )


def describe(kind: str) -> dict[str, Any]:
    """Everything about one kind: what it is for, its statuses, and its whole input schema."""
    if kind not in KINDS:
        from statedump.core.errors import NotFound

        raise NotFound(f"unknown kind {kind!r}", where="kind", hint=f"use one of: {', '.join(KINDS)}")
    cls = KINDS[kind]
    return {"kind": kind, "statuses": list(cls.STATUSES), "default_status": cls.model_fields["status"].default, "schema": kind_schema(kind)}
