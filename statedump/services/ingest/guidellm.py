"""GuideLLM's benchmarks report (`guidellm benchmark … --outputs json`): `metadata`, `args` and
`benchmarks`, each benchmark one strategy run (synchronous, concurrent, throughput, constant,
poisson) whose metrics are distributions split by `successful` / `errored` / `incomplete` /
`total` requests.

Each benchmark becomes one benchmark record, measured on its successful requests and named as
vLLM names its metrics (`median_ttft_ms`, `p99_itl_ms`, `output_throughput`), with the request
totals as `completed`, `failed`, `incomplete`. The GuideLLM version becomes a component record
and each request dataset that is a file a file record. Both the 0.5 layout (`config.strategy`,
`metrics.request_totals`) and the older one (`args.strategy`, `request_totals`) are read.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

from statedump.core.errors import StatedumpError
from statedump.models import Benchmark, Component, File, Metric
from statedump.services.ingest.bench_units import Titles, all_failed, dig, env_value, failure_records, mapping, number, rate_text
from statedump.services.ingest.jsonl import Progress, read_json
from statedump.services.ingest.plan import ImportPlan, short_hash

_LATENCY = {
    "time_to_first_token_ms": ("ttft", 1.0),
    "time_per_output_token_ms": ("tpot", 1.0),
    "inter_token_latency_ms": ("itl", 1.0),
    "request_latency": ("e2el", 1000.0),  # GuideLLM writes seconds; vLLM's e2el is in ms
}
_RATES = {
    "requests_per_second": ("request_throughput", "req/s"),
    "output_tokens_per_second": ("output_throughput", "tok/s"),
    "tokens_per_second": ("total_token_throughput", "tok/s"),
    "prompt_tokens_per_second": ("input_throughput", "tok/s"),
}
"""Rates whose mean is the vLLM metric of that name; their other statistics keep GuideLLM's."""
_TOKENS = {
    "prompt_token_count": "total_input_tokens",
    "output_token_count": "total_output_tokens",
    "total_token_count": "total_tokens",
}
"""Tokens per request, whose sum is the run's total."""
_UNITS = {"request_concurrency": "requests", "request_streaming_iterations_count": "iterations"}
_STATS = {"mean": "mean", "median": "median", "std_dev": "std", "min": "min", "max": "max"}
_PCT = re.compile(r"^p(\d+)$")


def _percentile(key: str) -> str | None:
    """GuideLLM's `p001`, `p05`, `p999` as `p0.1`, `p5`, `p99.9`; p50 is the median, kept once."""
    m = _PCT.match(key)
    if not m or key == "p50":
        return None
    digits = m.group(1)
    # Three digits carry one decimal (p001 = 0.1, p999 = 99.9); fewer are whole (p01 = 1, p05 = 5).
    value = float(digits) / 10 if len(digits) == 3 else float(digits)
    return f"p{value:g}"


def _name(key: str, stat: str) -> tuple[str, str, float]:
    """A distribution statistic's metric name, unit and the factor to that unit."""
    if key in _LATENCY:
        short, scale = _LATENCY[key]
        return f"{stat}_{short}_ms", "ms", scale
    if key in _RATES:
        return (_RATES[key][0] if stat == "mean" else f"{stat}_{key}"), _RATES[key][1], 1.0
    return f"{stat}_{key}", _UNITS.get(key, "tokens"), 1.0


def _distribution(key: str, dist: dict[str, Any]) -> list[Metric]:
    out = []
    stats = [(label, dist.get(raw)) for raw, label in _STATS.items()]
    stats += [(p, v) for k, v in mapping(dist.get("percentiles")).items() if (p := _percentile(k)) is not None]
    for stat, value in stats:
        if (v := number(value)) is not None and not math.isinf(v):
            name, unit, scale = _name(key, stat)
            out.append(Metric(name=name, value=v * scale, unit=unit))
    if key in _TOKENS and (total := number(dist.get("total_sum"))) is not None:
        out.append(Metric(name=_TOKENS[key], value=total, unit="tokens"))
    return out


def _metrics(bench: dict[str, Any], totals: dict[str, Any]) -> list[Metric]:
    out = []
    for label, key in (("completed", "successful"), ("failed", "errored"), ("incomplete", "incomplete"), ("total_requests", "total")):
        if (v := number(totals.get(key))) is not None:
            out.append(Metric(name=label, value=v, unit="requests"))
    if (duration := number(bench.get("duration"))) is not None:
        out.append(Metric(name="duration", value=duration, unit="s"))
    for key, value in mapping(bench.get("metrics")).items():
        if isinstance(value, dict) and isinstance(value.get("successful"), dict):
            out += _distribution(key, value["successful"])
    return out


def _strategy(bench: dict[str, Any]) -> dict[str, Any]:
    return mapping(dig(bench, "config", "strategy"), dig(bench, "args", "strategy"))


def _load(strategy: dict[str, Any]) -> tuple[str, int | None, float | None]:
    """The strategy's name, its concurrency and its request rate (infinity for throughput)."""
    kind = str(strategy.get("type_") or "unknown strategy")
    streams = number(strategy.get("streams")) or number(strategy.get("max_concurrency"))
    if kind == "synchronous":
        streams = 1.0
    rate = number(strategy.get("rate"))
    if kind == "throughput" and rate is None:
        rate = math.inf
    return kind, int(streams) if streams and streams >= 1 and not math.isinf(streams) else None, rate


def _datasets(args: dict[str, Any]) -> list[str]:
    """The request data given as files (a synthetic spec such as `prompt_tokens=256` is not one)."""
    data = args.get("data")
    items = data if isinstance(data, list) else [data]
    return [d for d in items if isinstance(d, str) and "=" not in d and ("/" in d or re.search(r"\.\w{2,8}$", d))]


def _benchmark(plan: ImportPlan, number_: int, bench: dict[str, Any], args: dict[str, Any], env0: dict[str, str], titles: Titles) -> None:
    model = str(dig(bench, "config", "backend", "model") or args.get("model") or dig(bench, "worker", "backend_model") or "unknown model")
    kind, concurrency, rate = _load(_strategy(bench))
    totals = mapping(dig(bench, "metrics", "request_totals"), bench.get("request_totals"), dig(bench, "scheduler_metrics", "requests_made"))
    title = f"guidellm {kind}: {model}"
    title += f", concurrency {concurrency}" if concurrency else ""
    title += f", rate {rate_text(rate, None)}" if rate is not None else ""
    env = {**env0, "model": model, "strategy": kind}
    constraints = mapping(dig(bench, "config", "profile", "constraints"), dig(bench, "config", "constraints"))
    workload = [f"data {', '.join(map(str, args['data']))}" if isinstance(args.get("data"), list) and args["data"] else ""]
    for key in ("max_requests", "max_seconds", "max_errors"):
        value = constraints.get(key, args.get(key))
        value = value.get("max_num", value) if isinstance(value, dict) else value
        if env_value(value) is not None:
            workload.append(f"{key.replace('_', ' ')} {value}")
    # GuideLLM gives each benchmark a uuid; without one, its times and totals say which run it was.
    ident = (
        dig(bench, "config", "id_") or bench.get("id_") or json.dumps([bench.get("start_time"), bench.get("duration"), totals], default=str)
    )
    record = Benchmark(
        id=(record_id := f"guidellm-{short_hash(str(ident))}"),
        title=titles(title, record_id)[:300],
        source=f"{plan.path.name}:benchmarks[{number_ - 1}]",
        workload=", ".join(w for w in workload if w) or None,
        concurrency=concurrency,
        request_rate=rate,
        metrics=_metrics(bench, totals),
        environment=env,
        tags=["guidellm", kind],
    )
    if all_failed(totals.get("successful"), totals.get("errored"), totals.get("total")):
        errors = [r.get("error") or dig(r, "info", "error") for r in dig(bench, "requests", "errored") or [] if isinstance(r, dict)]
        failure_records(plan, record, f"guidellm {kind} run against {model}", number(totals.get("errored")), errors)
    else:
        plan.add(record)


def read(path: Path, progress: Progress | None = None) -> ImportPlan:
    """Read a GuideLLM benchmarks report into a plan: one benchmark record per benchmark."""
    data = read_json(path, "GuideLLM report (JSON)")
    benches = data.get("benchmarks") if isinstance(data, dict) else None
    if not isinstance(benches, list) or not benches:
        raise StatedumpError(
            "not a GuideLLM report: expected a JSON object with a list of benchmarks",
            where=path,
            hint="name the report --outputs json wrote",
        )
    plan = ImportPlan("guidellm", path)
    args, meta = mapping(data.get("args")), mapping(data.get("metadata"))
    env0 = {"tool": "guidellm benchmark"}
    for key, value in (
        ("guidellm_version", meta.get("guidellm_version")),
        ("python_version", meta.get("python_version")),
        ("platform", meta.get("platform")),
        ("target", args.get("target")),
        ("backend", args.get("backend")),
        ("request_format", args.get("request_format")),
        ("profile", args.get("profile")),
    ):
        if (text := env_value(value)) is not None:
            env0[key] = text
    if version := env_value(meta.get("guidellm_version")):
        plan.add(
            Component(
                id=f"guidellm-{version}"[:64].lower().replace("+", "-"),
                title=f"guidellm {version}",
                name="guidellm",
                version=version,
                build=f"Python {meta['python_version']}" if meta.get("python_version") else None,
                source=path.name,
                tags=["guidellm"],
            )
        )
    for dataset in _datasets(args):
        plan.add(
            File(
                id=plan.readable_id("guidellm-data", Path(dataset).name, dataset),
                title=f"GuideLLM request data {Path(dataset).name}",
                path=dataset,
                source=path.name,
                tags=["guidellm", "dataset"],
            )
        )
    titles = Titles()
    for i, bench in enumerate(benches, start=1):
        if isinstance(bench, dict) and isinstance(bench.get("metrics"), dict):
            _benchmark(plan, i, bench, args, env0, titles)
        else:
            plan.skip(i, "not a GuideLLM benchmark (no metrics)")
    if not any(isinstance(r, Benchmark) for r in plan.records):
        raise StatedumpError(
            "not a GuideLLM report: no benchmark in it has metrics", where=path, hint="name the report --outputs json wrote"
        )
    if progress is not None:
        progress(1, 1)
    return plan
