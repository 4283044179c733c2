"""One bullet or paragraph of a summary's section into one record: the section's kind, unless the
item's own words say otherwise ("Fixed …" is a resolved discovery, "Chose X over Y" a decision),
and the item's own status marker before the section's meaning."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from statedump.models import Benchmark, Command, Compat, Component, Decision, Discovery, File, Instruction, Reference, Task
from statedump.services.ingest import items as it
from statedump.services.ingest import tables
from statedump.services.ingest.mdtokens import item_text, plain, segments
from statedump.services.ingest.plan import one_line
from statedump.services.ingest.sections import mode_of
from statedump.services.ingest.titles import command_title, short_title

if TYPE_CHECKING:
    from markdown_it.tree import SyntaxTreeNode

    from statedump.services.ingest.summary import Builder

_URL = re.compile(r"https?://[^\s)>\]]+")
_PATH = re.compile(
    r"(?:~|\.{0,2})?/?[\w.-]+(?:/[\w.*-]+)+/?|[\w-]+\.(?:py|md|json|yaml|yml|toml|sh|service|ts|tsx|js|rs|go|txt|cfg|ini|dart|conf)\b"
)
_CHITCHAT = re.compile(
    r"^\W*(?:(?:thanks?|thank you|thx|ty|great|good|nice|awesome|perfect|cool|excellent|amazing|wonderful|lgtm|ok(?:ay)?|sure|yes|yep|"
    r"got it|sounds good|well done|great work|good job|nice work|love it|much appreciated|cheers)\W*)+$",
    re.I,
)
# Sign-offs and progress figures say nothing to keep: "Good luck!", "1/4 features passing", "80% complete".
_NOISE = re.compile(
    r"^\W*(?:good luck|happy (?:coding|hacking)|let me know|hope this helps|you'?ve got this)\b|^\W*\d+\s*(?:/\s*\d+|%)\s*\w*\s*(?:passing|complete|done|finished)?\W*$",
    re.I,
)
_STANDING = re.compile(r"\b(always|never|must|do not|don't|keep|only|should)\b", re.I)
_DEAD_END = re.compile(r"\b(ruled out|dead end|does not work|doesn't work|did not help|didn't help|no gain|no effect)\b", re.I)
_RESOLVED = re.compile(r"\b(fixed (by|with|in)|resolved (by|with)|fix:|solved by|worked around|fixed\b)|\(fixed", re.I)
_VERSION = re.compile(r"^\s*([A-Za-z][\w .+/-]{0,30}?)(?:\s+version)?\s*[:=]\s*v?(\d+(?:\.\d+)+[\w.+-]*)\s*$", re.I)
_TURNED_OFF = re.compile(
    r"^\W*([\w .+/-]{2,40}?)\s*:\s*(disabled|off|not used|removed)\b.*?\(([^)]*\b(?:incompatib\w*|crash\w*|fail\w*|unsupported|broken|hangs?)\b[^)]*)\)",
    re.I,
)
_ADDED_DEP = re.compile(
    r"^\W*(?:added|installed|pinned|upgraded to)\s+`?([\w.\-\[\]=<>]+)`?\s+(?:as a |as |the )?(?:dependency|package|library)", re.I
)
# `65K context: Good performance` / `200K context: Severe degradation (…, unusable)`: options side by
# side, each with a verdict on whether it works.
_VERDICT = re.compile(r"^\W*([^:]{1,40}?)\s*:\s*(.+)$", re.S)
_WORKS = re.compile(r"^\W*(good|works?|working|stable|optimal|fine|ok|fast|supported|recommended)\b", re.I)
_FAILS = re.compile(
    r"^\W*(severe|unusable|fails?|failing|broken|breaks|crash\w*|incompatible|unsupported|too slow|hangs?|oom|out of memory)\b", re.I
)
# `No CSP added (deferred — would break Clerk …)`: a thing deliberately left out, and why.
_LEFT_OUT = re.compile(
    r"^\W*((?:no|not)\s[^()]{2,60}?\b(?:added|used|enabled|applied|included|done))\s*\(((?:deferred|intentionally|on purpose|would\b)[^)]*)\)",
    re.I,
)
# `Graceful seccomp fallback: checks file existence before adding the flag, so … still work`: a named
# mechanism put in place, and the reason for it.
_MECHANISM = re.compile(
    r"^\W*([A-Z][\w -]{3,40}?)\s*:\s*((?:checks?|uses?|adds?|keeps?|falls? back|skips?|retries|inserts?|wraps?|caches?)\b[^.]*?),\s*so\b\s*(.+)$",
    re.S,
)
_PENDING = re.compile(r"\b(pending|not yet|still (fails|failing|broken)|hasn'?t been|to be (fixed|done)|needs? (a )?(fix|rebuild))\b", re.I)
_HEDGE = re.compile(r"^\W*if\b|\b(may|might|could|possibly|unclear|unknown|suspect\w*|probably|likely)\b", re.I)


def read_item(b: Builder, mode: str, node: SyntaxTreeNode, position: int | None, state: str | None) -> None:
    head = node.children[0] if node.type == "list_item" and node.children else node
    if node.type == "list_item" and not node.children:
        return
    if head.type == "fence":
        b.fence(head, mode)
        return
    if head.type != "paragraph":
        for child in node.children:
            b.block(mode, child, mode)
        return
    headline = plain(head, ticks=True)
    if it.is_placeholder(headline) or _only_emphasis(head) or _NOISE.match(headline):
        return
    if node.type == "paragraph" and headline.strip().endswith(":") and "\n" not in headline.strip():
        return  # "Let me analyze the conversation chronologically:": a lead-in to what follows
    nested = [c for c in node.children[1:] if c.type in ("bullet_list", "ordered_list")] if node.type == "list_item" else []
    label = headline.strip().rstrip(":")
    if headline.strip().endswith(":") and nested and len(label) <= 60 and "\n" not in label and mode_of(label) is not None:
        # `Pending Tasks:` / `Core Benchmarks:` over a nested list: a group label, not an item.
        sub = mode_of(label) if len(label.split()) <= 4 else None
        inner = sub if sub and (sub.startswith("task") or not mode.startswith("task")) else mode
        for child in nested:
            b.block(inner, child, label)
        return
    full = item_text(b.lines, node) if node.type == "list_item" else b.text([node])
    body = full if full.strip() != headline.strip() else None
    mark = it.marked(headline)
    own = state or mark.state
    kind, _, status = mode.partition(":")
    text = mark.text
    kind, status = _retarget(kind, status, text, headline)
    if kind == "discovery" and (own == it.BLOCKED or (status == "unknown" and own in (it.DONE, it.TODO, it.DOING))):
        # "testing blocked on MS-01" in the notes, "Completed 01-02" in a section of unknown kind: work.
        kind, status = "task", ""
    version = _VERSION.match(text.replace("**", "").replace("`", ""))
    if kind in ("discovery", "task") and version and not body:
        kind = "component"
    if kind != "file" and re.fullmatch(r"\s*`[^`\s]+`\s*(?:\([^)]*\))?\s*", text) and _PATH.search(text):
        kind = "file"  # an item that is only a path names a file, whatever the section
    data: dict[str, Any] = {"body": body}
    if kind == "instruction":
        quote = text.strip().strip('"“”')
        if _CHITCHAT.match(quote) and "push" not in quote.lower():
            return
        words = full.strip().strip('"“”') or quote
        standing = bool(_STANDING.search(quote))
        # The quote is the record; a short one is its own title (the document shows it once).
        b.add(
            Instruction, node, title=short_title(quote), quote=words, standing=standing, status=it.status_for("instruction", own, "active")
        )
    elif kind == "decision" and (off := _TURNED_OFF.match(text)):
        # `Flash Attention: Disabled (incompatible with GLM-4.7-Flash)`: a setting that does not work here.
        option = off.group(1).strip()
        b.add(
            Compat,
            node,
            title=f"{option}: fails",
            component=option,
            option=off.group(2),
            target="unspecified",
            status="fails",
            symptom=off.group(3),
        )
    elif kind == "decision":
        parts = it.decision_parts(text)
        alternatives = [{"option": parts.alternative, "why_not": parts.why_not or "not chosen"}] if parts.alternative else []
        b.add(
            Decision,
            node,
            title=text,
            choice=one_line(parts.choice or text, 300),
            alternatives=alternatives,
            rationale=parts.rationale,
            status=it.status_for("decision", own, status or "accepted"),
            body=body,
        )
    elif kind == "task":
        prio = re.match(r"^\s*\(?P(\d)\)?[:.]?\s+(.*)$", text, re.S)
        task_status = it.status_for("task", own, status or "todo")
        priority = int(prio.group(1)) if prio else (position if task_status == "todo" else None)
        b.add(Task, node, title=prio.group(2) if prio else text, status=task_status, priority=priority or None, **data)
    elif kind == "file":
        codes = [v for k, v in segments(head) if k == "code"]
        found = codes[0] if codes else (m.group(0) if (m := _PATH.search(text)) else None)
        title = text.replace(f"`{found}`", "").replace(found or "", "").strip(" -—:*") if found else text
        if found and (not title or re.fullmatch(r"\([^)]*\)", title)):
            title = f"{found} {title}".strip()  # `**path** (NEW)`: the path is what names it
        obsolete = own in (it.DROPPED,) or bool(re.search(r"\b(deleted|removed|obsolete|deprecated|retired)\b", headline, re.I))
        b.paths.add(found or one_line(text, 200))
        b.add(
            File,
            node,
            title=title or found or text,
            path=(path := found or one_line(text, 200)),
            id=b.plan.readable_id("", title or path, key=f"file\x00{path}"),
            status="obsolete" if obsolete else "relevant",
            **data,
        )
    elif kind == "reference":
        url = m.group(0) if (m := _URL.search(full)) else None
        if url is None:
            b.add(Discovery, node, title=text, **data)
        else:
            b.add(Reference, node, title=text.replace(url, "").strip(" -—:<>()[]") or url, url=url, **data)
    elif kind == "command":
        codes = [v for k, v in segments(head) if k == "code"]
        cmd = codes[0] if codes else text
        # A bullet that is only the command is titled by its first words, not the whole line.
        title = command_title(cmd, "shell") if text.strip().strip("`").strip() == cmd.strip() else text
        b.add(Command, node, title=title, text=cmd, form="shell", status=it.status_for("command", own, "current"), **data)
    elif kind == "component":
        dep = _ADDED_DEP.match(text)
        if dep:
            b.add(Component, node, title=text, name=dep.group(1), **data)
        elif version:
            b.add(Component, node, title=text, name=version.group(1).strip(), version=version.group(2), **data)
        else:
            name, _, rest = text.replace("`", "").replace("**", "").partition(" ")
            b.add(Component, node, title=text, name=name.strip(":"), version=rest.strip(" :") or None, **data)
    elif kind == "benchmark" and (found_metrics := tables.bench_items(text)):
        b.add(Benchmark, node, title=text, metrics=found_metrics[0]["metrics"], id=b.plan.readable_id("bench", text, key=full))
    elif kind == "discovery" and (mech := _MECHANISM.match(text)):
        b.add(
            Decision,
            node,
            title=mech.group(1).strip(),
            choice=one_line(f"{mech.group(1).strip()}: {mech.group(2).strip()}", 300),
            rationale=one_line(mech.group(3), 500),
            status=it.status_for("decision", own, "accepted"),
            body=body,
        )
    else:
        _discovery(b, node, text, headline, full, own, status, data)
        _verdicts(b, nested, label)
    if kind not in ("file", "command"):
        _mentioned_files(b, node, head, headline)
    _left_out(b, nested)


def _children(lists: list[SyntaxTreeNode]) -> list[tuple[SyntaxTreeNode, str]]:
    return [(item, plain(item.children[0], ticks=True)) for lst in lists for item in lst.children if item.children]


def _verdicts(b: Builder, nested: list[SyntaxTreeNode], topic: str) -> None:
    """Sub-items that set options side by side, each with its verdict, are compatibility cells of
    the item's topic; one verdict alone is a remark, not a comparison."""
    cells = []
    for item, words in _children(nested):
        if (m := _VERDICT.match(words)) is None:
            continue
        verdict = m.group(2)
        status = "fails" if _FAILS.match(verdict) else "works" if _WORKS.match(verdict) else None
        if status:
            cells.append((item, m.group(1).strip(" *`"), status, verdict))
    if len(cells) < 2:
        return
    for item, option, status, verdict in cells:
        b.add(
            Compat,
            item,
            title=f"{option}: {status}",
            component=one_line(topic, 80),
            option=option,
            target="unspecified",
            status=status,
            symptom=one_line(verdict, 300) if status == "fails" else None,
            body=one_line(verdict, 300),
        )


def _left_out(b: Builder, nested: list[SyntaxTreeNode]) -> None:
    """A sub-item saying something was deliberately not done, and why, is a decision of its own,
    wherever it stands (under a file, a step, a finding)."""
    for item, words in _children(nested):
        if m := _LEFT_OUT.match(words):
            b.add(
                Decision, item, title=one_line(words, 200), choice=m.group(1).strip(), rationale=m.group(2).strip(" —-"), status="accepted"
            )
        _left_out(b, [c for c in item.children[1:] if c.type in ("bullet_list", "ordered_list")])


_FILE_SPAN = re.compile(r"(?:[\w.@~-]+/)+[\w.@-]+\.[A-Za-z]{1,5}")
_GONE = re.compile(r"\b(removed|deleted|consolidated into|retained only|deprecated|obsolete|replaced by|no longer used)\b", re.I)


def _mentioned_files(b: Builder, node: SyntaxTreeNode, head: SyntaxTreeNode, headline: str) -> None:
    """A file an item names in a code span (`lib/server/postgres.ts`) is a file of the work too,
    obsolete when the item says it is gone; the first mention wins."""
    for kind, value in segments(head):
        if kind != "code" or not _FILE_SPAN.fullmatch(value) or value in b.paths:
            continue
        b.paths.add(value)
        status = "obsolete" if _GONE.search(headline) else "relevant"
        b.add(
            File,
            node,
            title=value,
            path=value,
            status=status,
            body=one_line(headline, 300),
            id=b.plan.readable_id("", value, key=f"file\x00{value}"),
        )


def _discovery(
    b: Builder, node: SyntaxTreeNode, text: str, headline: str, full: str, own: str | None, status: str, data: dict[str, Any]
) -> None:
    dead = own == it.FAILED or bool(_DEAD_END.search(re.sub(r"\([^)]*\)", "", headline)))
    if dead:
        disc_status, category = "ruled-out", "dead-end"
    elif _PENDING.search(full):
        disc_status, category = "confirmed", "finding"
    elif own in (it.FIXED, it.DONE) or status == "resolved" or _RESOLVED.search(full):
        disc_status, category = "resolved", "finding"
    elif status == "risk":
        disc_status, category = ("suspected" if _HEDGE.search(headline) else "confirmed"), "risk"
    else:
        disc_status, category = ("suspected" if status == "unknown" else "confirmed"), "finding"
    b.add(Discovery, node, title=text, status=disc_status, category=category, **data)


def _retarget(kind: str, status: str, text: str, headline: str) -> tuple[str, str]:
    """The kind an item's own first words give it, over its section's."""
    if kind in ("task", "discovery") and re.match(r"^\W*(decided|chose|picked|went with|switched to|worked around|opted)\b", text, re.I):
        return "decision", "accepted"
    if kind in ("task", "discovery") and re.search(r"\b(switched|moved|changed|migrated)\b.*\bfrom\b.+\bto\b", text, re.I):
        return "decision", "accepted"
    if kind in ("task", "discovery") and _ADDED_DEP.match(text):
        return "component", ""
    if kind == "task" and re.search(r"\bdecide (whether|if|between|on)\b", text, re.I):
        return "decision", "proposed"
    if kind == "task" and status != "done" and re.match(r"^\W*(fixed|resolved)\b", text, re.I):
        # Under `## Status`, "Fixed the hang …" reports a problem solved; under Done it is work done.
        return "discovery", ""
    return kind, status


def _only_emphasis(head: SyntaxTreeNode) -> bool:
    """An item in italics only (`*Updated after each plan completion*`): an editor's note."""
    segs = [s for s in segments(head) if s[1].strip()]
    return len(segs) == 1 and segs[0][0] == "em"
