"""JSON Schemas generated from the models: one per record kind, plus the session."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from statedump.core.fielddocs import json_schema
from statedump.models import KINDS, Session
from statedump.models.base import Model

SCHEMA_BASE = "https://statedump.dev/schemas/"


def schema_texts() -> dict[str, str]:
    """File name -> JSON text, for every schema statedump publishes."""
    models: dict[str, type[Model]] = {"session": Session, **KINDS}
    out = {}
    for name, cls in models.items():
        schema = json_schema(cls)
        schema = {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": f"{SCHEMA_BASE}{name}.schema.json", **schema}
        out[f"{name}.schema.json"] = json.dumps(schema, indent=2, ensure_ascii=False, sort_keys=False) + "\n"
    return out


def write_schemas(folder: Path) -> list[Path]:
    """Write every schema into `folder`; returns the paths written."""
    from statedump.core.output import make_folder, write_output

    make_folder(folder)
    paths = []
    for name, text in schema_texts().items():
        path = folder / name
        write_output(path, text)
        paths.append(path)
    return paths


def stale_schemas(folder: Path) -> list[str]:
    """Names of schema files in `folder` that are missing or differ from the models."""
    stale = []
    for name, text in schema_texts().items():
        path = folder / name
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            stale.append(name)
    return stale


def _type_name(prop: dict[str, Any]) -> str:
    if "enum" in prop:
        return " | ".join(str(v) for v in prop["enum"])
    if "const" in prop:
        return str(prop["const"])
    if "anyOf" in prop:
        return " | ".join(_type_name(p) for p in prop["anyOf"] if p.get("type") != "null")
    if "$ref" in prop:
        return str(prop["$ref"]).rsplit("/", 1)[-1]
    kind = prop.get("type", "any")
    if kind == "string" and prop.get("format") == "date-time":
        return "date and time"
    if kind == "array":
        return f"list of {_type_name(prop.get('items', {}))}"
    if kind == "object":
        return "mapping"
    return {"string": "text", "integer": "whole number", "number": "number", "boolean": "true/false"}.get(str(kind), str(kind))


def describe_fields(kind: str) -> str:
    """A kind's fields as a readable table: name, type, required, what it holds."""
    from statedump.core.errors import StatedumpError
    from statedump.models import field_order

    models: dict[str, type[Model]] = {"session": Session, **KINDS}
    if kind not in models:
        raise StatedumpError(f"unknown kind {kind!r}", where="--show", hint=f"use one of: {', '.join(models)}")
    cls = models[kind]
    schema = json_schema(cls)
    props = schema["properties"]
    required = set(schema.get("required", []))
    order = field_order(KINDS[kind]) if kind in KINDS else list(props)
    rows = [
        (name, _type_name(props[name]), "required" if name in required else "", (props[name].get("description") or "").split("\n")[0])
        for name in order
        if name in props
    ]
    width = [max(len(r[i]) for r in rows) for i in range(3)]
    lines = [f"{kind}: {(cls.__doc__ or '').strip().splitlines()[0]}", ""]
    lines += [f"  {n:<{width[0]}}  {t:<{width[1]}}  {r:<{width[2]}}  {d}".rstrip() for n, t, r, d in rows]
    return "\n".join(lines) + "\n"
