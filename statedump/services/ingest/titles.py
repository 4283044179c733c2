"""Titles made from text: a quote's first words, a command's first words."""

from __future__ import annotations

import re

from statedump.services.ingest.plan import one_line

_TITLE_WORDS = 80


def short_title(text: str, limit: int = _TITLE_WORDS) -> str:
    """A title for a quote: the quote itself when it fits, else its first words and `…`."""
    line = " ".join(text.split())
    if len(line) <= limit:
        return line
    cut = line[: limit - 1]
    if " " in cut:
        cut = cut[: cut.rfind(" ")]
    return cut.rstrip(" ,;:.-—") + "…"


def command_words(text: str) -> list[str]:
    """The words of a command's first line (continuations joined), its leading `VAR=value`
    settings and `sudo` / `env` taken off: they say nothing about what runs."""
    words = one_line(re.sub(r"\\\n", " ", text), 400).split()
    while words and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*=\S*|sudo|env|\\", words[0]):
        words.pop(0)
    return words


def command_title(text: str, form: str) -> str:
    """A command's first words (`vllm serve …`), or a unit's description: what a reader scans for."""
    if form == "systemd":
        desc = re.search(r"^\s*Description\s*=\s*(.+)$", text, re.M)
        return short_title(f"systemd unit: {desc.group(1)}" if desc else "systemd unit")
    words = command_words(text)
    kept: list[str] = []
    for n, word in enumerate(words):
        # Stop at the first flag, path, model name or URL; `python -m module` keeps its module.
        after_m = n > 0 and words[n - 1] == "-m"
        if len(kept) >= 3 or (not after_m and word != "-m" and (word.startswith("-") or re.search(r"[/:=~*$\\]", word))):
            break
        kept.append(word)
    if not kept:
        return short_title(one_line(text, 200))
    head = " ".join(kept)
    return short_title(head if len(kept) == len(words) else head + " …")
