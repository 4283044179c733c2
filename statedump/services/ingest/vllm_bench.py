"""vLLM benchmark results: `vllm bench serve --save-result` (one JSON object; with
`--append-result`, one per line). Each result becomes one benchmark record."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from statedump.core.errors import StatedumpError
from statedump.models import Benchmark
from statedump.services.ingest.bench_units import env_value, fingerprint, metrics_of, rate_text, request_rate
from statedump.services.ingest.jsonl import MAX_TEXT_BYTES, Progress, check_file, iter_jsonl
from statedump.services.ingest.plan import ImportPlan, short_hash

# Keys that describe the run rather than measure it; any other text value (a --metadata
# KEY=VALUE pair) goes into the environment too.
_ARGS = (
    "date",
    "endpoint_type",
    "backend",
    "label",
    "model_id",
    "tokenizer_id",
    "num_prompts",
    "request_rate",
    "burstiness",
    "max_concurrency",
)
_RAMP = ("ramp_up_strategy", "ramp_up_start_rps", "ramp_up_end_rps")


def _when(value: Any) -> datetime | None:
    # vLLM writes local time without a zone; statedump keeps it as UTC and says so in the docs.
    try:
        return datetime.strptime(str(value), "%Y%m%d-%H%M%S").replace(tzinfo=UTC)
    except ValueError:
        return None


def _result(plan: ImportPlan, number: int, row: dict[str, Any]) -> None:
    if "duration" not in row and "request_throughput" not in row:
        plan.skip(number, "not a vllm bench serve result (no duration or request_throughput)")
        return
    rate, tag = request_rate(row.get("request_rate"))
    conc = row.get("max_concurrency")
    concurrency = int(conc) if isinstance(conc, int) and not isinstance(conc, bool) and conc >= 1 else None
    model = str(row.get("model_id") or "unknown model")
    env: dict[str, str] = {"tool": "vllm bench serve"}
    for key, value in row.items():
        if key in ("request_rate", "max_concurrency", "num_prompts") or isinstance(value, list | dict):
            continue
        if (key in _ARGS or key in _RAMP or isinstance(value, str)) and (text := env_value(value)) is not None:
            env[key] = text
    if tag:
        env["request_rate"] = tag
    workload = f"{row.get('num_prompts', '?')} prompts"
    if row.get("burstiness") is not None:
        workload += f", burstiness {row['burstiness']}"
    if row.get("ramp_up_strategy"):
        workload += f", ramp-up {row['ramp_up_strategy']} {row.get('ramp_up_start_rps')}→{row.get('ramp_up_end_rps')} req/s"
    label = row.get("label") or row.get("backend") or "vllm"
    plan.add(
        Benchmark(
            id=f"vllm-bench-{short_hash(fingerprint(row))}",
            title=f"{label} bench serve: {model}, concurrency {concurrency or 'unbounded'}, rate {rate_text(rate, tag)}"[:300],
            at=_when(row.get("date")),
            source=f"{plan.path.name}:{number}",
            workload=workload,
            concurrency=concurrency,
            request_rate=rate,
            metrics=metrics_of(row, skip=("num_prompts", "burstiness", "max_concurrency")),
            environment=env,
            tags=["vllm", "bench_serve"],
        )
    )


def read(path: Path, progress: Progress | None = None) -> ImportPlan:
    """Read a vLLM result file (one JSON object, or one per line) into a plan."""
    plan = ImportPlan("vllm-bench", path)
    size = check_file(path, "vLLM benchmark result (JSON)")
    whole: Any = None
    if size <= MAX_TEXT_BYTES:
        try:
            whole = json.loads(path.read_bytes().decode("utf-8"))
        except (json.JSONDecodeError, UnicodeDecodeError):
            whole = None
    if isinstance(whole, dict):
        _result(plan, 1, whole)
    elif isinstance(whole, list):
        for i, row in enumerate(whole, start=1):
            if isinstance(row, dict):
                _result(plan, i, row)
            else:
                plan.skip(i, "expected a JSON object")
    elif whole is not None:
        raise StatedumpError("not a vllm bench serve result: expected a JSON object", where=path)
    else:
        for number, row in iter_jsonl(path, plan, "vLLM benchmark result (JSON)", progress):
            _result(plan, number, row)
    if not plan.records and not plan.skipped:
        raise StatedumpError("no benchmark result in the file", where=path)
    return plan
