"""An offline estimate of how many tokens a text costs a language model.

No tokenizer is downloaded or shipped: the estimate is a conservative rule of
thumb, so that a prompt cut to fit a budget by this estimate also fits the real
tokenizers of current models, which split English prose into about four
characters per token and code, numbers and non-ASCII text into shorter pieces.

    tokens = max(ceil(weighted_chars / 4), ceil(words * 1.3))

where `weighted_chars` counts every non-ASCII character as four (a dash, an
arrow or an accented letter is often a whole token, or two) and `words` are runs
of non-space characters.
"""

from __future__ import annotations

import math

CHARS_PER_TOKEN = 4
"""ASCII characters per token for prose; code and figures run shorter, which the word rule catches."""
TOKENS_PER_WORD = 1.3
"""Tokens per whitespace-separated word: short words are one token, ids and numbers several."""
NON_ASCII_WEIGHT = 4
"""A non-ASCII character counts as this many ASCII characters (one token by the first rule)."""


def estimate_tokens(text: str) -> int:
    """Tokens `text` is estimated to cost, rounded up; see the module docstring for the rule."""
    if not text:
        return 0
    non_ascii = sum(1 for ch in text if ord(ch) > 127)
    weighted = len(text) + (NON_ASCII_WEIGHT - 1) * non_ascii
    words = len(text.split())
    return max(math.ceil(weighted / CHARS_PER_TOKEN), math.ceil(words * TOKENS_PER_WORD))
