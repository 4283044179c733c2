"""`statedump bench compare`: directions, tolerances, environment differences, exit statuses."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from helpers import Cli, golden, snapshot

from statedump.core.store.store import Store
from statedump.models import Benchmark
from statedump.services.bench.compare import direction, quantity

SESSION = "qwen35-397b-a17b-nvfp4"


def _bench_file(path: Path, metrics: dict[str, tuple[float, str]], **extra: object) -> str:
    data = {
        "id": path.stem,
        "title": f"run {path.stem}",
        "status": "valid",
        "workload": "random 1024/1024",
        "concurrency": 64,
        "metrics": [{"name": n, "value": v, "unit": u} for n, (v, u) in metrics.items()],
        "environment": {"sglang": "main", "kv-cache-dtype": "bf16"},
        **extra,
    }
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return str(path)


@pytest.fixture
def pair(tmp_path: Path) -> tuple[str, str]:
    base = _bench_file(
        tmp_path / "base.yaml",
        {"output_throughput": (2000, "tok/s"), "mean_ttft_ms": (200, "ms"), "mean_tpot_ms": (20, "ms"), "gpu_util": (90, "%")},
    )
    cand = _bench_file(
        tmp_path / "cand.yaml",
        {"output_throughput": (2060, "tok/s"), "mean_ttft_ms": (240, "ms"), "mean_tpot_ms": (18, "ms"), "gpu_util": (70, "%")},
        environment={"sglang": "v0.5.4", "kv-cache-dtype": "bf16", "cuda-graph-max-bs": "512"},
    )
    return base, cand


def test_demo_comparisongolden(demo_root: Path) -> None:
    r = Cli(demo_root)("bench", "compare", "bench-decode-c1", "bench-throughput-c1024")
    assert r.exit_code == 0, r.output
    golden("bench-compare-demo.txt", r.stdout)


def test_a_slower_candidate_is_a_regression_with_exit_1(demo_root: Path) -> None:
    r = Cli(demo_root)("bench", "compare", "bench-throughput-c1024", "bench-decode-c1")
    assert r.exit_code == 1
    assert "| output_throughput | tok/s | higher | 2,100 | 172       | -1,928 (-91.8%) | worse   |" in r.stdout
    assert r.stdout.endswith("Verdict: regression in output_throughput (0 better, 0 same, 1 worse)\n")


def test_files_directions_tolerances_and_environment(pair: tuple[str, str]) -> None:
    cli = Cli(Path("/nonexistent"))  # two files need no store
    r = cli("bench", "compare", *pair)
    assert r.exit_code == 1, r.output
    golden("bench-compare-files.txt", r.stdout.replace(str(Path(pair[0]).parent), "<tmp>"))
    rows = {line.split("|")[1].strip(): line for line in r.stdout.splitlines() if line.startswith("| ")}
    assert rows["output_throughput"].rstrip(" |").endswith("same")  # +3% is within 5%
    assert rows["mean_ttft_ms"].rstrip(" |").endswith("worse")  # latency up 20%
    assert rows["mean_tpot_ms"].rstrip(" |").endswith("better")  # latency down 10%
    assert rows["gpu_util"].rstrip(" |").endswith("changed")  # no known direction: never a regression
    assert "- `sglang`: main → v0.5.4" in r.stdout and "- `cuda-graph-max-bs`: not set → 512" in r.stdout
    assert "kv-cache-dtype" not in r.stdout.split("Environment differences:")[1]
    # A wider tolerance, or leaving the metric out, clears the regression.
    assert cli("bench", "compare", *pair, "--rel-tol", "0.25").exit_code == 0
    assert cli("bench", "compare", *pair, "--abs-tol", "50").exit_code == 0
    r = cli("bench", "compare", *pair, "--metric", "output_throughput", "--metric", "mean_tpot_ms", "--json")
    assert r.exit_code == 0
    data = json.loads(r.stdout)
    assert [m["name"] for m in data["metrics"]] == ["output_throughput", "mean_tpot_ms"]
    assert data["regression"] is False and data["metrics"][1]["verdict"] == "better"
    assert data["metrics"][0]["relative"] == pytest.approx(0.03)


def test_workload_and_concurrency_differences_are_warned(tmp_path: Path) -> None:
    a = _bench_file(tmp_path / "a.yaml", {"request_throughput": (10, "req/s")})
    b = _bench_file(tmp_path / "b.yaml", {"request_throughput": (10, "req/s")}, concurrency=256, workload="sharegpt")
    r = Cli(tmp_path)("bench", "compare", a, b)
    assert r.exit_code == 0
    assert "- concurrency differs: 64 → 256; the results may not be comparable" in r.stdout
    assert "- the workloads differ; the results may not be comparable" in r.stdout


def test_a_benchmark_as_of_a_dump_tag(demo_copy: Path) -> None:
    store = Store(demo_copy)
    old = store.get(SESSION, "bench-decode-c1")
    assert isinstance(old, Benchmark)
    slower = old.model_copy(update={"metrics": [old.metrics[0].model_copy(update={"value": 150.0})]})
    store.put(SESSION, slower)
    cli = Cli(demo_copy)
    r = cli("bench", "compare", f"bench-decode-c1@dump/{SESSION}/2", "bench-decode-c1")
    assert r.exit_code == 1, r.output
    assert "| output_throughput | tok/s | higher | 172  | 150       | -22 (-12.8%) | worse   |" in r.stdout
    assert "concurrency differs" not in r.stdout
    assert cli("bench", "compare", "bench-decode-c1@2", "bench-decode-c1", "--rel-tol", "0.2").exit_code == 0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["bench-decode-c1", "bench-throughput-c1024", "--metric", "ttft"], "no metric 'ttft' in either benchmark"),
        (["bench-decode-c1", "bench-throughput-c1024", "--rel-tol", "-1"], "a tolerance cannot be negative"),
        (["bf16-kv-cache", "bench-decode-c1"], "'bf16-kv-cache' is a decision record, not a benchmark"),
        (["bench-decode-c1@dump/9", "bench-decode-c1"], "no dump 9"),
        (["missing-bench", "bench-decode-c1"], "no record 'missing-bench'"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(demo_root: Path, args: list[str], message: str) -> None:
    before = snapshot(demo_root)
    r = Cli(demo_root)("bench", "compare", *args)
    assert r.exit_code == 2
    assert message in r.stderr and len(r.stderr.strip().splitlines()) == 1
    assert snapshot(demo_root) == before


SGLANG_ROW = (
    '{"backend":"sglang","dataset_name":"random","request_rate":Infinity,"max_concurrency":64,"random_input_len":1024,'
    '"random_output_len":256,"server_info":{"model_path":"m","tp_size":8,"version":"VERSION"},"duration":41.2,"completed":500,'
    '"request_throughput":12.1,"output_throughput":THROUGHPUT,"mean_ttft_ms":210.5,"concurrency":62.0}'
)


def test_sglang_and_vllm_result_files_compare_directly(tmp_path: Path) -> None:
    sweep = tmp_path / "sglang.jsonl"
    rows = [SGLANG_ROW.replace("VERSION", v).replace("THROUGHPUT", t) for v, t in (("0.5.4", "3100.5"), ("0.5.5", "2800.5"))]
    sweep.write_text("\n".join(rows) + "\n")
    cli = Cli(tmp_path)
    r = cli("bench", "compare", f"{sweep}#1", f"{sweep}#2")
    assert r.exit_code == 1, r.output
    assert "| output_throughput  | tok/s    | higher | 3,100.5 | 2,800.5   | -300 (-9.7%) | worse   |" in r.stdout
    assert "- `version`: 0.5.4 → 0.5.5" in r.stdout
    r = cli("bench", "compare", str(sweep), f"{sweep}#2")
    assert r.exit_code == 2 and "the file holds 2 results" in r.stderr and "#N" in r.stderr
    assert cli("bench", "compare", f"{sweep}#3", f"{sweep}#1").exit_code == 2
    vllm = tmp_path / "vllm.json"
    data = {"date": "20251105-140210", "backend": "vllm", "model_id": "m", "tokenizer_id": "m", "num_prompts": 500, "request_rate": "inf",
            "max_concurrency": 64, "duration": 39.8, "completed": 500, "request_throughput": 12.56, "output_throughput": 3216.1}  # fmt: skip
    vllm.write_text(json.dumps(data))
    r = cli("bench", "compare", f"{sweep}#1", str(vllm), "--metric", "output_throughput", "--json")
    assert r.exit_code == 0, r.output
    result = json.loads(r.stdout)
    assert result["metrics"][0]["verdict"] == "same" and result["candidate"]["concurrency"] == 64


def test_other_files_are_refused_with_a_hint(tmp_path: Path) -> None:
    f = tmp_path / "run.csv"
    f.write_text("output_throughput,1\n")
    r = Cli(tmp_path)("bench", "compare", str(f), str(f))
    assert r.exit_code == 2 and "statedump import sglang-bench FILE" in r.stderr


@pytest.mark.parametrize(
    ("name", "unit", "better"),
    [
        ("output_throughput", "tok/s", "higher"),
        ("max_output_tokens_per_s", "tok/s", "higher"),
        ("request_goodput", "req/s", "higher"),
        ("accept_length", "", "higher"),
        ("p99_ttft_ms", "ms", "lower"),
        ("median_itl_ms", "ms", "lower"),
        ("mean_e2e_latency_ms", "ms", "lower"),
        ("duration", "s", "lower"),
        ("decode_speed", "tok/s", "higher"),
        ("warmup", "s", "lower"),
        ("gpu_util", "%", None),
        ("KV cache capacity", "tokens", "higher"),
    ],
)
def test_direction_table(name: str, unit: str, better: str | None) -> None:
    assert direction(name, unit) == better


def test_quantities_with_suffixes() -> None:
    assert quantity("3.15M") == pytest.approx(3.15e6)
    assert quantity("2,100 tok/s") == 2100
    assert quantity("FP8 with scale 1.0") is None
    assert quantity("8x RTX") is None


def test_bench_compare_with_nothing_in_common_is_an_error(cli: Cli) -> None:
    cli("add", "benchmark", "--id", "a", "--title", "a", "--field", "metrics=[{name: output_throughput, value: 1, unit: tok/s}]")
    cli("add", "benchmark", "--id", "b", "--title", "b", "--field", "metrics=[{name: ttft, value: 1, unit: ms}]")
    r = cli("bench", "compare", "a", "b")
    assert r.exit_code == 2 and "no metric in common" in r.output
