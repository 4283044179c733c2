"""vLLM benchmark results: `vllm bench serve --save-result` (one JSON object; with
`--append-result`, one per line) and `vllm bench sweep`'s summary.json (a JSON list, each
result with its `run_number` and the swept parameters). Each result becomes one benchmark
record; a run where nothing completed is `invalid`, with a discovery saying so."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from statedump.core.errors import StatedumpError
from statedump.models import Benchmark
from statedump.services.ingest.bench_units import (
    Titles,
    all_failed,
    env_value,
    failure_records,
    fingerprint,
    metrics_of,
    rate_text,
    request_rate,
    unit_for,
)
from statedump.services.ingest.bench_units import number as num
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
_SWEEP = "run_number"
"""`vllm bench sweep` adds this to each result, with the serve and bench parameters of its
point (`max_num_seqs`, …) as keys of their own: those are what tells two points apart."""


def _swept(row: dict[str, Any]) -> dict[str, str]:
    """A sweep result's parameters: every key that is neither a result key nor a metric
    (a plain result's extra keys are its `--metadata`, kept in the environment only)."""
    if _SWEEP not in row:
        return {}
    out = {}
    for key, value in row.items():
        if key in _ARGS or key in _RAMP or key == _SWEEP or unit_for(key.rstrip(":")) is not None:
            continue
        if (text := env_value(value)) is not None:
            out[key] = text
    return out


def _when(value: Any) -> datetime | None:
    # vLLM writes local time without a zone; statedump keeps it as UTC and says so in the docs.
    try:
        return datetime.strptime(str(value), "%Y%m%d-%H%M%S").replace(tzinfo=UTC)
    except ValueError:
        return None


def _result(plan: ImportPlan, number: int, row: dict[str, Any], titles: Titles) -> None:
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
    title = f"{label} bench serve: {model}, concurrency {concurrency or 'unbounded'}, rate {rate_text(rate, tag)}"
    swept = _swept(row)
    if swept:
        env["tool"] = "vllm bench sweep"
        env.update(swept)
        env[_SWEEP] = str(row[_SWEEP])
        title += "".join(f", {k} {v}" for k, v in swept.items()) + f", run {row[_SWEEP]}"
    bench = Benchmark(
        id=(record_id := f"vllm-bench-{short_hash(fingerprint(row))}"),
        title=titles(title, record_id)[:300],
        at=_when(row.get("date")),
        source=f"{plan.path.name}:{number}",
        workload=workload,
        concurrency=concurrency,
        request_rate=rate,
        metrics=metrics_of(row, skip=("num_prompts", "burstiness", "max_concurrency")),
        environment=env,
        tags=["vllm", "bench_sweep" if swept else "bench_serve"],
    )
    if all_failed(row.get("completed"), row.get("failed"), row.get("num_prompts")):
        failure_records(plan, bench, f"vllm bench serve against {model}", num(row.get("failed")), row.get("errors"))
    else:
        plan.add(bench)


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
    titles = Titles()
    if isinstance(whole, dict):
        if "duration" not in whole and "request_throughput" not in whole:
            # One object that is no result is another tool's file, not a damaged line of ours.
            raise StatedumpError(
                "not a vllm bench serve result: no duration or request_throughput", where=path, hint="check the format name"
            )
        _result(plan, 1, whole, titles)
    elif isinstance(whole, list):
        for i, row in enumerate(whole, start=1):
            if isinstance(row, dict):
                _result(plan, i, row, titles)
            else:
                plan.skip(i, "expected a JSON object")
    elif whole is not None:
        raise StatedumpError("not a vllm bench serve result: expected a JSON object", where=path)
    else:
        for number, row in iter_jsonl(path, plan, "vLLM benchmark result (JSON)", progress):
            _result(plan, number, row, titles)
    if not plan.records and not plan.skipped:
        raise StatedumpError("no benchmark result in the file", where=path)
    return plan
