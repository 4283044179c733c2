"""One item of a summary read for what it says about itself: a status marker or prefix
(`[x]`, `✅`, `Blocked:`, "(FIXED)"), a placeholder that holds nothing ("(none)", "TBD"), a
heading that is itself an item (`### Issue 2: SSH tunnel error (FIXED)`), and a decision's
choice, alternative and rationale when its sentence says them."""

from __future__ import annotations

import re
from dataclasses import dataclass

# A marker's meaning, before it is mapped to a kind's own status words.
DONE, TODO, DOING, BLOCKED, DROPPED, PROPOSED, FIXED, FAILED = (
    "done",
    "todo",
    "in-progress",
    "blocked",
    "dropped",
    "proposed",
    "fixed",
    "failed",
)

_LEAD_MARKS: list[tuple[str, str]] = [
    (r"\[[xX✓✔]\]|✅|☑️?|✔️?|✓|🟢", DONE),
    (r"\[ \]|🔲|☐|⬜|⬛|⏳|⏸️?|🔜|📋", TODO),
    (r"\[[-~/]\]|🚧|🔄|🟡|⚙️?|🏗️?", DOING),
    (r"❌|✗|✘|🔴|⛔", FAILED),
    (r"🚫|🛑", BLOCKED),
]
_LEAD_WORDS: list[tuple[str, str]] = [
    (r"in[- ]progress|wip|doing|ongoing|current(?:ly)?|active|started", DOING),
    (r"blocked(?: on| by)?|blocker|stuck", BLOCKED),
    (r"left|remaining|next|todo|to ?do|pending|open|not started|need(?:s|ed)? to", TODO),
    (r"done|completed?|finished|shipped|merged|implemented", DONE),
    (r"fixed|resolved|solved", FIXED),
    (r"ruled out|tried|failed|dead end|doesn'?t work|does not work|no gain|rejected", FAILED),
    (r"dropped|abandoned|won'?t do|wontfix|cancell?ed|skipped", DROPPED),
    (r"proposed|optional(?:ly)?|maybe|consider|idea|nice to have|could", PROPOSED),
]
_LEAD = re.compile(
    r"^\s*(?:" + "|".join(f"(?P<m{n}>{p})" for n, (p, _) in enumerate(_LEAD_MARKS)) + r")\s*",
)
_WORD = re.compile(
    r"^\s*\**(?:" + "|".join(f"(?P<w{n}>{p})" for n, (p, _) in enumerate(_LEAD_WORDS)) + r")\**\s*(?::|—|–|-\s)\**\s*",
    re.I,
)
# Words that say a status inside the text: in capitals or in brackets, so prose ("completed the
# migration") is not taken for a marker.
_INLINE: list[tuple[str, str]] = [
    (r"\((?:fixed|resolved|solved)\b[^)]*\)|\b(?:FIXED|RESOLVED|SOLVED)\b|✅ fixed", FIXED),
    (r"\((?:completed?|done|finished)\b[^)]*\)|\b(?:COMPLETED?|DONE|FINISHED)\b", DONE),
    (r"\((?:failed|broken|does not work)\b[^)]*\)|\b(?:FAILED|BROKEN)\b", FAILED),
    (r"\(blocked\b[^)]*\)|\bBLOCKED\b|\bBLOCKER\b|\bblocked (?:on|by)\b", BLOCKED),
    (r"\((?:in progress|current|wip|ongoing)\b[^)]*\)|\bIN PROGRESS\b|\bWIP\b", DOING),
    (r"\((?:todo|pending|not started)\b[^)]*\)|\bTODO\b|\bPENDING\b", TODO),
    (r"\((?:dropped|abandoned|won'?t do)\b[^)]*\)|\bDROPPED\b|\bABANDONED\b", DROPPED),
]
_TRAIL = [(r"[✅✔✓☑]\s*(?:\([^)]*\))?\s*$", DONE), (r"[❌✗✘]\s*(?:\([^)]*\))?\s*$", FAILED), (r"🚧\s*$", DOING)]

# An item's first word that says its status without a colon (`Optionally regenerate …`).
_VERB = re.compile(r"^\W*(optionally|maybe|resolved|fixed|completed|finished|blocked on|waiting (?:on|for))\b", re.I)


def _verb_state(word: str) -> str:
    word = word.lower()
    if word in ("resolved", "fixed"):
        return FIXED
    if word in ("completed", "finished"):
        return DONE
    if word.startswith(("blocked", "waiting")):
        return BLOCKED
    return PROPOSED


_PLACEHOLDER = re.compile(
    r"^[\s\-*_>]*[(\[<]?\s*(?:none(?: yet| so far| found)?|nothing(?: yet)?|n/?a|tbd|tbc|todo|\.{3}|…|-+|—)\s*[)\]>]?[\s.!]*$"
    # A template's instruction to whoever fills it in stands in brackets: "(Fill in current objective)".
    r"|^[\s\-*_>]*[(\[<]\s*(?:fill in|fill me|what |list |add |describe|enter|insert|your |name\b|e\.g\.|placeholder)[^)\]>]*[)\]>][\s.]*$",
    re.I,
)


@dataclass(frozen=True)
class Marked:
    """An item's text with its own status marker taken off, and what the marker said (or None)."""

    state: str | None
    text: str


def marked(text: str) -> Marked:
    """The status an item gives itself, wherever its marker stands, and the text without it."""
    out = text
    m = _LEAD.match(out)
    if m:
        state = next(_LEAD_MARKS[int(k[1:])][1] for k, v in m.groupdict().items() if v is not None)
        rest = out[m.end() :]
        w = _WORD.match(rest)  # `✅ Done: x` says it twice
        return Marked(state, rest[w.end() :] if w else rest)
    w = _WORD.match(out)
    if w:
        state = next(_LEAD_WORDS[int(k[1:])][1] for k, v in w.groupdict().items() if v is not None)
        return Marked(state, out[w.end() :] if w.end() < len(out) else out)
    v = _VERB.match(out)
    if v:
        return Marked(_verb_state(v.group(1)), out)
    for pattern, state in _TRAIL:
        if re.search(pattern, out):
            return Marked(state, re.sub(pattern, "", out).rstrip())
    for pattern, state in _INLINE:
        if re.search(pattern, out):
            return Marked(state, out)
    return Marked(None, out)


def is_placeholder(text: str) -> bool:
    """True for text that only holds a template's blank: "(none)", "None yet.", "N/A", "TBD",
    "(Fill in …)", or `Label: (name)`."""
    line = " ".join(text.replace("*", "").split())
    if not line:
        return True
    if _PLACEHOLDER.match(line) or re.match(
        r"^no (?:errors?|issues?|problems?|blockers?)\b.{0,40}\b(?:encountered|found|so far|yet|reported)\b", line, re.I
    ):
        return True
    label, sep, value = line.partition(": ")
    return bool(sep) and len(label) < 40 and bool(_PLACEHOLDER.match(value))


def status_for(kind: str, state: str | None, default: str) -> str:
    """A marker's meaning in a kind's own status words; the section's status when it says none."""
    table = {
        "task": {
            DONE: "done",
            FIXED: "done",
            TODO: "todo",
            DOING: "in-progress",
            BLOCKED: "blocked",
            DROPPED: "dropped",
            FAILED: "blocked",
            PROPOSED: "proposed",
        },
        "discovery": {FIXED: "resolved", DONE: "resolved", FAILED: "ruled-out", DROPPED: "ruled-out", PROPOSED: "suspected"},
        "decision": {DONE: "accepted", FIXED: "accepted", PROPOSED: "proposed", FAILED: "rejected", DROPPED: "rejected", TODO: "proposed"},
        "instruction": {DONE: "done", FIXED: "done", DROPPED: "superseded"},
        "command": {FAILED: "failed"},
        "goal": {DONE: "achieved", FIXED: "achieved", DROPPED: "abandoned"},
        "compat": {DONE: "works", FIXED: "works", FAILED: "fails"},
    }
    return table.get(kind, {}).get(state or "", default)


# `Issue 2: …`, `Attempt 1: … (FAILED)`, `Option B: …`, `Step 1: …`, `Feature 3 — …`: a heading
# that names one item, with the text under it as its body.
_HEADING_ITEM = re.compile(
    r"^\W*(?:(?P<letter>[A-Z])\)\s*(?P<lrest>.+)$|(?P<word>issue|problem|bug|error|attempt|try|option|approach|alternative|solution|step|phase|feature|task|priority|milestone|decision)"
    r"\s*(?:#?\d+[a-z]?|[A-Z]\b)?\s*(?:[:—–.)]|-\s)\s*(?P<rest>.+)$)",
    re.I,
)
_HEADING_KIND = {
    "issue": "discovery",
    "problem": "discovery",
    "bug": "discovery",
    "error": "discovery",
    "attempt": "discovery:ruled-out?",
    "try": "discovery:ruled-out?",
    "option": "decision:proposed",
    "approach": "decision:proposed",
    "alternative": "decision:proposed",
    "solution": "decision:proposed",
    "decision": "decision",
    "step": "task:todo",
    "task": "task",
    "priority": "task:todo",
    "milestone": "task",
    "phase": "task",
    "feature": "task",
}


def heading_item(name: str) -> tuple[str, str] | None:
    """(mode, title) when a heading names one item by its own first word, else None."""
    m = _HEADING_ITEM.match(name)
    if m and m.group("letter"):
        return "task", m.group("lrest").strip()  # `### D) Example app refactor`: one part of the work
    if not m or not m.group("rest").strip():
        return None
    return _HEADING_KIND[m.group("word").lower()], m.group("rest").strip()


@dataclass(frozen=True)
class Choice:
    choice: str
    alternative: str | None = None
    why_not: str | None = None
    rationale: str | None = None


_BECAUSE = re.compile(r"\s*(?:[,;(]\s*|\s—\s|\s-\s)?\b(?:because|since|as|so that|due to)\b\s+|\s+[—–]\s+|:\s+", re.I)


def decision_parts(text: str) -> Choice:
    """ "Chose X over Y because Z", "X instead of Y: Z", "Decided to X": choice, the alternative
    with why it lost, and the rationale, as far as the sentence says them."""
    line = " ".join(text.split()).rstrip(".")
    line = re.sub(r"^(?:we |i )?(?:chose|picked|went with|selected|decided (?:on|to)|decision:)\s+", "", line, flags=re.I)
    rationale = None
    m = re.search(r"\s*(?:[,;]\s*|\s[—–-]\s|\s\()?\b(?:because|since|so that|due to)\b\s+", line, re.I)
    if m:
        line, rationale = line[: m.start()], line[m.end() :].rstrip(")")
    switched = re.search(r"\bfrom\s+(.+?)\s+to\s+(.+)$", line, re.I)
    if switched and re.search(r"\b(switched|moved|changed|migrated)\b", line[: switched.start()], re.I):
        return Choice(switched.group(2).strip(" ,;."), switched.group(1).strip(" ,;"), rationale or "replaced", rationale)
    alt = re.search(r"\s+(?:over|instead of|rather than)\s+", line, re.I)
    if alt and alt.start() > 0:
        choice, other = line[: alt.start()], line[alt.end() :]
        if rationale is None:
            parts = re.split(r":\s+|\s[—–]\s", other, maxsplit=1)
            if len(parts) == 2:
                other, rationale = parts
        other = other.strip(" ,;()")
        return Choice(choice.strip(" ,;"), other or None, rationale or "not chosen", rationale)
    return Choice(line.strip(" ,;"), None, None, rationale)
