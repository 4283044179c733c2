"""Text from records, keys, file names and imports, made safe to show: the one rule.

Any character that a terminal or a viewer takes as an instruction rather than as text is
shown as a visible symbol instead: the C0 controls (ESC starts ANSI and OSC sequences: OSC 0
sets the window title, OSC 8 makes a hidden link), DEL, the C1 controls (U+009B is a
one-byte CSI on some terminals), and the bidirectional overrides and isolates that make text
read in another order than it is stored ("Trojan Source"). Plain Python, no imports: the
error line of every command uses it.
"""

from __future__ import annotations

import re

BIDI = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
"""The bidirectional embeddings, overrides and isolates (LRE RLE PDF LRO RLO LRI RLI FSI PDI)."""

_IN_TEXT = re.compile(f"[\\x00-\\x08\\x0b-\\x1f\\x7f-\\x9f{BIDI}]")
"""Shown in multi-line text: every control but tab and line feed."""
_IN_LINE = re.compile(f"[\\x00-\\x1f\\x7f-\\x9f{BIDI}\\u2028\\u2029]")
"""Shown in one line (an error message): line breaks and tabs too, so the line stays one."""
_IN_JSON = re.compile(f"[\\x7f-\\x9f{BIDI}\\u2028\\u2029]")
"""What a JSON encoder leaves raw that a terminal would act on (it escapes C0 itself)."""


def _picture(ch: str) -> str:
    code = ord(ch)
    if code < 0x20:
        return chr(0x2400 + code)  # Unicode's control pictures: ESC shows as U+241B
    if code == 0x7F:
        return "\u2421"
    return "\ufffd"


def visible(text: str) -> str:
    """`text` with every control character (tab and line feed aside) and bidi override shown
    as a visible symbol: `␛` for ESC, `␡` for DEL, `�` for C1 controls and overrides."""
    return _IN_TEXT.sub(lambda m: _picture(m.group(0)), text)


def one_line(text: str) -> str:
    """`visible`, and line breaks and tabs shown too (`␊`, `␉`): for a line that must stay one."""
    return _IN_LINE.sub(lambda m: _picture(m.group(0)), text)


def json_escaped(encoded: str) -> str:
    """JSON text with DEL, C1 controls, bidi overrides and line separators written as `\\uXXXX`
    escapes: the same JSON value, nothing a terminal acts on. They can only stand inside
    strings, where an escape means the same character."""
    return _IN_JSON.sub(lambda m: f"\\u{ord(m.group(0)):04x}", encoded)
