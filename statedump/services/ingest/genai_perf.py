"""NVIDIA genai-perf's `profile_export_genai_perf.json` and its successor AIPerf's
`profile_export_aiperf.json`: one profile run per file, every metric an object
`{unit, avg, p50, p90, p99, min, max, std}`, and the run's settings under `input_config`.

The profile becomes one benchmark record, its metrics named as vLLM names them
(`median_ttft_ms`, `p99_itl_ms`, `output_throughput`) so that results of every tool compare
and share one headline rule; AIPerf's recorded command line becomes a command record, the
artifact directory a file record.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from statedump.core.errors import StatedumpError
from statedump.models import Benchmark, Command, File, Links, Metric
from statedump.services.ingest.bench_units import all_failed, dig, env_value, failure_records, mapping, number, rate_text, request_rate
from statedump.services.ingest.jsonl import Progress, read_json
from statedump.services.ingest.plan import ImportPlan, short_hash

_SHORT = {
    "time_to_first_token": "ttft",
    "time_to_second_token": "ttst",
    "time_to_first_output_token": "ttfot",
    "inter_token_latency": "itl",
    "inter_chunk_latency": "icl",
    "request_latency": "e2el",
}
"""Latencies by the short names vLLM and SGLang give them."""

_SINGLE = {
    "request_throughput": "request_throughput",
    "output_token_throughput": "output_throughput",
    "request_count": "completed",
    "error_request_count": "failed",
    "good_request_count": "good_requests",
    "goodput": "request_goodput",
    "benchmark_duration": "duration",
    "total_isl": "total_input_tokens",
}
"""Totals and rates (one `avg`) by their vLLM names; others keep the tool's name."""

_UNITS = {
    "ms": "ms",
    "sec": "s",
    "s": "s",
    "requests/sec": "req/s",
    "tokens/sec": "tok/s",
    "tokens/sec/user": "tok/s/user",
    "count": "requests",
}
_STAT = re.compile(r"^(avg|min|max|std|p\d+(\.\d+)?)$")
_SKIP_UNITS = ("ns",)
"""Unix timestamps in nanoseconds (`min_request_timestamp`): when, not how well."""


def _metrics(data: dict[str, Any]) -> list[Metric]:
    out = []
    for key, value in data.items():
        if key in _SINGLE and number(value) is not None:  # a bare count, not a metric object
            out.append(Metric(name=_SINGLE[key], value=float(value), unit="requests"))
            continue
        if not isinstance(value, dict) or not isinstance(value.get("unit"), str) or value["unit"] in _SKIP_UNITS:
            continue
        unit = _UNITS.get(value["unit"], value["unit"])
        stats = {s: v for s, v in value.items() if _STAT.match(s) and number(v) is not None}
        if set(stats) == {"avg"}:
            name = _SINGLE.get(key, key)
            out.append(Metric(name=name, value=float(stats["avg"]), unit="requests" if name in ("completed", "failed") else unit))
            continue
        for stat, v in stats.items():
            prefix = {"avg": "mean", "p50": "median"}.get(stat, stat)
            name = f"{prefix}_{_SHORT[key]}_ms" if key in _SHORT and unit == "ms" else f"{prefix}_{key}"
            out.append(Metric(name=name, value=float(v), unit=unit))
    return out


def _first(*values: Any) -> Any:
    return next((v for v in values if v is not None and v != ""), None)


def _when(value: Any) -> datetime | None:
    # AIPerf writes local ISO time without a zone; statedump keeps it as UTC, as for vLLM.
    try:
        at = datetime.fromisoformat(str(value))
    except ValueError:
        return None
    return at if at.tzinfo else at.replace(tzinfo=UTC)


def _gpus(data: dict[str, Any]) -> list[str]:
    """GPU names from AIPerf's telemetry (genai-perf's telemetry has only indexes)."""
    names = []
    endpoints = dig(data, "telemetry_data", "endpoints")
    for endpoint in endpoints.values() if isinstance(endpoints, dict) else []:
        gpus = dig(endpoint, "gpus")
        for gpu in gpus.values() if isinstance(gpus, dict) else []:
            if isinstance(gpu, dict) and isinstance(gpu.get("gpu_name"), str):
                names.append(gpu["gpu_name"])
    return names


def _workload(cfg: dict[str, Any], aiperf: bool) -> str:
    parts = []
    if aiperf:
        prompt = dig(cfg, "input", "prompt") or {}
        isl, osl = dig(prompt, "input_tokens"), dig(prompt, "output_tokens")
        entries = dig(cfg, "input", "conversation", "num_dataset_entries")
        count = dig(cfg, "loadgen", "request_count")
    else:
        isl, osl = dig(cfg, "input", "synthetic_tokens"), dig(cfg, "input", "output_tokens")
        entries = dig(cfg, "input", "num_dataset_entries")
        measurement = dig(cfg, "perf_analyzer", "measurement") or {}
        count = measurement.get("num") if measurement.get("mode") == "request_count" else None
        source = dig(cfg, "input", "prompt_source")
        if source:
            parts.append(f"{source} prompts")
    for label, spec in (("input tokens", isl), ("output tokens", osl)):
        if isinstance(spec, dict) and spec.get("mean") is not None:
            parts.append(f"{label} mean {spec['mean']} stddev {spec.get('stddev', 0)}")
    if entries is not None:
        parts.append(f"{entries} dataset entries")
    if count is not None:
        parts.append(f"{count} requests")
    return ", ".join(parts)


def _environment(data: dict[str, Any], tool: str, model: str, load: Any) -> dict[str, str]:
    """What was measured: the model, the endpoint, the tokenizer, the GPUs."""
    cfg = mapping(data.get("input_config"))
    env = {"tool": f"{tool} profile", "model": model}
    endpoint = mapping(cfg.get("endpoint"))
    for key in ("type", "backend", "service_kind", "output_format", "streaming", "url"):
        if (text := env_value(endpoint.get(key))) is not None:
            env[f"endpoint_{key}"] = text
    settings = (
        ("tokenizer", dig(cfg, "tokenizer", "name")),
        ("request_rate_mode", dig(load, "request_rate_mode")),
        ("was_cancelled", data.get("was_cancelled") or None),  # a cancelled run measured only part of its requests
    )
    for key, value in settings:
        if (text := env_value(value)) is not None:
            env[key] = text
    if gpus := _gpus(data):
        env["gpu"] = gpus[0] if len(set(gpus)) == 1 else ", ".join(dict.fromkeys(gpus))
        env["gpu_count"] = str(len(gpus))
    return env


def read_profile(path: Path, fmt: str) -> ImportPlan:
    """Read a genai-perf or AIPerf profile export into a plan (the layout decides which)."""
    data = read_json(path, f"{fmt} profile export (JSON)")
    if (
        not isinstance(data, dict)
        or not isinstance(data.get("input_config"), dict)
        or not any(isinstance(v, dict) and "unit" in v for v in data.values())
    ):
        raise StatedumpError(
            "not a genai-perf / AIPerf profile export: expected a JSON object of {unit, avg, …} metrics and input_config",
            where=path,
            hint="name profile_export_genai_perf.json or profile_export_aiperf.json",
        )
    cfg: dict[str, Any] = data["input_config"]
    aiperf = isinstance(cfg.get("loadgen"), dict) or str(cfg.get("cli_command", "")).startswith("aiperf")
    tool = "aiperf" if aiperf else "genai-perf"
    plan = ImportPlan(fmt, path)
    names = _first(dig(cfg, "endpoint", "model_names"), cfg.get("model_names"), cfg.get("model"))
    model = str(names[0] if isinstance(names, list) and names else names or "unknown model")
    load = dig(cfg, "loadgen") if aiperf else _first(dig(cfg, "perf_analyzer", "stimulus"), cfg)
    conc = number(dig(load, "concurrency"))
    concurrency = int(conc) if conc is not None and conc >= 1 else None
    rate, tag = request_rate(dig(load, "request_rate"))
    title = f"{tool} profile: {model}, concurrency {concurrency or 'unbounded'}"
    if rate is not None or tag:
        title += f", rate {rate_text(rate, tag)}"
    env = _environment(data, tool, model, load)
    digest = short_hash(json.dumps({k: v for k, v in data.items() if k != "telemetry_data"}, sort_keys=True, default=str))
    artifacts = _first(dig(cfg, "output", "artifact_directory"), cfg.get("artifact_dir"))
    links = Links()
    command = cfg.get("cli_command")
    if isinstance(command, str) and command.strip():
        cmd = plan.add(
            Command(
                id=f"{tool}-command-{digest}",
                title=f"{tool} profile of {model}"[:300],
                text=command.strip(),
                purpose=f"the {tool} run that produced {path.name}",
                source=path.name,
                tags=[tool],
            )
        )
        links = Links(produced_by=[cmd.id])
    if isinstance(artifacts, str) and artifacts.strip():
        plan.add(
            File(
                id=f"{tool}-artifacts-{digest}",
                title=f"{tool} artifact directory for {model}"[:300],
                path=artifacts.strip().rstrip("/") or "/",
                source=path.name,
                tags=[tool],
            )
        )
    bench = Benchmark(
        id=f"{tool}-{digest}",
        title=title[:300],
        at=_when(data.get("start_time")),
        source=path.name,
        workload=_workload(cfg, aiperf) or None,
        concurrency=concurrency,
        request_rate=rate,
        metrics=_metrics(data),
        environment=env,
        tags=[tool],
        links=links,
    )
    done, failed = bench.metric("completed"), bench.metric("failed")
    # Failures without a request count mean nothing succeeded (AIPerf counts only successes).
    if all_failed(done.value if done else (0 if failed else None), failed.value if failed else None):
        errors = [
            dig(e, "error_details", "message") or e for e in data.get("error_summary") or [] if isinstance(data.get("error_summary"), list)
        ]
        failure_records(plan, bench, f"{tool} profile of {model}", failed.value if failed else None, errors)
    else:
        plan.add(bench)
    return plan


def read(path: Path, progress: Progress | None = None) -> ImportPlan:
    """Read a genai-perf (or AIPerf) profile export into a plan."""
    plan = read_profile(path, "genai-perf")
    if progress is not None:
        progress(1, 1)
    return plan
