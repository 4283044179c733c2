"""The importers on real public files: tests/corpus_real scored by benchmarks/corpus.py.

Each source is imported into a fresh store through the CLI (in this process) twice and read back
with `list --json`; the hand-written expected files say which facts should come out. The scores
must not fall under tests/corpus_real/scores.yaml, a ratchet that only rises:
`STATEDUMP_UPDATE_SCORES=1 pytest tests/cli/test_corpus_real.py` raises it to the current scores
(docs/import/quality.md).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
import yaml
from helpers import CORPUS_REAL

from benchmarks import corpus as scorer


def test_the_scorer_reads_the_real_corpus() -> None:
    plan = scorer.load_expected()
    assert scorer.CORPUS == CORPUS_REAL
    assert len(plan) >= 57
    for expected in plan:
        assert (CORPUS_REAL / expected.source).is_file(), expected.name
        assert expected.facts, expected.name


def test_every_match_string_occurs_in_its_source() -> None:
    # A match the source does not hold can never be captured: the expected file is wrong.
    wrong = {e.name: missing for e in scorer.load_expected() if (missing := scorer.not_in_source(e))}
    assert not wrong, wrong


def test_real_corpus_imports_cleanly_and_keeps_the_ratchet() -> None:
    score = scorer.score_corpus()
    if os.environ.get("STATEDUMP_UPDATE_SCORES") == "1":
        scorer.write_scores(score)
    supported = [f for f in score.files if f.supported]
    failures = {
        "tracebacks": [f"{f.source}: {f.problems}" for f in score.files if f.traceback],
        "--json that does not parse": [f"{f.source}: {f.problems}" for f in score.files if not f.json_ok],
        "a second import that adds something": [f"{f.source}: {f.problems}" for f in supported if f.idempotent is False],
        "under the ratchet": scorer.below(score, scorer.read_scores()),
    }
    failures = {what: found for what, found in failures.items() if found}
    assert not failures, "\n".join(f"{what}:\n  " + "\n  ".join(found) for what, found in failures.items()) + "\n\n" + scorer.table(score)
    assert {f.source for f in score.files} == {e.source for e in scorer.load_expected()}


def test_the_ratchet_covers_every_file_and_never_falls(tmp_path: Path) -> None:
    recorded = scorer.read_scores()
    sources = {e.source for e in scorer.load_expected()}
    assert set(recorded["files"]) == sources, "run STATEDUMP_UPDATE_SCORES=1 pytest tests/cli/test_corpus_real.py"
    # Writing keeps the higher of the recorded and the current figure, file by file.
    path = tmp_path / "scores.yaml"
    path.write_text(yaml.safe_dump({"overall": 0.5, "files": {"a": 0.8, "b": 0.2}}))
    files = [scorer.FileScore("a", "shell", 10, captured=5), scorer.FileScore("b", "shell", 3, captured=2)]
    written = scorer.write_scores(scorer.CorpusScore(files), path)
    assert written == {"overall": 0.5384, "files": {"a": 0.8, "b": 0.6666}}
    assert scorer.read_scores(path) == written
    # A score above its minimum never fails; one below does, and says which.
    better = scorer.CorpusScore([scorer.FileScore("a", "shell", 10, captured=10), scorer.FileScore("b", "shell", 3, captured=3)])
    assert scorer.below(better, written) == []
    same = scorer.CorpusScore(files)
    assert [line.split(":")[0] for line in scorer.below(same, written)] == ["a"]  # a stays at its old 80%
    worse = scorer.CorpusScore([scorer.FileScore("a", "shell", 10, captured=4), scorer.FileScore("b", "shell", 3, captured=2)])
    assert [line.split(":")[0] for line in scorer.below(worse, written)] == ["overall", "a"]


# -- the rules, on a tiny synthetic plan --------------------------------------------------


def _record(kind: str, status: str, title: str, **fields: Any) -> dict[str, Any]:
    return {"id": "r", "kind": kind, "status": status, "title": title, "source": "file.md", "links": {}, **fields}


def test_a_fact_needs_its_kind_its_status_and_its_text() -> None:
    bench = _record(
        "benchmark",
        "valid",
        "sglang bench_serving: random 1024/1024",
        metrics=[{"name": "output_throughput", "value": 199.36907134182283, "unit": "tok/s"}],
        environment={"VLLM_ATTENTION_BACKEND": "FLASH_ATTN"},
    )
    assert scorer.captures(scorer.Fact("benchmark", "valid", "199.3"), bench)  # a number as Python prints it
    assert scorer.captures(scorer.Fact("benchmark", "valid", "OUTPUT_THROUGHPUT"), bench)  # a nested name
    assert scorer.captures(scorer.Fact("benchmark", "valid", "vllm_attention_backend=flash_attn"), bench)  # KEY=value
    assert not scorer.captures(scorer.Fact("benchmark", "invalid", "199.3"), bench)  # wrong status
    assert not scorer.captures(scorer.Fact("discovery", "valid", "199.3"), bench)  # wrong kind
    command = _record("command", "current", "vllm serve", text="vllm  serve Qwen/Qwen3-8B\n  --port 8000", quote="  ")
    assert scorer.captures(scorer.Fact("command", "current", "qwen3-8b --port 8000"), command)  # white space folded
    # The bookkeeping fields are not text: the source file's name captures nothing.
    assert not scorer.captures(scorer.Fact("command", "current", "file.md"), command)


def test_junk_is_a_title_that_is_or_holds_the_junk() -> None:
    assert scorer.junk_hit("WHAT'S WORKING", "✅ WHAT\u2019S WORKING")
    assert scorer.junk_hit("Gaming Impact Assessment", "3. Gaming Impact Assessment")
    assert scorer.junk_hit("# Docker env", "Docker env")
    assert scorer.junk_hit("Expected Outcomes:", "Expected Outcomes")
    assert scorer.junk_hit("(name)", "(name)")
    assert scorer.junk_hit("Ok, so there's isn't much to see here", "Ok, so there's isn't much to see here, mostly one idea")
    assert scorer.junk_hit("inf", "inf")
    # One word is junk only as the whole title; a phrase not inside longer words.
    assert not scorer.junk_hit("inf", "vllm bench serve: facebook/opt-125m, concurrency 2, rate inf")
    assert not scorer.junk_hit("(name)", "Set the model name")
    assert not scorer.junk_hit("Current Work", "Current Workflow runs nightly")
    assert not scorer.junk_hit("Pending Tasks", "Deploy the server")


def test_scoring_a_synthetic_plan(tmp_path: Path) -> None:
    (tmp_path / "files").mkdir()
    (tmp_path / "files" / "vllm.service").write_text(
        "[Unit]\nDescription=vLLM\n\n[Service]\nExecStart=/usr/bin/vllm serve Qwen/Qwen3-8B --port 8000\n\n"
        "[Install]\nWantedBy=multi-user.target\n"
    )
    (tmp_path / "files" / "empty.sh").write_text("")
    (tmp_path / "files" / "later.json").write_text("{}")
    plan = [
        scorer.Expected(
            "expected/vllm.service.yaml",
            "files/vllm.service",
            "systemd",
            (
                scorer.Fact("command", "current", "--port 8000"),  # captured
                scorer.Fact("command", "failed", "--port 8000"),  # the wrong status: not counted
                scorer.Fact("command", "current", "--port 9000"),  # not in the file
            ),
            (),
        ),
        scorer.Expected("expected/empty.sh.yaml", "files/empty.sh", "shell", (scorer.Fact("command", "current", "x"),), ()),
        scorer.Expected("expected/later.json.yaml", "files/later.json", "a-format-to-come", (scorer.Fact("benchmark", "valid", "{}"),), ()),
    ]
    first = scorer.score_corpus(plan[:1], corpus=tmp_path)
    (unit,) = first.files
    assert unit.problems == [] and unit.idempotent is True and unit.records >= 1
    assert (unit.facts, unit.captured) == (3, 1)
    assert [m["match"] for m in unit.missed] == ["--port 8000", "--port 9000"]
    assert unit.not_in_source == ["--port 9000"]
    assert unit.junk == []
    # Now with the title of the record it made as junk.
    title = unit.titles[0]
    plan[0] = scorer.Expected(plan[0].name, plan[0].source, plan[0].format, plan[0].facts, (title,))
    score = scorer.score_corpus(plan, corpus=tmp_path)
    unit, empty, unsupported = score.files
    assert [j["junk"] for j in unit.junk] == [title] and score.junk == 1
    assert empty.failed and not empty.traceback and empty.problems[0].startswith("import: exit 2"), empty.problems
    assert empty.idempotent is None
    assert (unsupported.supported, unsupported.captured, unsupported.problems) == (False, 0, ["format not supported"])
    assert (score.facts, score.captured) == (5, 1)
    assert score.share == pytest.approx(0.2) and score.lowest == 0 and not score.passed
    table = scorer.table(score)
    assert "files/later.json    a-format-to-come" in table and "format not supported" in table
    assert "| `files/vllm.service` | systemd | 3 | 1 | 33% | 1 |" in scorer.markdown(score)
