"""Reading a running server's configuration over HTTP, with the standard library only.

The shapes come from the servers' source code:

- SGLang, `python/sglang/srt/entrypoints/http_server.py` (sgl-project/sglang, commit
  0025436eab0556737d615b36a4dd3e1e26e82f3d): `GET /get_server_info` returns
  `{**dataclasses.asdict(server_args), **scheduler_info, "internal_states": [...], "version": ...}`,
  so every server argument is a top-level key with its value (`kv_cache_dtype`, `tp_size`,
  `model_path`...). Newer versions serve the same body at `GET /server_info` and keep the old
  path as a deprecated alias, so `/server_info` is asked first.
- vLLM, `GET /v1/models` (a `ModelList` of `ModelCard`: `id`, `root`, `max_model_len`, the
  class in `vllm/entrypoints/openai/protocol.py`) and `GET /metrics`, where
  `PrometheusStatLogger.log_metrics_info("cache_config", ...)` in `vllm/v1/metrics/loggers.py`
  (vllm-project/vllm, commit a6f0308cfe806b7731ad4979c9bea6e470c35efd) publishes the gauge
  `vllm:cache_config_info`, set to 1, whose labels are `CacheConfig.metrics_info()`: every cache
  setting as a string (`cache_dtype`, `block_size`, `gpu_memory_utilization`, `enable_prefix_caching`...).

An endpoint reports every argument with its default, so a flag the records do not set is not
drift (`Live.all_flags`), and it says nothing of the environment (`env_known` is False).
"""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.request
from typing import Any

from statedump.core.errors import BadInput
from statedump.models.drift import Live

TIMEOUT = 3.0
"""Seconds per request: a server that does not answer in that time is reported unreachable."""

# Keys of the SGLang body that are not server arguments.
_NOT_ARGS = {"internal_states", "version"}
# vLLM's cache label -> the `vllm serve` flag that sets it.
_VLLM_LABELS = {"cache_dtype": "--kv-cache-dtype", "block_size": "--block-size", "gpu_memory_utilization": "--gpu-memory-utilization"}
_VLLM_LABELS |= {"enable_prefix_caching": "--enable-prefix-caching", "swap_space": "--swap-space", "cpu_offload_gb": "--cpu-offload-gb"}
_SAMPLE = re.compile(r"^vllm:cache_config_info\{(.*)\}\s+\S+\s*$")
_LABEL = re.compile(r'(\w+)="((?:[^"\\]|\\.)*)"')


class _Missing(Exception):
    """The server answered, but not at this path (404 or not JSON)."""


def _get(url: str) -> bytes:
    try:
        request = urllib.request.Request(url, headers={"Accept": "application/json"})  # noqa: S310
        # read_url let only http:// and https:// through, so no file: or custom scheme gets here.
        with urllib.request.urlopen(request, timeout=TIMEOUT) as resp:  # noqa: S310
            body: bytes = resp.read()
            return body
    except urllib.error.HTTPError as err:
        if err.code in (404, 405):
            raise _Missing(url) from None
        raise BadInput(f"cannot read {url}: HTTP {err.code} {err.reason}", where="--url") from None
    except (urllib.error.URLError, OSError, ValueError) as err:
        reason = getattr(err, "reason", err)
        raise BadInput(f"cannot reach {url}: {reason}", where="--url") from None


def _json(url: str) -> Any:
    try:
        return json.loads(_get(url))
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise _Missing(url) from None


def _flag_value(value: Any) -> list[str | None] | None:
    """A server argument as `parse_command` would have read it from a command line."""
    if value is None or value is False:
        return None
    if value is True:
        return [None]
    if isinstance(value, float) and value.is_integer():
        return [str(value)]
    if isinstance(value, (str, int, float)):
        return [str(value)]
    if isinstance(value, list) and all(isinstance(v, (str, int, float)) for v in value):
        return [" ".join(str(v) for v in value)] if value else None
    return None  # nested settings have no single flag


def sglang_live(url: str, body: dict[str, Any]) -> Live:
    """The SGLang server-info body as flags: `kv_cache_dtype` -> `--kv-cache-dtype`."""
    flags = {}
    for key, value in body.items():
        shown = _flag_value(value) if key not in _NOT_ARGS else None
        if shown is not None:
            flags["--" + key.replace("_", "-")] = shown
    text = " ".join(["sglang"] + [f"{k} {v[0]}" if v[0] is not None else k for k, v in flags.items()])
    return Live(f"url {url}", "http", text, "shell", flags, {}, "sglang", env_known=False, all_flags=True)


def vllm_live(url: str, models: dict[str, Any], metrics: str | None) -> Live:
    flags: dict[str, list[str | None]] = {}
    data = models.get("data") or []
    card = data[0] if data and isinstance(data[0], dict) else {}
    if card.get("root"):
        flags["--model"] = [str(card["root"])]
    if card.get("id"):
        flags["--served-model-name"] = [str(card["id"])]
    if card.get("max_model_len"):
        flags["--max-model-len"] = [str(card["max_model_len"])]
    for line in (metrics or "").splitlines():
        if m := _SAMPLE.match(line.strip()):
            for label, value in _LABEL.findall(m.group(1)):
                flag = _VLLM_LABELS.get(label)
                if flag and value not in ("None", ""):
                    if value in ("True", "False"):
                        if value == "True":
                            flags[flag] = [None]
                    else:
                        flags[flag] = [value]
            break
    text = " ".join(["vllm serve"] + [f"{k} {v[0]}" if v[0] is not None else k for k, v in flags.items()])
    return Live(f"url {url}", "http", text, "shell", flags, {}, "vllm", env_known=False, all_flags=True)


def read_url(url: str) -> Live:
    """Ask the server at `url` for its configuration: SGLang's server info, else vLLM's models and metrics."""
    if not url.startswith(("http://", "https://")):
        raise BadInput(f"cannot reach {url}: not an http:// or https:// address", where="--url")
    base = url.rstrip("/")
    for path in ("/server_info", "/get_server_info"):
        try:
            body = _json(base + path)
        except _Missing:
            continue
        if isinstance(body, dict):
            return sglang_live(url, body)
    try:
        models = _json(base + "/v1/models")
    except _Missing:
        raise BadInput(f"cannot read {url}: neither SGLang's /server_info nor vLLM's /v1/models answered", where="--url") from None
    try:
        metrics: str | None = _get(base + "/metrics").decode("utf-8", "replace")
    except _Missing:
        metrics = None
    return vllm_live(url, models if isinstance(models, dict) else {}, metrics)
