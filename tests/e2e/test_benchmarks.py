"""The benchmark runner stays runnable: `python -m benchmarks --quick --json` reports every case.

The quick run checks the runner, not the targets (those are judged by the full run,
see docs/performance.md). The generator is checked for what the cases rely on: real
commits with statedump's trailers, and files statedump reads back as its own.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from helpers import ROOT, git

from benchmarks import cases, generate
from statedump.core import codec
from statedump.core.store.store import Store


def test_quick_run_reports_every_case_as_json(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks", "--quick", "--json", "--only", *cases.CASES, "--workdir", str(tmp_path / "work")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["quick"] is True
    rows = {row["case"]: row for row in report["cases"]}
    assert set(rows) == {name for names in cases.TARGETS.values() for name in names}
    for name, row in rows.items():
        assert {"figure", "baseline", "ratio", "target"} <= set(row), name
        if row["status"] == "ok":
            assert row["figure"] > 0 and row["baseline"] > 0, name
            assert abs(row["ratio"] - row["figure"] / row["baseline"]) < 1e-9, name
            assert row["target"] and isinstance(row["passed"], bool), name
        else:
            # Only code that is not written yet may be skipped; a broken case is a failure.
            assert row["status"].startswith("not available"), (name, row["status"])
    for always in ("start-help", "start-render", "render", "add-depth", "add-vs-git"):
        assert rows[always]["status"] == "ok", rows[always]
    # The table went to stderr, so stdout is the JSON alone.
    assert "PASS" in done.stderr or "MISS" in done.stderr


def test_generated_store_has_real_commits_with_trailers(tmp_path: Path) -> None:
    built = generate.build_store(tmp_path / "s", 40)
    assert int(git(built.root, "rev-list", "--count", "HEAD")) == 42
    assert git(built.root, "status", "--porcelain") == ""
    assert set(built.ids) == {"goal", *generate.MIX}
    record_id = built.ids["decision"][0]
    trailers = git(
        built.root, "log", "-1", "--format=%(trailers:key=Statedump-Record,valueonly)", "--", f"sessions/bench/decision/{record_id}.yaml"
    )
    assert trailers.strip() == f"decision/{record_id}"
    state = Store(built.root).load(built.session)
    assert len(state.records) == 40 and not state.dangling()
    # Every file is byte for byte what statedump writes for that record.
    for record in state.records[:10]:
        path = built.root / "sessions" / "bench" / record.kind / f"{record.id}.yaml"
        assert path.read_text() == codec.dump_record(record)


def test_transcript_is_claude_code_jsonl(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    size = generate.transcript(path, 0.2)
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert size == path.stat().st_size >= 0.2 * 1024 * 1024
    assert lines[0]["type"] == "summary"
    types = {line["type"] for line in lines}
    assert {"user", "assistant", "system"} <= types
    assistant = [line for line in lines if line["type"] == "assistant"]
    assert all({"uuid", "parentUuid", "sessionId", "timestamp"} <= set(line) for line in assistant)
    assert {b["type"] for line in assistant for b in line["message"]["content"]} == {"thinking", "text", "tool_use"}
    # A checkpoint: an empty user turn, then a state dump.
    empty = next(i for i, line in enumerate(lines) if line["type"] == "user" and line["message"]["content"] == "")
    assert lines[empty + 1]["message"]["content"][0]["text"].startswith("## Goal")
