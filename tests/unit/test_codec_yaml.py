"""The strict YAML reader and the writer: plain YAML only, and the same meaning as the safe loader."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from statedump.core import codec
from statedump.core.errors import StatedumpError
from statedump.models import Checkpoint, Session

SAMPLES = [
    "a: 1\nb: 1.5\nc: true\nd: ~\ne: 2026-03-14T09:30:00Z\nf: yes\ng: '1'\nh: 0x1f\ni: 1_000\nj: .inf\nk: 2026-03-14\n",
    "list:\n- one\n- 2\n- {x: null}\nempty: ''\nblock: |\n  two\n  lines\n",
    "title: !!str 5\nn: -.5e3\nsexagesimal: 1:30\n",
]


@pytest.mark.parametrize("text", SAMPLES)
def test_plain_yaml_reads_as_the_safe_loader_reads_it(text: str) -> None:
    assert codec.load_yaml(text) == yaml.load(text, Loader=yaml.SafeLoader)


@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
        lambda inner: st.lists(inner) | st.dictionaries(st.text(), inner),
        max_leaves=20,
    )
)
@settings(max_examples=200, derandomize=True)
def test_anything_the_dumper_writes_reads_back_the_same(value: object) -> None:
    text = yaml.safe_dump({"v": value}, allow_unicode=True)
    assert codec.load_yaml(text) == yaml.safe_load(text)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("a: &x [1]\nb: *x\n", "aliases are not allowed"),
        ("a: 1\na: 2\n", "appears twice"),
        ("base: &b {x: 1}\n<<: *b\n", "merge keys"),
        ("<<: {x: 1}\n", "merge keys"),
        ("a: !!binary aGk=\n", "!!binary"),
        ("a: !!set {x: null}\n", "!!set"),
        ("a: !!python/name:os.system x\n", "unsupported YAML tag"),
        ("? [1, 2]\n: x\n", "plain text"),
    ],
)
def test_what_statedump_files_never_hold_is_refused(text: str, words: str) -> None:
    with pytest.raises(StatedumpError, match=words.replace("!", "\\!").replace("(", "\\(")):
        codec.parse_yaml(text.encode(), "f.yaml")


def test_an_alias_of_a_single_value_is_still_read() -> None:
    # Older versions wrote `&id001` / `*id001` for a repeated date; such stores stay readable.
    assert codec.parse_yaml(b"a: &d 2026-03-14T09:30:00Z\nb: *d\n", "f.yaml")["b"] == datetime(2026, 3, 14, 9, 30, tzinfo=UTC)


def test_a_repeated_value_is_written_twice_never_as_an_anchor() -> None:
    when = datetime(2026, 3, 14, 9, 30, tzinfo=UTC)
    text = codec.dump_session(Session(id="s", title="t", started=when, checkpoints=[Checkpoint(at=when, source="msg 1")]))
    assert "&" not in text and "*" not in text
    assert codec.load_session(text.encode(), "session.yaml").started == when
