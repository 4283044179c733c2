"""Naming the candidates in an error: the few nearest to what was asked, not every one.

A long session holds hundreds of decisions; a hint listing them all on one line is read by
nobody and floods an agent's context.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

MOST = 5


def nearest(query: str, names: Iterable[str], most: int = MOST) -> str:
    """The names closest to `query`, at most `most` of them, then how many more there are:
    `bf16-kv-cache, fp8-kv-cache and 798 more`. All of them, in their order, when they are
    few; empty when there are none."""
    unique = list(dict.fromkeys(names))
    shown = unique if len(unique) <= most else difflib.get_close_matches(query.strip().lower(), unique, n=most, cutoff=0)
    rest = len(unique) - len(shown)
    return ", ".join(shown) + (f" and {rest} more" if rest else "")


def did_you_mean(query: str, names: Iterable[str]) -> str | None:
    """`did you mean 'render'?` for a near miss (`rendr`), else None: one suggestion, only when
    it is close enough to be what was meant."""
    unique = list(dict.fromkeys(names))
    folded = {name.lower(): name for name in unique}
    found = difflib.get_close_matches(query.strip().lower(), list(folded), n=1, cutoff=0.6)
    return f"did you mean {folded[found[0]]!r}?" if found else None
