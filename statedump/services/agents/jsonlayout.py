"""A JSON document written back with the layout its author gave it, except where it changed.

`agent install` adds a few entries to files people write by hand (`.claude/settings.json`,
`.mcp.json`, `opencode.json`). Writing the whole document again with `json.dumps` would spread
every compact `["a", "b"]` over lines of its own, so the new text is spliced from the old one:
every value equal to the value it replaces keeps its original text byte for byte; an object or
array that changed keeps its untouched members as they were written, and is laid out as before
(on one line when it was on one line, else one member a line at the file's indent); only what is
new is written fresh, in the same style.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

_SPACE = " \t\n\r"
_DECODER = json.JSONDecoder()


@dataclass
class Node:
    """Where one value is in the text, and for objects and arrays where their members are."""

    start: int
    end: int
    members: list[tuple[str, Node]] = field(default_factory=list)
    items: list[Node] = field(default_factory=list)


def _skip(text: str, i: int) -> int:
    while i < len(text) and text[i] in _SPACE:
        i += 1
    return i


def scan(text: str, i: int = 0) -> Node:
    """The value starting at (or after the white space at) `i`; the text must be valid JSON."""
    i = _skip(text, i)
    if text[i] == "{":
        node = Node(i, i)
        i = _skip(text, i + 1)
        while text[i] != "}":
            key, i = _DECODER.raw_decode(text, i)
            i = _skip(text, i)  # then the colon
            value = scan(text, i + 1)
            node.members.append((key, value))
            i = _skip(text, value.end)
            if text[i] == ",":
                i = _skip(text, i + 1)
        node.end = i + 1
        return node
    if text[i] == "[":
        node = Node(i, i)
        i = _skip(text, i + 1)
        while text[i] != "]":
            item = scan(text, i)
            node.items.append(item)
            i = _skip(text, item.end)
            if text[i] == ",":
                i = _skip(text, i + 1)
        node.end = i + 1
        return node
    _, end = _DECODER.raw_decode(text, i)
    return Node(i, end)


def _same(a: Any, b: Any) -> bool:
    # `1 == True` and `1 == 1.0` in Python; not the same text in JSON.
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


class _Writer:
    def __init__(self, text: str, unit: str) -> None:
        self.text = text
        self.unit = unit

    def fresh(self, value: Any, depth: int, one_line: bool) -> str:
        if one_line:
            return json.dumps(value, ensure_ascii=False)
        body = json.dumps(value, indent=self.unit, ensure_ascii=False)
        return body.replace("\n", "\n" + self.unit * depth)

    def value(self, new: Any, node: Node | None, depth: int, one_line: bool) -> str:
        if node is None:
            return self.fresh(new, depth, one_line)
        raw = self.text[node.start : node.end]
        old = json.loads(raw)
        if _same(old, new):
            return raw
        flat = one_line or ("\n" not in raw and bool(old))  # an empty {} or [] grows over lines
        if isinstance(new, dict) and isinstance(old, dict):
            known = dict(node.members)
            parts = [f"{json.dumps(k, ensure_ascii=False)}: {self.value(v, known.get(k), depth + 1, flat)}" for k, v in new.items()]
            return self._join("{", parts, "}", depth, flat)
        if isinstance(new, list) and isinstance(old, list):
            parts, at = [], 0
            for item in new:
                # The old items, in order, that are still there keep their text.
                match = next((j for j in range(at, len(old)) if _same(old[j], item)), None)
                if match is None:
                    parts.append(self.fresh(item, depth + 1, flat))
                else:
                    parts.append(self.text[node.items[match].start : node.items[match].end])
                    at = match + 1
            return self._join("[", parts, "]", depth, flat)
        return self.fresh(new, depth, flat)

    def _join(self, open_: str, parts: list[str], close: str, depth: int, flat: bool) -> str:
        if not parts:
            return open_ + close
        if flat:
            return open_ + ", ".join(parts) + close
        inner = "\n" + self.unit * (depth + 1)
        return open_ + inner + ("," + inner).join(parts) + "\n" + self.unit * depth + close


def rewrite(original: str, new: Any, indent: int | str) -> str:
    """`new` as JSON text, keeping the layout of `original` (a valid JSON document) wherever it can."""
    root = scan(original)
    unit = indent if isinstance(indent, str) else " " * indent
    body = _Writer(original, unit).value(new, root, 0, False)
    return original[: root.start] + body + original[root.end :]
