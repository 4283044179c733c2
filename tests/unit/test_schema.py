"""JSON Schemas: generated from the models, kept fresh, and valid for every example file."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
import yaml
from helpers import ROOT

from statedump.core.schema import schema_texts, stale_schemas
from statedump.services.demo import REPLAY_FILE

EXAMPLE = ROOT / "sessions" / "qwen35-397b-a17b-nvfp4"


def test_schemas_in_the_repository_are_fresh() -> None:
    r = subprocess.run(
        [sys.executable, "-m", "statedump", "schema", "--check", "--dir", str(ROOT / "schemas")], capture_output=True, text=True
    )
    assert r.returncode == 0, r.stderr


def test_schema_check_fails_when_stale(tmp_path: Path) -> None:
    folder = tmp_path / "schemas"
    r = subprocess.run([sys.executable, "-m", "statedump", "schema", "--dir", str(folder)], capture_output=True, text=True)
    assert r.returncode == 0
    assert stale_schemas(folder) == []
    (folder / "decision.schema.json").write_text("{}")
    r = subprocess.run([sys.executable, "-m", "statedump", "schema", "--check", "--dir", str(folder)], capture_output=True, text=True)
    assert r.returncode == 1 and "decision.schema.json" in r.stderr


def test_one_schema_per_kind_plus_session() -> None:
    assert len(schema_texts()) == 12
    decision = json.loads(schema_texts()["decision.schema.json"])
    assert decision["additionalProperties"] is False
    assert set(decision["properties"]["status"]["enum"]) == {"proposed", "accepted", "superseded", "rejected"}
    assert "The user" not in decision["properties"]["choice"].get("description", "x")
    assert decision["properties"]["choice"]["description"] == "What was chosen."


# The session file and the record files; replay.yaml (the demo's history, not a record) is
# checked against the models by tests/cli/test_demo.py.
EXAMPLE_FILES = sorted(p for p in EXAMPLE.rglob("*.yaml") if p.name != REPLAY_FILE)


@pytest.mark.parametrize("path", EXAMPLE_FILES, ids=lambda p: str(p.relative_to(EXAMPLE)))
def test_example_files_validate_with_jsonschema(path: Path) -> None:
    kind = "session" if path.name == "session.yaml" else path.parent.name
    schema = json.loads((ROOT / "schemas" / f"{kind}.schema.json").read_text())
    data = yaml.safe_load(path.read_text())
    data = json.loads(json.dumps(data, default=lambda v: v.isoformat().replace("+00:00", "Z")))
    jsonschema.Draft202012Validator(schema, format_checker=jsonschema.FormatChecker()).validate(data)


def test_jsonschema_refuses_what_the_models_refuse() -> None:
    schema = json.loads(schema_texts()["goal.schema.json"])
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"id": "g", "kind": "goal", "title": "t", "status": "finished"}, schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"id": "g", "kind": "goal", "title": "t", "status": "active", "extra": 1}, schema)
