"""`codec._emit` builds the YAML nodes itself and resolves tags with the loader's resolver:
its text must be PyYAML's own dump (its representer and resolver, with codec's two
representers) for every value a record can hold."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from statedump.core import codec


class _Stock(codec._BaseDumper):  # type: ignore[misc]
    def ignore_aliases(self, data: Any) -> bool:
        return True


_Stock.add_representer(str, codec._str)
_Stock.add_representer(datetime, codec._datetime)


def _reference(data: dict[str, Any]) -> str:
    text: str = yaml.dump(data, Dumper=_Stock, sort_keys=False, allow_unicode=True, width=100_000, indent=2)
    return text


_TRICKY = [
    "",
    " ",
    "yes",
    "No",
    "null",
    "~",
    "1e3",
    "0x1F",
    "1_000",
    "12:30:45",
    "2026-12-01",
    "2026-12-01T12:00:00Z",
    "-",
    "- item",
    "a: b",
    "#hash",
    "key: value # c",
    "'quoted'",
    '"double"',
    "tab\there",
    "line\n",
    "two\nlines",
    "trailing space \nnext",
    "\n leading newline",
    "  indented\n  block\n",
    "ünïcödé ✓ 漢字",
    "\u2028sep",
    "\x85next",
    "\x07bell",
    "*alias",
    "&anchor",
    "!tag",
    "%directive",
    "@at",
    "`tick",
    "...",
    "---",
    "=",
    "<<",
    ".inf",
    "-.NaN",
    "+1",
    "0o17",
    "1.5",
    "x" * 300,
]

_scalars = st.one_of(
    st.sampled_from(_TRICKY),
    st.text(max_size=40),
    st.integers(),
    st.booleans(),
    st.none(),
    st.floats(allow_nan=True),
    st.datetimes(timezones=st.just(UTC)),
)
_values = st.recursive(
    _scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=10), inner, max_size=4)),
    max_leaves=20,
)


def test_tricky_texts_as_keys_and_values() -> None:
    data: dict[str, Any] = {t: t for t in _TRICKY}
    data["list"] = [*_TRICKY, [], {}, [[1, 2], {"a": None}], 3.5, True, datetime(2026, 12, 1, tzinfo=UTC)]
    data["nested"] = {"a": [{"b": "multi\nline", "c": []}], "d": {}}
    assert codec._emit(data) == _reference(data)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.text(max_size=12), _values, max_size=6))
def test_any_plain_data(data: dict[str, Any]) -> None:
    assert codec._emit(data) == _reference(data)
