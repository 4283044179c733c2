"""The one way a metric value is written for people: in the state document, resume prompts,
the handoff report, `why` and every other text output.

Thousands are grouped (`2,100.5`) with at most two decimals, smaller values keep six
significant digits (`0.0125`, `82.893`), whole numbers have no decimals, and an unbounded
value reads `inf` as benchmark files write it.
"""

from __future__ import annotations

import math


def number(value: float) -> str:
    """A metric value for people: `2,100.5`, `2,100`, `82.893`, `inf`."""
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    short = f"{value:g}"
    # `g` rounds 999.9999 up to 1000, which must be grouped like any other thousand.
    if abs(value) >= 1000 or abs(float(short)) >= 1000:
        return f"{value:,.2f}".rstrip("0").rstrip(".")
    return short
