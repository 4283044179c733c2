"""Pieces of statedump's state document read back: list items and their tails, table rows,
numbers, and a decision's fact lines (`Question:`, `Rejected:`, `Trade-off:`, `Enforces:`,
link lines). The labels and separators are `docformat`'s, the renderer's own."""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from statedump.core.render import docformat as fmt
from statedump.core.render.docformat import DOT, SEP
from statedump.models import RELATIONS
from statedump.services.ingest.mdtokens import Segment, plain, segments

if TYPE_CHECKING:
    from markdown_it.tree import SyntaxTreeNode

_REL_LABELS = {fmt.relation_label(rel): rel for rel in RELATIONS}


@dataclass(frozen=True)
class Tail:
    """The end of a list item, `head — extras · status · source · `id``, taken apart."""

    head: str
    extras: list[str]
    id: str
    status: str
    source: str | None

    def fields(self) -> dict[str, Any]:
        """The record fields a tail shows."""
        return {"id": self.id, "status": self.status, "source": self.source}


def tail(segs: list[Segment], statuses: tuple[str, ...], extras: Callable[[list[str]], bool] | None = None) -> Tail | None:
    """Split an item's pieces into head and tail; None when they do not end in one.

    `extras` says which bits may stand before the status (none when it is None). A head may
    hold the separators itself, so every place they could start is tried, leftmost first.
    """
    if len(segs) < 2 or segs[-1][0] != "code" or segs[-2][0] != "text" or not segs[-2][1].endswith(DOT):
        return None
    text = segs[-2][1][: -len(DOT)]
    start = 0
    while (pos := text.find(SEP, start)) >= 0:
        bits = text[pos + len(SEP) :].split(DOT)
        for n in range(len(bits)):
            if (extras(bits[:n]) if extras is not None else n == 0) and bits[n] in statuses:
                return Tail(text[:pos], bits[:n], segs[-1][1], bits[n], DOT.join(bits[n + 1 :]) or None)
        start = pos + 1
    return None


def one_of(*words: str) -> Callable[[list[str]], bool]:
    """A check that the extras of a tail are exactly one of `words`."""
    return lambda bits: len(bits) == 1 and bits[0] in words


def items(blocks: list[SyntaxTreeNode]) -> list[SyntaxTreeNode]:
    """Every item of the bullet lists among `blocks`."""
    return [item for b in blocks if b.type == "bullet_list" for item in b.children]


def rows(blocks: list[SyntaxTreeNode]) -> list[tuple[SyntaxTreeNode, list[str]]]:
    """(row node, cell texts) of every body row of the tables among `blocks`."""
    out = []
    for table in (b for b in blocks if b.type == "table"):
        for part in table.children:
            if part.type != "tbody":
                continue
            for tr in part.children:
                out.append((tr, [plain(td) for td in tr.children]))
    return out


def number(text: str) -> float | None:
    """A value as the renderer wrote it (`2,100`, `172`, `inf`); None when it is not one."""
    try:
        return float("inf") if text == "inf" else float(text.replace(",", ""))
    except ValueError:
        return None


def env_pairs(content: str) -> dict[str, str] | None:
    """The variables of a block of only `export VAR=value` lines (values shell-quoted), or None."""
    try:
        words = shlex.split(content, comments=False, posix=True)
    except ValueError:
        return None
    if not words or len(words) % 2 or any(w != "export" for w in words[::2]):
        return None
    pairs = [w.partition("=") for w in words[1::2]]
    if not all(sep and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", k) for k, sep, _ in pairs):
        return None
    return {k: v for k, _, v in pairs}


def is_env(content: str) -> bool:
    """True for a block of only `export VAR=value` lines."""
    return env_pairs(content) is not None


def tradeoff(text: str) -> dict[str, Any]:
    """`aspect: before → after unit — note` back into a trade-off."""
    note = None
    if SEP in text:
        text, note = text.split(SEP, 1)
    aspect, _, change = text.partition(": ")
    before = after = unit = None
    if change:
        values = change.split(fmt.ARROW)
        if len(values) == 2:
            before, after = values
        else:
            after = change
        m = re.fullmatch(r"([-+~]?[\d.,]+[A-Za-z%]?)\s+(\S.*)", after)
        if m:
            after, unit = m.group(1), m.group(2)
    return {"aspect": aspect, "before": before, "after": after, "unit": unit, "note": note}


def decision_facts(facts: SyntaxTreeNode) -> dict[str, Any]:
    """A decision's fact list back into its fields."""
    data: dict[str, Any] = {"alternatives": [], "tradeoffs": [], "enforces": [], "links": {}}
    for item in facts.children:
        segs = segments(item.children[0]) if item.children else []
        text = "".join(v for _, v in segs)
        label, _, value = text.partition(": ")
        if not _ and text.endswith(":"):
            label = text[:-1]  # `Choice: ` lost its trailing space: the value was blank
        if label == fmt.QUESTION:
            data["question"] = value
        elif label == fmt.CHOICE:
            # A blank choice is still a choice (the field is required); a space keeps the document the same.
            data["choice"] = value or " "
        elif label == fmt.RATIONALE:
            data["rationale"] = value
        elif label == fmt.REJECTED:
            option, _, why = value.partition(SEP)
            if not _ and value.endswith(SEP.rstrip()):
                option = value[: -len(SEP.rstrip())]  # a blank reason: the line lost its trailing space
            data["alternatives"].append({"option": option, "why_not": why or " "})
        elif label == fmt.TRADEOFF:
            data["tradeoffs"].append(tradeoff(value))
        elif label == fmt.ENFORCES and len(segs) > 2 and segs[2] == ("text", fmt.ENFORCES_ON):
            setting = segs[1][1]
            commands = [v for k, v in segs[3:] if k == "code"]
            if setting.startswith("-"):
                flag, _, val = setting.partition(" ")
                target: dict[str, str | None] = {"flag": flag, "value": val or None}
            else:
                env, _, val = setting.partition("=")
                target = {"env": env, "value": val or None}
            data["enforces"] += [{"command": c, **target} for c in commands]
        elif label in _REL_LABELS:
            data["links"][_REL_LABELS[label]] = [v for k, v in segs if k == "code"]
    return data
