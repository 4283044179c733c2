"""The one JSON encoder: every `--json` output, every MCP result and resource goes through it.

JSON has no infinity, yet benchmark files carry one (an unbounded request rate: vLLM writes
the string "inf", SGLang a bare `Infinity`). Non-finite numbers are written as the strings
vLLM uses, "inf", "-inf" and "nan", so that every output parses with any JSON reader. DEL,
C1 controls and bidi overrides are written as `\\uXXXX` escapes (see core/safetext.py).
Journals and schema files keep their own formats: they are files, not outputs.
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Mapping
from datetime import date
from typing import Any


def _float(value: float) -> float | str:
    if math.isfinite(value):
        return value
    if math.isnan(value):
        return "nan"
    return "inf" if value > 0 else "-inf"


def _datetime(value: date) -> str:
    return value.isoformat().replace("+00:00", "Z")


def plain(value: Any) -> Any:
    """`value` as JSON-ready data: mappings, lists, strings, finite numbers, booleans, None.

    Records and other pydantic models become their fields (None left out), dataclasses their
    fields, dates ISO 8601 (UTC as `Z`), tuples and sets lists, non-finite floats strings;
    anything else its `str`.
    """
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        return _float(value)
    if isinstance(value, date):
        return _datetime(value)
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [plain(v) for v in value]
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        return plain(dump(mode="json", exclude_none=True))
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    return str(value)


def to_json(value: Any, indent: int | None = 2) -> str:
    """`value` as JSON text, keys in their order, UTF-8 characters as they are; on one line
    when `indent` is None."""
    from statedump.core.safetext import json_escaped

    # UTF-8 as it is, but DEL, C1 controls and bidi overrides as escapes: the output is read
    # on terminals, and the same JSON value either way.
    return json_escaped(json.dumps(plain(value), indent=indent, ensure_ascii=False, allow_nan=False))
