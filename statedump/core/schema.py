"""JSON Schemas generated from the models: one per record kind, plus the session."""

from __future__ import annotations

import json
import re
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


def _nested() -> dict[str, type[Model]]:
    """The models records hold inside them, by the name `schema --show` takes."""
    from statedump.models import Alternative, Enforcement, Links, Metric, Tradeoff

    return {"metric": Metric, "alternative": Alternative, "tradeoff": Tradeoff, "enforcement": Enforcement, "links": Links}


def _describable() -> dict[str, type[Model]]:
    return {"session": Session, **KINDS, **_nested()}


def describe_fields(kind: str) -> str:
    """A kind's fields (or a nested type's: metric, alternative, tradeoff, enforcement) as a
    readable table: name, type, required, what it holds."""
    from statedump.core.errors import StatedumpError
    from statedump.models import field_order

    models = _describable()
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
    nested = sorted({name for name, sub in _nested().items() if name != "links" and f"#/$defs/{sub.__name__}" in json.dumps(props)})
    if nested:
        lines += ["", "Nested: " + ", ".join(f"`statedump schema --show {n}`" for n in nested)]
    return "\n".join(lines) + "\n"


_EXAMPLE = re.compile(r"e\.g\. `([^`]+)`")


def _example(name: str, prop: dict[str, Any]) -> str:
    """An example value for a template: the one the field's docstring gives, else a placeholder."""
    found = _EXAMPLE.search(prop.get("description") or "")
    if found:
        return found.group(1)
    kinds = {p.get("type") for p in [prop, *prop.get("anyOf", [])]}
    if kinds & {"number", "integer"}:
        return "0"
    return f"<{name}>"


def _commented_model(sub: dict[str, Any], indent: str, first: str) -> list[str]:
    """One example item of a nested model, every line commented, each field with its doc."""
    props = sub.get("properties", {})
    required = set(sub.get("required", []))
    rows = []
    for n, (name, prop) in enumerate(props.items()):
        lead = first if n == 0 else indent
        doc = (prop.get("description") or "").split("\n")[0]
        rows.append((f"#{lead}{name}: {_example(name, prop)}", ("required. " if name in required else "") + doc))
    width = max(len(r[0]) for r in rows)
    return [f"{code:<{width}}  # {doc}".rstrip() for code, doc in rows]


def record_template(kind: str) -> str:
    """The text `statedump add KIND` opens in $EDITOR: every field of the kind with what it
    holds, its allowed values and whether it is required; a commented example of each nested
    item (a metric, an alternative, a trade-off, an enforcement); links and tags."""
    from statedump.models import RELATIONS, field_order

    cls = KINDS[kind]
    schema = json_schema(cls)
    defs = schema.get("$defs", {})
    props = schema["properties"]
    required = [n for n in schema.get("required", []) if n not in ("id", "kind", "status")]
    lines = [
        f"# New {kind}: {(cls.__doc__ or '').strip().splitlines()[0]}",
        "# Fill in the fields, save and quit. Lines starting with # are ignored; an empty file cancels.",
        f"# Required: {', '.join(required)}. Uncomment (remove the leading #) a field to set it.",
        f"# `statedump schema --show {kind}` describes every field.",
        f"kind: {kind}",
    ]
    for name in field_order(cls):
        prop = props.get(name)
        if name == "kind" or prop is None:
            continue
        doc = (prop.get("description") or "").split("\n")[0]
        ref = next((str(p["$ref"]) for p in [prop, prop.get("items", {})] if "$ref" in p), None)
        sub = defs.get(ref.rsplit("/", 1)[-1]) if ref else None
        lines.append("")
        if name == "status":
            allowed = " | ".join(cls.STATUSES)
            lines += [f"# status: one of {allowed}. {doc}", f"status: {cls.model_fields['status'].default}"]
        elif name in required:
            lines += [f"# {name} (required, {_type_name(prop)}): {doc}", f"{name}: "]
        elif name == "links":
            lines.append("# links: typed links to other records of this session, by id (each must exist):")
            lines.append("#links:")
            rows = [(f"#  {rel}: [<id>]", (defs["Links"]["properties"][rel].get("description") or "").split("\n")[0]) for rel in RELATIONS]
            width = max(len(r[0]) for r in rows)
            lines += [f"{code:<{width}}  # {text}" for code, text in rows]
        elif name == "body":
            lines += [f"# body (Markdown): {doc}", "#body: |", "#  <text>"]
        elif sub is not None and prop.get("type") == "array":
            item = sub.get("description") or ""
            lines += [f"# {name} (a list; `statedump schema --show {ref.rsplit('/', 1)[-1].lower()}`): {doc}", f"# One item: {item}"]  # type: ignore[union-attr]
            lines += [f"#{name}:", *_commented_model(sub, "  ", "- ")]
        elif prop.get("type") == "array":
            lines += [f"# {name} (a list): {doc}", f"#{name}: [{_example(name, prop.get('items', {}))}]"]
        elif prop.get("type") == "object":
            lines += [f"# {name} (a mapping of names to text): {doc}", f"#{name}:", "#  <name>: <value>"]
        else:
            extra = f" {' | '.join(str(v) for v in prop['enum'])}." if "enum" in prop else ""
            default = " Default: made from the title." if name == "id" else (" Default: now." if name == "at" else "")
            lines += [f"# {name} ({_type_name(prop)}):{extra} {doc}{default}", f"#{name}: "]
    return "\n".join(lines) + "\n"
