"""Benchmark import on the real result files of tests/corpus_real/files/bench: every fact the
hand-written expectations name is captured, failed runs are invalid, sweeps and repeats stay
apart, every metric is kept and the headline rule picks the right few."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
import yaml
from helpers import CORPUS_REAL, Cli

from statedump.core.render.headline import headline
from statedump.core.store.store import Store
from statedump.models import Benchmark, Command, Component, Discovery, File, RecordBase
from statedump.services.ingest import read_plan

BENCH = CORPUS_REAL / "files" / "bench"
EXPECTED = sorted((CORPUS_REAL / "expected" / "bench").glob("*.yaml"))


def _plan(fmt: str, name: str | Path) -> list[RecordBase]:
    plan = read_plan(fmt, BENCH / name if isinstance(name, str) else name)
    assert plan.skipped == []
    return plan.records


def _benchmarks(fmt: str, name: str | Path) -> list[Benchmark]:
    return [r for r in _plan(fmt, name) if isinstance(r, Benchmark)]


def _strict(text: str) -> Any:
    """JSON as any parser reads it: a bare Infinity or NaN (which Python accepts) fails."""

    def refuse(token: str) -> None:
        raise AssertionError(f"non-standard JSON token {token}")

    return json.loads(text, parse_constant=refuse)


def _names(b: Benchmark) -> list[str]:
    return [m.name for m in b.metrics]


def _value(b: Benchmark, name: str) -> float:
    m = b.metric(name)
    assert m is not None, f"{name} not in {_names(b)}"
    return m.value


# -- the corpus: every expected fact captured, no junk, list/show parse, a second import adds nothing --


@pytest.mark.parametrize("expected", EXPECTED, ids=[p.name.removesuffix(".yaml") for p in EXPECTED])
def test_real_file_facts_are_captured(expected: Path, cli: Cli) -> None:
    spec: dict[str, Any] = yaml.safe_load(expected.read_text(encoding="utf-8"))
    path = str(CORPUS_REAL / spec["source"])
    first = cli("import", spec["format"], path, "--json")
    assert first.exit_code == 0, first.output
    listed = _strict(cli("list", "--json").stdout)
    shown = []
    for item in listed:
        result = cli("show", item["id"], "--json")
        assert result.exit_code == 0, result.output
        shown.append(_strict(result.stdout))
    assert shown, "nothing imported"
    # Each fact is a record of its own: one record never answers for two facts.
    used: set[int] = set()
    for fact in spec["facts"]:
        match = str(fact["match"]).lower()
        found = next(
            (
                i
                for i, r in enumerate(shown)
                if i not in used and r["kind"] == fact["kind"] and r["status"] == fact["status"] and match in json.dumps(r).lower()
            ),
            None,
        )
        assert found is not None, f"no {fact['kind']} ({fact['status']}) matching {fact['match']!r}"
        used.add(found)
    titles = {r["title"].strip().lower() for r in shown}
    assert not titles & {str(j).lower() for j in spec.get("junk", [])}
    again = json.loads(cli("import", spec["format"], path, "--json").stdout)
    assert again["added"] == [] and again["changed"] == []


# -- failed runs --


def test_run_where_every_request_failed_is_invalid_with_its_failure_count() -> None:
    records = _plan("vllm-bench", "vllm_bench_serve_all_failed.json")
    (bench,) = [r for r in records if isinstance(r, Benchmark)]
    (found,) = [r for r in records if isinstance(r, Discovery)]
    assert bench.status == "invalid"
    assert _value(bench, "failed") == 8 and _value(bench, "completed") == 0
    # The zeros vLLM wrote for want of data are not measurements.
    assert bench.metric("mean_ttft_ms") is None and bench.metric("output_throughput") is None
    assert [m.name for m in headline(bench.metrics)] == ["failed"]
    assert found.status == "confirmed" and found.category == "finding"
    assert "all 8 requests failed" in found.title and "opt-125m" in found.title
    assert found.links.evidence == [bench.id]


def test_guidellm_run_with_only_errored_requests_is_invalid(tmp_path: Path) -> None:
    report = json.loads((BENCH / "guidellm_qwen3_4b_thinking_tp4_concurrent4.json").read_text(encoding="utf-8"))
    report["benchmarks"][0]["metrics"]["request_totals"] = {"successful": 0, "errored": 4, "incomplete": 0, "total": 4}
    (path := tmp_path / "errored.json").write_text(json.dumps(report), encoding="utf-8")
    records = _plan("guidellm", path)
    (bench,) = [r for r in records if isinstance(r, Benchmark)]
    assert bench.status == "invalid" and _value(bench, "failed") == 4
    assert any(isinstance(r, Discovery) and "all 4 requests failed" in r.title for r in records)


def test_completed_runs_are_valid() -> None:
    for fmt, name in (("vllm-bench", "vllm_bench_serve_opt125m_c2.json"), ("sglang-bench", "sglang_h200_llama405b_online.jsonl")):
        assert {b.status for b in _benchmarks(fmt, name)} == {"valid"}


# -- sweeps and repeats --


def test_sweep_results_keep_what_was_swept() -> None:
    first, second = _benchmarks("vllm-bench", "vllm_bench_sweep_max_num_seqs4_summary.json")
    assert first.id != second.id and first.title != second.title
    assert first.title.endswith("max_num_seqs 4, run 0") and second.title.endswith("max_num_seqs 4, run 1")
    assert first.environment["max_num_seqs"] == "4" and first.environment["run_number"] == "0"
    assert first.environment["tool"] == "vllm bench sweep" and "bench_sweep" in first.tags
    assert _value(first, "output_throughput") == pytest.approx(93.75, abs=0.01)
    assert _value(second, "output_throughput") == pytest.approx(199.37, abs=0.01)


def test_repeated_sglang_configuration_stays_two_records() -> None:
    runs = [b for b in _benchmarks("sglang-bench", "sglang_h200_llama33_70b_offline.jsonl") if "4096/1024" in b.title]
    assert len(runs) == 2 and runs[0].id != runs[1].id
    assert runs[1].title == runs[0].title + " (repeat 2)"
    assert [round(_value(b, "output_throughput"), 1) for b in runs] == [1655.0, 1652.9]


def test_the_same_line_twice_is_one_record(tmp_path: Path) -> None:
    line = (BENCH / "sglang_h200_deepseek_dp_mla.jsonl").read_text(encoding="utf-8").strip()
    (path := tmp_path / "twice.jsonl").write_text(f"{line}\n{line}\n", encoding="utf-8")
    (only,) = _benchmarks("sglang-bench", path)
    assert "repeat" not in only.title


# -- every layout of SGLang and vLLM --


def test_sglang_old_key_set_and_bare_infinity() -> None:
    first, second = _benchmarks("sglang-bench", "sglang_lora_single_request_old_keys.jsonl")
    assert first.concurrency is None and math.isinf(first.request_rate or 0)
    assert "dataset not recorded" in first.title and second.title.endswith("(repeat 2)")
    assert _value(first, "completed") == 1 and _value(first, "total_output_tokens_retokenized") == 3
    (deepseek,) = _benchmarks("sglang-bench", "sglang_h200_deepseek_dp_mla.jsonl")
    assert math.isinf(deepseek.request_rate or 0) and deepseek.title.startswith("sglang bench_serving: random 1/512")


def test_every_metric_is_kept() -> None:
    (bench,) = _benchmarks("vllm-bench", "vllm_bench_serve_opt125m_c2.json")
    raw = json.loads((BENCH / "vllm_bench_serve_opt125m_c2.json").read_text(encoding="utf-8"))
    settings = {"num_prompts", "burstiness", "max_concurrency"}
    numeric = {k for k, v in raw.items() if isinstance(v, int | float) and not isinstance(v, bool) and k not in settings}
    assert set(_names(bench)) == numeric
    assert {"duration", "completed", "failed", "std_ttft_ms", "p99_itl_ms"} <= numeric
    assert bench.metric("mean_ttft_ms").unit == "ms" and bench.metric("duration").unit == "s"  # type: ignore[union-attr]


def test_headline_of_real_results() -> None:
    (vllm,) = _benchmarks("vllm-bench", "vllm_bench_serve_opt125m_c2.json")
    assert [m.name for m in headline(vllm.metrics)] == ["output_throughput", "median_ttft_ms", "p99_ttft_ms", "median_itl_ms", "p99_itl_ms"]
    (sglang,) = _benchmarks("sglang-bench", "sglang_h200_deepseek_dp_mla.jsonl")
    # The old layout has medians but no p99: the headline is what there is.
    assert [m.name for m in headline(sglang.metrics)] == ["output_throughput", "median_ttft_ms", "median_itl_ms"]


# -- genai-perf, AIPerf, GuideLLM --


def test_genai_perf_profile_export() -> None:
    records = _plan("genai-perf", "genai_perf_gpt_oss_20b_profile_export.json")
    (bench,) = [r for r in records if isinstance(r, Benchmark)]
    assert bench.title == "genai-perf profile: openai/gpt-oss-20b, concurrency 1" and bench.concurrency == 1
    assert _value(bench, "output_throughput") == pytest.approx(12.0958, abs=1e-3) and bench.metric("output_throughput").unit == "tok/s"  # type: ignore[union-attr]
    assert _value(bench, "mean_ttft_ms") == pytest.approx(1524.63, abs=0.01)
    assert _value(bench, "median_ttft_ms") == pytest.approx(1416.93, abs=0.01)  # p50
    assert {"p1_ttft_ms", "std_itl_ms", "max_e2el_ms", "completed", "p99_output_sequence_length"} <= set(_names(bench))
    assert bench.metric("request_throughput").unit == "req/s"  # type: ignore[union-attr]
    assert len(headline(bench.metrics)) == 5
    assert bench.environment["endpoint_type"] == "chat" and bench.environment["tokenizer"] == "openai/gpt-oss-20b"
    (artifacts,) = [r for r in records if isinstance(r, File)]
    assert artifacts.path.endswith("benchmark_results/genai-perf/openai/gpt-oss-20b")


@pytest.mark.parametrize("fmt", ["genai-perf", "aiperf"])
def test_aiperf_profile_export(fmt: str) -> None:
    records = _plan(fmt, "aiperf_gpt_oss_20b_profile_export.json")
    (bench,) = [r for r in records if isinstance(r, Benchmark)]
    (command,) = [r for r in records if isinstance(r, Command)]
    assert bench.title == "aiperf profile: openai/gpt-oss-20b, concurrency 1" and bench.concurrency == 1
    assert bench.at is not None and bench.at.isoformat().startswith("2026-01-15T06:27:34")
    assert _value(bench, "completed") == 100 and _value(bench, "duration") == pytest.approx(519.598, abs=1e-3)
    assert _value(bench, "median_ttft_ms") == pytest.approx(82.04, abs=0.01)
    assert bench.environment["gpu"] == "NVIDIA A100-SXM4-80GB" and bench.environment["request_rate_mode"] == "concurrency_burst"
    assert command.text.startswith("aiperf profile -m") and bench.links.produced_by == [command.id]
    # The timestamps in nanoseconds say when, not how well.
    assert not any("timestamp" in name for name in _names(bench))


def test_aiperf_api_key_does_not_reach_the_store(cli: Cli, store: Store) -> None:
    assert cli("import", "aiperf", str(BENCH / "aiperf_gpt_oss_20b_profile_export.json")).exit_code == 0
    written = "".join(p.read_text(encoding="utf-8") for p in (store.root / "sessions").rglob("*.yaml"))
    assert "aiperf profile -m" in written and "test_key" not in written


def test_guidellm_reports() -> None:
    records = _plan("guidellm", "guidellm_qwen3_4b_thinking_tp4_concurrent4.json")
    (bench,) = [r for r in records if isinstance(r, Benchmark)]
    assert bench.title == "guidellm concurrent: Qwen/Qwen3-4B-Thinking-2507, concurrency 4" and bench.concurrency == 4
    assert (_value(bench, "completed"), _value(bench, "failed"), _value(bench, "incomplete")) == (4, 0, 0)
    assert _value(bench, "output_throughput") == pytest.approx(165.595, abs=1e-3)
    # GuideLLM's request latency is in seconds; the e2el metrics are in ms, as vLLM's.
    assert _value(bench, "mean_e2el_ms") == pytest.approx(24908.66, abs=0.01)
    assert {"p0.1_ttft_ms", "p1_ttft_ms", "p99.9_itl_ms", "std_tpot_ms", "total_output_tokens"} <= set(_names(bench))
    (component,) = [r for r in records if isinstance(r, Component)]
    assert (component.name, component.version) == ("guidellm", "0.5.0.dev0")
    (data,) = [r for r in records if isinstance(r, File)]
    assert data.path == "/root/aime_2024_v2.jsonl"
    (sync,) = _benchmarks("guidellm", "guidellm_qwen3_30b_a3b_tp4_synchronous.json")
    assert sync.concurrency == 1 and _value(sync, "completed") == 19
    assert _value(sync, "median_ttft_ms") == pytest.approx(58.1, abs=0.05)
    assert "max requests 30" in (sync.workload or "") and "max seconds 900" in (sync.workload or "")


@pytest.mark.parametrize(
    ("fmt", "name"),
    [
        ("genai-perf", "sglang_h200_deepseek_dp_mla.jsonl"),
        ("guidellm", "genai_perf_gpt_oss_20b_profile_export.json"),
        ("aiperf", "guidellm_qwen3_4b_thinking_tp4_concurrent4.json"),
        ("vllm-bench", "guidellm_qwen3_4b_thinking_tp4_concurrent4.json"),
    ],
)
def test_another_tools_file_is_one_line_and_exit_2(fmt: str, name: str, cli: Cli) -> None:
    result = cli("import", fmt, str(BENCH / name))
    assert result.exit_code == 2 and len(result.output.strip().splitlines()) == 1 and "Traceback" not in result.output
    assert name in result.output
