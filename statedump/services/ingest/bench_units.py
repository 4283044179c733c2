"""What benchmark result keys mean: which are metrics, in which unit. Shared by the SGLang
and vLLM readers, whose key names mostly agree."""

from __future__ import annotations

import json
import math
import re
from typing import Any

from statedump.models import Metric

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
