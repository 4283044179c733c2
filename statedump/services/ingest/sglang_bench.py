"""SGLang benchmark results: `python -m sglang.bench_serving --output-file` and
`python -m sglang.bench_one_batch_server --result-filename`, one JSON object per line.

Every layout the tools have written is read: the older keys, the current ones with
`server_info`, the refactored ones (`total_input` / `total_output`), per-request detail
arrays (ignored), and the one-batch results. Each line becomes one benchmark record.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from statedump.models import Benchmark
from statedump.services.ingest.bench_units import Titles, env_value, fingerprint, metrics_of, rate_text, request_rate
from statedump.services.ingest.jsonl import Progress, iter_jsonl
from statedump.services.ingest.plan import ImportPlan, short_hash

_RENAMES = {
    "total_input": "total_input_tokens",
    "total_output": "total_output_tokens",
    "total_output_retokenized": "total_output_tokens_retokenized",
}
_SERVER_KEYS = (
    "model_path",
    "served_model_name",
    "version",
    "tp_size",
    "dp_size",
    "ep_size",
    "pp_size",
    "quantization",
    "dtype",
    "kv_cache_dtype",
    "attention_backend",
    "moe_runner_backend",
    "fp4_gemm_runner_backend",
    "speculative_algorithm",
    "chunked_prefill_size",
    "max_running_requests",
    "mem_fraction_static",
    "cuda_graph_max_bs",
    "disable_cuda_graph",
    "enable_dp_attention",
)


def _serving(plan: ImportPlan, number: int, row: dict[str, Any], titles: Titles) -> None:
    rate, rate_tag = request_rate(row.get("request_rate"))
    # The oldest layout has no dataset_name; its lengths alone do not say which dataset it was.
    dataset = str(row.get("dataset_name") or "dataset not recorded")
    lengths = ""
    if dataset.startswith("random") and row.get("random_input_len") is not None:
        lengths = f" {row.get('random_input_len')}/{row.get('random_output_len')}"
    conc = row.get("max_concurrency")
    concurrency = int(conc) if isinstance(conc, int | float) and not isinstance(conc, bool) and conc >= 1 else None
    title = f"{row.get('backend') or 'sglang'} bench_serving: {dataset}{lengths}, concurrency {concurrency or 'unbounded'}, rate {rate_text(rate, rate_tag)}"
    workload = [f"dataset {dataset}"]
    for key, label in (("random_input_len", "input len"), ("random_output_len", "output len"), ("random_range_ratio", "range ratio")):
        if row.get(key) is not None and dataset.startswith("random"):
            workload.append(f"{label} {row[key]}")
    if row.get("sharegpt_output_len") is not None:
        workload.append(f"sharegpt output len {row['sharegpt_output_len']}")
    if row.get("completed") is not None:
        workload.append(f"{row['completed']} requests completed")
    env: dict[str, str] = {"tool": "sglang.bench_serving"}
    for key in ("backend", "tag"):
        if (value := env_value(row.get(key))) is not None:
            env[key] = value
    if rate_tag:
        env["request_rate"] = rate_tag
    info = row.get("server_info")
    if isinstance(info, dict):
        for key in _SERVER_KEYS:
            if (value := env_value(info.get(key))) is not None:
                env[key] = value
    details = row.get("details")
    metrics = metrics_of(row, _RENAMES)
    if isinstance(details, dict):
        metrics += [m for m in metrics_of(details, _RENAMES) if m.name not in {x.name for x in metrics}]
    plan.add(
        Benchmark(
            id=(record_id := f"sglang-bench-{short_hash(fingerprint(row))}"),
            title=titles(title, record_id)[:300],
            source=f"{plan.path.name}:{number}",
            workload=", ".join(workload),
            concurrency=concurrency,
            request_rate=rate,
            metrics=metrics,
            environment=env,
            tags=["sglang", "bench_serving"],
        )
    )


def _one_batch(plan: ImportPlan, number: int, row: dict[str, Any], titles: Titles) -> None:
    bs, il, ol = row.get("batch_size"), row.get("input_len"), row.get("output_len")
    env = {"tool": "sglang.bench_one_batch_server"}
    if (name := env_value(row.get("run_name"))) is not None:
        env["run_name"] = name
    batch = int(bs) if isinstance(bs, int) and bs >= 1 else None
    plan.add(
        Benchmark(
            id=(record_id := f"sglang-one-batch-{short_hash(fingerprint(row))}"),
            title=titles(f"one batch: batch {bs}, input {il}, output {ol} ({env.get('run_name', 'default')})", record_id)[:300],
            source=f"{plan.path.name}:{number}",
            workload=f"one batch of {bs} requests, input len {il}, output len {ol}",
            concurrency=batch,
            metrics=metrics_of(row, skip=("batch_size", "input_len", "output_len")),
            environment=env,
            tags=["sglang", "bench_one_batch_server"],
        )
    )


def read(path: Path, progress: Progress | None = None) -> ImportPlan:
    """Read an SGLang benchmark JSONL file into a plan: one benchmark record per result line."""
    plan = ImportPlan("sglang-bench", path)
    titles = Titles()
    for number, row in iter_jsonl(path, plan, "SGLang benchmark (JSONL)", progress):
        if "batch_size" in row and "latency" in row:
            _one_batch(plan, number, row, titles)
        elif "duration" in row or "request_throughput" in row:
            _serving(plan, number, row, titles)
        else:
            plan.skip(number, "not a bench_serving or bench_one_batch_server result (no duration, throughput or batch_size)")
    return plan
