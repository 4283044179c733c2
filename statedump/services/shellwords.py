"""Splitting a shell line into words and operators, in time linear in its length.

`shlex` (POSIX mode, words split on white space, `;&|<>` as operators, `#` not a comment)
is the reading statedump means, but it builds each token a character at a time: a quoted
word of 1 MB (a pasted prompt in `--chat-template "…"`, a heredoc) took minutes, and the guard
reads every command an agent runs. This is the same reading with one regular expression; the
tests compare the two on generated lines.
"""

from __future__ import annotations

import re

# A word is a run of plain characters, quoted strings and escaped characters; operators are runs
# of `;&|<>`; an opening quote with no closing one (or a lone trailing backslash) leaves the line
# unfinished.
_PART = r"""[^\s;&|<>'"\\]+|'[^']*'|"(?:[^"\\]|\\.)*"|\\."""
_TOKEN = re.compile(rf"""(?P<space>\s+)|(?P<op>[;&|<>]+)|(?P<word>(?:{_PART})+)|(?P<open>['"\\])""", re.S)
_WORD_PARTS = re.compile(_PART, re.S)
_IN_DOUBLE = re.compile(r'\\(["\\])')
# For finding where lines end: quoted strings (which may hold newlines), escapes, newlines.
_LINE_PARTS = re.compile(r"""'[^']*'|"(?:[^"\\]|\\.)*"|\\.|\n|['"]""", re.S)


def _unquote(word: str) -> str:
    out = []
    for part in _WORD_PARTS.findall(word):
        if part[0] == "'":
            out.append(part[1:-1])
        elif part[0] == '"':
            out.append(_IN_DOUBLE.sub(r"\1", part[1:-1]))  # in double quotes only \" and \\ escape
        elif part[0] == "\\":
            out.append(part[1:])
        else:
            out.append(part)
    return "".join(out)


def split_words(line: str) -> list[str] | None:
    """The words and operators of `line`, quotes removed; None when a quote is left open."""
    out: list[str] = []
    for m in _TOKEN.finditer(line):
        kind = m.lastgroup
        if kind == "open":
            return None
        if kind == "op":
            out.append(m.group())
        elif kind == "word":
            out.append(_unquote(m.group()))
    return out


def logical_lines(text: str) -> list[str]:
    """Lines with backslash-newline continuations joined and quoted newlines kept inside their
    line; from a quote that never closes, the rest of the text is one line of bare words."""
    joined = re.sub(r"\\\r?\n", " ", text).replace("\r\n", "\n")
    out: list[str] = []
    start = 0
    for m in _LINE_PARTS.finditer(joined):
        part = m.group()
        if part == "\n":
            out.append(joined[start : m.start()])
            start = m.end()
        elif part in ("'", '"'):
            rest = joined[start:].removesuffix("\n")
            out.append(rest.replace('"', " ").replace("'", " "))
            return out
    if start < len(joined):
        out.append(joined[start:])
    return out
