"""JSON Schemas generated from the models: one per record kind, plus the session."""

from __future__ import annotations

import json
from pathlib import Path

from statedump.models import KINDS, Session
from statedump.models.base import Model

SCHEMA_BASE = "https://statedump.dev/schemas/"


def schema_texts() -> dict[str, str]:
    """File name -> JSON text, for every schema statedump publishes."""
    models: dict[str, type[Model]] = {"session": Session, **KINDS}
    out = {}
    for name, cls in models.items():
        schema = cls.model_json_schema(mode="validation")
        schema = {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": f"{SCHEMA_BASE}{name}.schema.json", **schema}
        out[f"{name}.schema.json"] = json.dumps(schema, indent=2, ensure_ascii=False, sort_keys=False) + "\n"
    return out


def write_schemas(folder: Path) -> list[Path]:
    """Write every schema into `folder`; returns the paths written."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, text in schema_texts().items():
        path = folder / name
        path.write_text(text, encoding="utf-8")
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
