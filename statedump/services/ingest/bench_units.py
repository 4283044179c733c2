"""What benchmark result keys mean: which are metrics, in which unit. Shared by the SGLang
and vLLM readers, whose key names mostly agree."""

from __future__ import annotations

import json
import math
import re
from typing import Any

from statedump.models import Benchmark, Discovery, Links, Metric
from statedump.services.ingest.plan import ImportPlan

_EXACT = {
    "duration": "s",
    "completed": "requests",
    "failed": "requests",
    "total_input_tokens": "tokens",
    "total_input_text_tokens": "tokens",
    "total_input_vision_tokens": "tokens",
    "total_output_tokens": "tokens",
    "total_output_tokens_retokenized": "tokens",
    "total_input_sequences": "sequences",
    "request_throughput": "req/s",
    "request_goodput": "req/s",
    "input_sequence_throughput": "seq/s",
    "concurrency": "requests",
    "max_concurrent_requests": "requests",
    "accept_length": "tokens",
    "acc_length": "tokens",
    "rtfx": "x",
    "latency": "s",
    "last_ttft": "s",
    "steady_state_window_s": "s",
    "cache_hit_rate": "ratio",
    "num_early_stopped": "requests",
}
_MS = re.compile(r"^(mean|median|std|max|min|p\d+(\.\d+)?)_[a-z0-9_]+_ms$")


def unit_for(name: str) -> str | None:
    """The unit of a result key, or None when the key is not a metric."""
    if name in _EXACT:
        return _EXACT[name]
    if _MS.match(name):
        return "ms"
    if name.endswith(("_throughput", "_throughput_retokenized", "_tokens_per_s")):
        return "tok/s"
    if name.startswith("spec_decode_"):
        return "%" if name.endswith("rate") else "tokens"
    return None


def metrics_of(result: dict[str, Any], rename: dict[str, str] | None = None, skip: tuple[str, ...] = ()) -> list[Metric]:
    """Every numeric metric of a result, in the file's key order, with its unit.

    Missing values (null, -1 placeholders, NaN) are left out rather than recorded as numbers.
    """
    out = []
    for key, value in result.items():
        name = (rename or {}).get(key, key.rstrip(":"))
        if name in skip or isinstance(value, bool) or not isinstance(value, int | float):
            continue
        unit = unit_for(name)
        if unit is None or math.isnan(value) or (value == -1 and name in ("acc_length", "last_gen_throughput")):
            continue
        out.append(Metric(name=name, value=float(value), unit=unit))
    return out


def request_rate(value: Any) -> tuple[float | None, str | None]:
    """A request rate as a number (infinity for "as fast as possible"), or a tag when it is not one."""
    if isinstance(value, bool) or value is None:
        return None, None
    if isinstance(value, int | float):
        return float(value), None
    text = str(value).strip().lower()
    if text in ("inf", "infinity", "+inf"):
        return math.inf, None
    try:
        return float(text), None
    except ValueError:
        return None, str(value)


def rate_text(rate: float | None, tag: str | None) -> str:
    if tag:
        return tag
    if rate is None:
        return "?"
    return "inf" if math.isinf(rate) else f"{rate:g}"


def fingerprint(result: dict[str, Any]) -> str:
    """The result's own content, canonical, so the same line always gives the same id."""
    slim = {k: v for k, v in result.items() if not isinstance(v, list | dict)}
    return json.dumps(slim, sort_keys=True, default=str)


def env_value(value: Any) -> str | None:
    """A fingerprint value as text; containers and nulls left out."""
    if value is None or isinstance(value, dict | list):
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def number(value: Any) -> float | None:
    """A JSON value as a float when it is a finite or infinite number (not a bool, not NaN)."""
    if isinstance(value, bool) or not isinstance(value, int | float) or math.isnan(value):
        return None
    return float(value)


def all_failed(completed: Any, failed: Any, total: Any = None) -> bool:
    """True when a run measured nothing: no request completed, or every one sent failed.

    Such a run's latencies and throughputs are zeros the tool wrote for want of data, not
    measurements, so its record is `invalid`. A missing count (an old layout without it)
    says nothing either way.
    """
    done, bad, sent = number(completed), number(failed), number(total)
    if done is not None:
        return done == 0
    return bad is not None and sent is not None and bad > 0 and bad >= sent


_COUNTS = ("duration", "completed", "failed", "incomplete", "total_requests")
"""What an invalid run keeps: how long it ran and what happened to its requests."""


def failure_records(plan: ImportPlan, bench: Benchmark, what: str, failed: float | None, errors: Any = None) -> None:
    """Add a run where nothing completed as `invalid`, with only its counts and duration (the
    zeros are not measurements), and a confirmed discovery saying so, linked to it. `errors`:
    the tool's list of error texts, if it wrote one; the first few distinct ones go in the body."""
    kept = [m for m in bench.metrics if m.name in _COUNTS]
    if failed is not None and not any(m.name == "failed" for m in kept):
        kept.append(Metric(name="failed", value=failed, unit="requests"))
    plan.add(bench.model_copy(update={"status": "invalid", "metrics": kept}))
    count = f"all {failed:g} requests failed" if failed else "no request completed"
    body = [f"{what}: {count} (0 completed), so the run measured nothing; its figures are left out."]
    texts = [str(e).strip() for e in errors if e and str(e).strip()] if isinstance(errors, list) else []
    distinct = list(dict.fromkeys(texts))
    if distinct:
        body.append("Errors the tool recorded:\n\n" + "\n".join(f"- {e[:300]}" for e in distinct[:5]))
    plan.add(
        Discovery(
            id=f"{bench.id}-failed"[:64],
            title=f"Benchmark run failed: {count} ({what})"[:300],
            category="finding",
            at=bench.at,
            source=bench.source,
            tags=["benchmark", "failed"],
            links=Links(evidence=[bench.id]),
            body="\n\n".join(body),
        )
    )


class Titles:
    """Titles made distinct within one file: a repeat of the same configuration (the same run
    again, with other numbers) is `… (repeat 2)`, so two records never read alike; the first
    keeps its plain title, so appending a repeat to a file never renames an earlier record.
    The same result twice (the same id: a line appended again) is one record with one title."""

    def __init__(self) -> None:
        self._seen: dict[str, int] = {}
        self._given: dict[str, str] = {}

    def __call__(self, title: str, record_id: str) -> str:
        if record_id not in self._given:
            n = self._seen[title] = self._seen.get(title, 0) + 1
            self._given[record_id] = title if n == 1 else f"{title} (repeat {n})"
        return self._given[record_id]


def dig(data: Any, *path: str) -> Any:
    """`data[a][b]…`, or None where a step is missing or not an object (reports nest deeply)."""
    for key in path:
        if not isinstance(data, dict):
            return None
        data = data.get(key)
    return data


def mapping(*values: Any) -> dict[str, Any]:
    """The first of the values that is a JSON object, else an empty one."""
    return next((v for v in values if isinstance(v, dict)), {})
