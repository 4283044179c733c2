"""The linear shell-line splitter reads lines as shlex does (POSIX, split on white space, `;&|<>`
operators, no comments), and a 1 MB quoted word takes a moment, not minutes."""

from __future__ import annotations

import shlex

from hypothesis import given, settings
from hypothesis import strategies as st

from statedump.services.shellwords import logical_lines, split_words


def _shlex(line: str) -> list[str] | None:
    lexer = shlex.shlex(line, posix=True, punctuation_chars=";&|<>")
    lexer.whitespace_split = True
    lexer.commenters = ""
    try:
        return list(lexer)
    except ValueError:
        return None


def _shlex_lines(text: str) -> list[str]:
    # The reading flags.py had before: one shlex call per growing line.
    import re

    joined = re.sub(r"\\\r?\n", " ", text)
    out: list[str] = []
    pending = ""
    for line in joined.splitlines():
        pending = f"{pending}\n{line}" if pending else line
        if _shlex(pending) is not None:
            out.append(pending)
            pending = ""
    if pending:
        out.append(pending.replace('"', " ").replace("'", " "))
    return out


LINES = [
    "python -m sglang.launch_server --model-path x --kv-cache-dtype bf16",
    "NCCL_P2P_LEVEL=SYS vllm serve m --port 8000 && curl -s localhost:8000/v1/models | jq .",
    'echo \'a b\' "c \\"d\\" e" f\\ g > out.log 2>&1',
    "cmd --url 'http://h/x#frag' --x=\"$HOME/a b\"; other",
    "a|b||c&d&&e;f;;g<h>i>>j",
    'unfinished "quote here',
    "trailing backslash \\",
    "",
]


def test_known_lines_read_as_shlex_reads_them() -> None:
    for line in LINES:
        assert split_words(line) == _shlex(line), line


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet="ab =-;&|<>'\"\\#\t$", max_size=30))
def test_generated_lines_read_as_shlex_reads_them(line: str) -> None:
    assert split_words(line) == _shlex(line)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="ab '\"\\\n;", max_size=40))
def test_logical_lines_as_before(text: str) -> None:
    if text.endswith("\\"):
        return  # a lone backslash at the very end: shlex never finishes such a line either
    assert [x for x in logical_lines(text)] == _shlex_lines(text)


def test_a_megabyte_quoted_word() -> None:
    # shlex took minutes over this (it grows each token a character at a time); this returns at once.
    word = "word " * 200_000
    words = split_words(f'python -m sglang.launch_server --chat-template "{word}"')
    assert words is not None and words[-1] == word
    assert len(logical_lines(f"a '{word}\n{word}'\nb")) == 2
