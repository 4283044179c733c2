"""Reading flags and environment values out of a command as written.

A command record keeps its text verbatim: a shell line (with backslash-newline
continuations, `VAR=value` prefixes, `export` lines, several commands joined by `;`,
`&&` or `|`), a systemd unit (`Environment=` and `ExecStart=` lines), or an env block.
`parse_command` finds, without running anything, which flags it passes with which
values and which environment it sets, so that `check` and `why` can compare them with
what a decision enforces, and importers can reuse the same reading.

What it cannot know without each program's option table: whether a flag takes a value.
A flag followed by a word that does not start with `-` is read as taking that word
(`--port 30000`); `--flag=value` is always unambiguous. A word starting with `-`
followed by a digit (`-1`) counts as a value.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

from statedump.services.shellwords import logical_lines, split_words

Form = Literal["shell", "systemd", "env"]

_ASSIGN = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)=(.*)$", re.S)
_OPERATORS = {";", ";;", "&", "&&", "|", "||", "|&"}
_REDIRECT = re.compile(r"^[<>]+&?$|^&>>?$")
_DESCRIPTOR = re.compile(r"(?:^|\s)(\d+)[<>]")
_NEGATIVE_NUMBER = re.compile(r"^-\d")
_UNIT_LINE = re.compile(r"^([A-Za-z][A-Za-z0-9]*)\s*=\s*(.*)$")
# systemd lets an Exec line start with these characters to change how it runs.
_EXEC_PREFIX = "@-:+!|"


@dataclass(frozen=True)
class ParsedCommand:
    """Flags and environment read from a command's text."""

    flags: dict[str, list[str | None]] = field(default_factory=dict)
    """Flag as written (`--kv-cache-dtype`, `-H`) -> every value it was given, in order;
    None for a flag given without a value."""
    env: dict[str, str] = field(default_factory=dict)
    """Environment the command runs with: the record's `env` mapping, then assignments in
    the text (`VAR=value cmd`, `export VAR=value`, systemd `Environment=`), later winning."""
    programs: list[list[str]] = field(default_factory=list)
    """Each simple command's words after its environment prefix, for callers that need more."""

    def values(self, flag: str) -> list[str | None] | None:
        """Values of `flag` (given with or without its leading dashes), or None when absent."""
        for name in (flag, f"--{flag}") if not flag.startswith("-") else (flag,):
            if name in self.flags:
                return self.flags[name]
        return None

    def value(self, flag: str) -> str | None:
        """The value that takes effect (the last one given), or None."""
        found = self.values(flag)
        return found[-1] if found else None


def _is_flag(word: str) -> bool:
    return word.startswith("-") and word not in ("-", "--") and not _NEGATIVE_NUMBER.match(word)


def _read_words(words: list[str], flags: dict[str, list[str | None]]) -> None:
    i = 0
    while i < len(words):
        word = words[i]
        if word == "--":
            return  # everything after `--` is positional
        if _is_flag(word):
            if word.startswith("--") and "=" in word:
                name, _, value = word.partition("=")
                flags.setdefault(name, []).append(value)
            elif i + 1 < len(words) and not _is_flag(words[i + 1]):
                flags.setdefault(word, []).append(words[i + 1])
                i += 1
            else:
                flags.setdefault(word, []).append(None)
        i += 1


def _simple_command(words: list[str], env: dict[str, str], flags: dict[str, list[str | None]], programs: list[list[str]]) -> None:
    i = 0
    if words and words[0] in ("export", "declare", "env"):
        i = 1
        while i < len(words) and words[i].startswith("-"):
            i += 1  # `export -n`, `env -i`
    while i < len(words) and (m := _ASSIGN.match(words[i])):
        env[m.group(1)] = m.group(2)
        i += 1
    rest = words[i:]
    if rest and rest[0] == "env":  # `VAR=1 env OTHER=2 cmd`
        _simple_command(rest, env, flags, programs)
        return
    if rest:
        programs.append(rest)
        _read_words(rest[1:], flags)


def _tokens(line: str) -> list[str] | None:
    return split_words(line)  # None: an open quote, the line goes on below


def _logical_lines(text: str) -> list[str]:
    """Lines with backslash-newline continuations joined and open quotes carried over."""
    return logical_lines(text)


def _parse_shell(text: str, env: dict[str, str], flags: dict[str, list[str | None]], programs: list[list[str]]) -> None:
    for line in _logical_lines(text):
        tokens = _tokens(line) or []
        # Splitting loses spacing, so `2>` and `--workers 2 >` look alike: remember which
        # numbers were written right against a redirection.
        descriptors = set(_DESCRIPTOR.findall(line))
        words: list[str] = []
        skip_next = False
        for token in tokens:
            if skip_next:
                skip_next = False
                continue
            if token.startswith("#") and not words:
                break  # a comment line
            if token.startswith("#") and words:
                break  # a trailing comment
            if token in _OPERATORS:
                _simple_command(words, env, flags, programs)
                words = []
            elif _REDIRECT.match(token):
                skip_next = True  # the target: a file, or the descriptor of `>&`
                if words and words[-1] in descriptors:
                    words.pop()  # the `2` of `2>`, written against the operator
            else:
                words.append(token)
        _simple_command(words, env, flags, programs)


def _parse_systemd(text: str, env: dict[str, str], flags: dict[str, list[str | None]], programs: list[list[str]]) -> None:
    joined = re.sub(r"\\\r?\n", " ", text)
    for raw in joined.splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", ";", "[")):
            continue
        m = _UNIT_LINE.match(line)
        if not m:
            continue
        key, value = m.group(1), m.group(2).strip()
        if key == "Environment":
            for item in _tokens(value) or value.split():
                if a := _ASSIGN.match(item):
                    env[a.group(1)] = a.group(2)
        elif key == "ExecStart":
            words = _tokens(value.lstrip(_EXEC_PREFIX)) or value.lstrip(_EXEC_PREFIX).split()
            if words and words[0].rsplit("/", 1)[-1] == "env":
                words = ["env", *words[1:]]
            _simple_command(words, env, flags, programs)


def parse_command(text: str, form: Form | str = "shell", env: dict[str, str] | None = None) -> ParsedCommand:
    """Read the flags and environment of a command.

    `form` is how `text` is written: `shell` (any shell lines), `systemd` (a unit file:
    `Environment=` and `ExecStart=` lines, continuation lines joined), or `env` (lines of
    `VAR=value`, `export` allowed). `env` is the record's own environment mapping; values
    written in the text override it, since the text is what runs.
    """
    merged: dict[str, str] = dict(env or {})
    flags: dict[str, list[str | None]] = {}
    programs: list[list[str]] = []
    if form == "systemd":
        _parse_systemd(text, merged, flags, programs)
    else:
        _parse_shell(text, merged, flags, programs)
    return ParsedCommand(flags, merged, programs)
