"""Benchmark import: every SGLang layout, bench_one_batch_server, and vLLM results."""

from __future__ import annotations

import math
from datetime import UTC, datetime

from helpers import FIXTURES, Cli

from statedump.core.store.store import Store
from statedump.models import Benchmark
from statedump.services.ingest import read_plan


def _benchmarks(fmt: str, name: str) -> list[Benchmark]:
    plan = read_plan(fmt, FIXTURES / name)
    assert plan.skipped == []
    assert all(isinstance(r, Benchmark) for r in plan.records)
    return [r for r in plan.records if isinstance(r, Benchmark)]


def test_sglang_bench_serving_every_layout() -> None:
    older, current, refactored, trace = _benchmarks("sglang-bench", "sglang_bench_serving.jsonl")
    # Older layout: explicit keys, a numeric rate.
    assert older.concurrency == 1 and older.request_rate == 4.0
    assert older.metric("output_throughput") is not None and older.metric("output_throughput").unit == "tok/s"  # type: ignore[union-attr]
    assert older.metric("mean_ttft_ms").value == 61.3 and older.metric("mean_ttft_ms").unit == "ms"  # type: ignore[union-attr]
    assert older.metric("request_throughput").unit == "req/s"  # type: ignore[union-attr]
    assert older.metric("accept_length") is None  # null is left out, not recorded as a number
    assert older.workload == "dataset random, input len 1024, output len 1024, range ratio 1.0, 16 requests completed"
    # Current layout: bare Infinity and the server_info fingerprint.
    assert math.isinf(current.request_rate or 0) and current.concurrency == 1024
    assert current.environment["model_path"] == "nvidia/Qwen3.5-397B-A17B-NVFP4"
    assert current.environment["kv_cache_dtype"] == "bf16" and current.environment["tp_size"] == "8"
    assert current.environment["version"] == "0.5.6"
    assert current.metric("max_output_tokens_per_s").value == 2304.0  # type: ignore[union-attr]
    assert current.title == "sglang bench_serving: random 1024/1024, concurrency 1024, rate inf"
    # Refactored layout: total_input/total_output renamed; detail arrays ignored; "inf" as a string.
    assert math.isinf(refactored.request_rate or 0)
    assert refactored.metric("total_input_tokens").value == 228613  # type: ignore[union-attr]
    assert refactored.metric("total_output_tokens").value == 196220  # type: ignore[union-attr]
    assert refactored.metric("max_itl_ms") is not None and refactored.metric("input_lens") is None
    # A trace replay has no numeric rate; the tag says so. A nested details object is accepted.
    assert trace.request_rate is None and trace.environment["request_rate"] == "trace"
    assert trace.concurrency is None and trace.environment["tag"] == "mooncake"


def test_sglang_one_batch_server() -> None:
    old, new = _benchmarks("sglang-bench", "sglang_one_batch.jsonl")
    assert old.concurrency == 16 and [m.name for m in old.metrics] == ["latency", "output_throughput", "overall_throughput"]
    assert old.metric("latency").unit == "s"  # type: ignore[union-attr]
    assert new.environment == {"tool": "sglang.bench_one_batch_server", "run_name": "sm120-tp8"}
    assert new.metric("acc_length") is None  # -1 means unavailable
    assert new.metric("last_ttft").value == 2.1183 and new.metric("cache_hit_rate").unit == "ratio"  # type: ignore[union-attr]
    assert new.workload == "one batch of 64 requests, input len 2048, output len 256"


def test_vllm_single_result() -> None:
    (b,) = _benchmarks("vllm-bench", "vllm_bench_serve.json")
    assert math.isinf(b.request_rate or 0) and b.concurrency == 64
    assert b.at == datetime(2026, 3, 14, 15, 15, tzinfo=UTC)
    assert b.environment["model_id"] == "nvidia/Qwen3.5-397B-A17B-NVFP4" and b.environment["gpu"] == "RTX PRO 6000"
    assert b.metric("p99_ttft_ms").value == 590.3 and b.metric("total_token_throughput").unit == "tok/s"  # type: ignore[union-attr]
    assert b.metric("request_goodput") is None and b.metric("latencies") is None
    assert b.workload == "500 prompts, burstiness 1.0"


def test_vllm_appended_results() -> None:
    first, second = _benchmarks("vllm-bench", "vllm_bench_append.json")
    assert first.request_rate == 8.0 and first.concurrency is None
    assert first.metric("request_goodput").value == 5.5  # the old "request_goodput:" spelling  # type: ignore[union-attr]
    assert first.metric("p99.9_ttft_ms").unit == "ms" and first.metric("mean_e2el_ms") is not None  # type: ignore[union-attr]
    assert second.title == "c16 bench serve: m/a, concurrency 16, rate inf"
    assert second.metric("failed").value == 2  # type: ignore[union-attr]


def test_bench_import_is_idempotent(cli: Cli, store: Store) -> None:
    f = str(FIXTURES / "sglang_bench_serving.jsonl")
    assert "4 added" in cli("import", "sglang-bench", f).stdout
    assert "0 added, 0 changed, 4 unchanged" in cli("import", "sglang-bench", f).stdout
    shown = cli("show", "sglang-bench-ace101ac52").stdout
    assert "request_rate: .inf" in shown
