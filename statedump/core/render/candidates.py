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
