"""An agent's state dump, compaction or handoff summary read section by section.

Sections are headings (`## Goal`), bold lines (`**Next steps**`), labelled list items
(Claude Code's `1. Primary Request and Intent:`) or labelled paragraphs (`Goal: ...`).
Each section name says which kind its items become (a `###` section takes its parent's kind
unless its own name says otherwise); an item's own marker says its status; tables are read by
their columns; shell code blocks become commands. A section whose name is not known is kept
whole as a discovery under its own heading.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from statedump.core.clock import now
from statedump.models import Benchmark, Command, Compat, Decision, Discovery, Goal, RecordBase, Task
from statedump.services.ingest import items as it
from statedump.services.ingest import tables
from statedump.services.ingest.mdtokens import lines_of, parse, plain, segments
from statedump.services.ingest.plan import ImportPlan, one_line
from statedump.services.ingest.sections import clean, front_matter, meta_field, mode_of
from statedump.services.ingest.summary_items import read_item
from statedump.services.ingest.titles import command_title, command_words

if TYPE_CHECKING:
    from markdown_it.tree import SyntaxTreeNode

_SHELL_LANGS = {"", "bash", "sh", "shell", "console", "zsh", "ini", "systemd", "dotenv", "env"}
# `**Request 3 (CURRENT/PENDING)**:` — the one request of several that is still being worked on.
_CURRENT = re.compile(r"^\W*[^:]{0,40}\((?:current|active|pending|in progress|ongoing)\b[^)]*\)", re.I)
_LABEL = re.compile(r"^\s*(?:\d+[.)]\s*)?([A-Z][A-Za-z0-9 /&,'()-]{1,60}?)\s*:\s*(.*)$", re.S)
_LABEL_LINE = re.compile(r"^\s*(?:[-*]\s+)?\**([A-Z][A-Za-z0-9 /&'()-]{0,40}?)\**\s*:\s*\**\s*(.*?)\s*$")


@dataclass
class _Unit:
    name: str
    blocks: list[SyntaxTreeNode]
    line: int
    mode: str | None = None
    lead: list[SyntaxTreeNode] = field(default_factory=list)
    """Blocks read from the text after the label (`Goal: make it pass`), parsed on their own."""
    lead_lines: list[str] = field(default_factory=list)
    item: tuple[str, str] | None = None
    """(mode, title) when the heading itself is the item and the blocks its body."""
    inherited: bool = False

    def chunks(self, doc_lines: list[str]) -> list[tuple[list[SyntaxTreeNode], list[str]]]:
        """(blocks, the source lines their line numbers refer to), in order."""
        return [(b, lines) for b, lines in ((self.lead, self.lead_lines), (self.blocks, doc_lines)) if b]


class Builder:
    def __init__(self, text: str, plan: ImportPlan, source: str | None, base: datetime):
        self.doc_lines = text.split("\n")
        self.lines = self.doc_lines
        self.plan = plan
        self.source = source
        self.base = base
        self.count = 0
        self.paths: set[str] = set()
        """Paths that already have a file record in this import (a path mentioned again adds none)."""

    def add(self, cls: type[RecordBase], node: SyntaxTreeNode | None, **data: Any) -> RecordBase | None:
        data = {k: v for k, v in data.items() if v not in (None, "", [], {})}
        data.setdefault("at", self.base + timedelta(seconds=self.count))
        data.setdefault("source", self.source)
        data["title"] = one_line(str(data.get("title", "")), 200)
        if "id" not in data:
            data["id"] = self.plan.readable_id("", data["title"], key=f"{cls.KIND}\x00{data['title']}")
        self.count += 1
        try:
            return self.plan.add(cls.model_validate(data))
        except ValidationError as err:
            where = node.map[0] + 1 if node is not None and node.map else 0
            self.plan.skip(where, f"{cls.KIND} {data['title']!r}: {err.errors()[0]['msg']}")
            return None

    def text(self, nodes: list[SyntaxTreeNode]) -> str:
        return lines_of(self.lines, nodes, None)

    def all_text(self, unit: _Unit) -> str:
        out = []
        for blocks, lines in unit.chunks(self.doc_lines):
            self.lines = lines
            out.append(self.text(blocks))
        self.lines = self.doc_lines
        return "\n\n".join(t for t in out if t)

    # -- one section ------------------------------------------------------------
    def section(self, unit: _Unit) -> None:
        mode = unit.mode
        if unit.item is None and unit.inherited and mode and mode.split(":")[0] in ("task", "discovery", "decision"):
            kinds = {b.type for b in unit.blocks} - {"fence", "table", "hr"}
            if kinds and not kinds <= {"bullet_list", "ordered_list"}:
                unit.item = (mode, unit.name)  # a sub-heading with prose under it is one item, not many
        if unit.item is not None:
            self.heading_item(unit, *unit.item)
            return
        if mode is None:
            # A section of unknown kind: each of its items a discovery, not yet sure of itself (the
            # heading alone is no finding); its tables by their columns, its code kept as it is.
            mode = "discovery:unknown"
        if mode == "goal":
            self.goal(unit)
            return
        messages = "user messages" in unit.name.lower()
        for blocks, lines in unit.chunks(self.doc_lines):
            self.lines = lines
            for node in blocks:
                self.block(mode, node, unit.name, messages)
        self.lines = self.doc_lines

    def inner(self, unit: _Unit, mode: str, lists: bool) -> None:
        """What a heading item holds besides its prose: commands, tables and (with `lists`) its items."""
        for blocks, lines in unit.chunks(self.doc_lines):
            self.lines = lines
            for node in blocks:
                if node.type == "fence":
                    self.fence(node, unit.name)
                elif node.type == "table":
                    self.table(None, node, unit.name, quiet=True)
                elif lists and node.type in ("bullet_list", "ordered_list"):
                    self.block(mode, node, unit.name)
        self.lines = self.doc_lines

    def heading_item(self, unit: _Unit, mode: str, title: str) -> None:
        """A heading that is one item (`### Issue 2: … (FIXED)`, `### Step 1: …`): its text the body."""
        kind, _, status = mode.partition(":")
        mark = it.marked(title)
        body = self.all_text(unit) or None
        title = re.sub(r"\s*\((?:fixed|failed|current|completed?|done|critical|blocked)\b[^)]*\)\s*$", "", mark.text, flags=re.I) or title
        if kind == "discovery":
            said_fixed = bool(body and re.search(r"\*\*status\*\*:\s*✅|\bstatus:\s*(fixed|resolved)", body, re.I))
            # A bug "in old code" is gone from the new.
            state = mark.state or (it.FIXED if said_fixed or status == "old" else None)
            default = "suspected" if status == "ruled-out?" or status == "risk" else "confirmed"
            if status == "ruled-out?" and state == it.DOING:
                state = None
            self.add(
                Discovery,
                None,
                title=title,
                body=body,
                status=it.status_for("discovery", state, default),
                category="dead-end" if state == it.FAILED else ("risk" if status == "risk" else "finding"),
            )
        elif kind == "decision":
            old_new = re.search(r"^OLD\b[^\n]*:?\s*\n(.*?)^NEW\b[^\n]*:?\s*\n(.*)$", body or "", re.S | re.M)
            if old_new:
                # `OLD (…WRONG):` / `NEW (correct):` under one heading: what was replaced, and what replaced it.
                before, after = (" ".join(x.split()) for x in old_new.groups())
                self.add(Decision, None, title=f"{title}: {before}", choice=one_line(before, 300), body=body, status="superseded")
                title = f"{title}: {after}"
            self.add(
                Decision,
                None,
                title=title,
                choice=one_line(title, 300),
                body=body,
                status=it.status_for("decision", mark.state, status or "accepted"),
            )
        else:
            self.add(Task, None, title=title, body=body, status=it.status_for("task", mark.state, status or "todo"))
            # `### Phase 2` under Done with its own list: the phase and each of its items are done.
        self.inner(unit, mode, lists=kind == "task")

    def block(self, mode: str, node: SyntaxTreeNode, name: str, messages: bool = False) -> None:
        if node.type in ("bullet_list", "ordered_list"):
            for n, item in enumerate(node.children, start=1):
                state = None
                if messages:  # every message but the latest was answered; the latest is the request at hand
                    state = it.DONE if n < len(node.children) else None
                read_item(self, mode, item, n if node.type == "ordered_list" else None, state)
        elif node.type == "paragraph":
            read_item(self, mode, node, None, None)
        elif node.type == "fence" and mode == "discovery:unknown" and (node.info or "").strip().split(" ")[0].lower() not in _SHELL_LANGS:
            self.add(
                Discovery,
                node,
                title=f"{name or 'Summary'}: {(node.info or 'code').strip()} block",
                body=self.text([node]),
                status="suspected",
            )
        elif node.type == "fence":
            self.fence(node, name)
        elif node.type == "table":
            self.table(mode, node, name)
        elif node.type in ("blockquote", "html_block", "code_block"):
            body = self.text([node])
            if body and not it.is_placeholder(body):
                self.add(Discovery, node, title=f"{name}: {one_line(body, 120)}", body=body, status="suspected")

    def goal(self, unit: _Unit) -> None:
        nodes = [n for n in [*unit.lead, *unit.blocks] if n.type in ("paragraph", "bullet_list", "ordered_list")]
        first = next(iter(nodes), None)
        if first is None:
            return
        headline = plain(first if first.type == "paragraph" else first.children[0], ticks=True)
        if it.is_placeholder(headline):
            return
        if first.type != "paragraph" and len(first.children) > 1:
            heads = [plain(item.children[0], ticks=True) if item.children else "" for item in first.children]
            current = next((i for i, words in enumerate(heads) if i and _CURRENT.search(words)), None)
            if current is not None:
                # `Request 3 (CURRENT/PENDING)` after Requests 1 and 2: the marked one is what the
                # session is after now, the earlier ones were asked for and met before it.
                for item, words in zip(first.children[:current], heads[:current], strict=True):
                    if not it.is_placeholder(words):
                        self.add(Task, item, title=one_line(words, 300), status="done")
                first, headline = first.children[current], heads[current]
                self.add(Goal, first, title=one_line(headline, 300), body=None)
                return
            # A list of intents: the first is the goal, the rules among the rest are instructions.
            for item in first.children[1:]:
                words = plain(item.children[0], ticks=True) if item.children else ""
                if re.search(r"\b(should|only|must|never|always)\b|^no\b", words, re.I):
                    read_item(self, "instruction", item, None, None)
        body = self.all_text(unit)
        self.add(Goal, first, title=headline, body=body if " ".join(body.split()) != " ".join(headline.split()) else None)

    def fence(self, node: SyntaxTreeNode, section: str) -> None:
        lang = (node.info or "").strip().split(" ")[0].lower()
        text = node.content.rstrip("\n")
        if not text.strip():
            return
        if lang not in _SHELL_LANGS or mode_of(section) == "file":
            self.add(Discovery, node, title=f"{section}: {lang or 'code'} block", body=self.text([node]), status="confirmed")
            return
        form = "systemd" if lang in ("ini", "systemd") or "[Service]" in text else "shell"
        words = " ".join(command_words(text)) or one_line(text, 120)
        title = command_title(text, form)
        self.add(Command, node, title=title, text=text, form=form, id=self.plan.readable_id("cmd", words, key=text))

    def table(self, mode: str | None, node: SyntaxTreeNode, section: str, quiet: bool = False) -> bool:
        """Rows as compat or benchmark records by the table's columns; else (unless `quiet`, where the
        section's body already holds it) one discovery holding the table."""
        header, rows = tables.cells(node)
        kind = tables.kind_of(header, mode)
        if kind == "compat":
            for data in tables.compat_rows(header, rows, section or "compatibility"):
                self.add(Compat, node, **data)
        elif kind == "benchmark":
            for data in tables.bench_rows(header, rows, tables.environment_of(section)):
                key = data.pop("key")
                self.add(Benchmark, node, id=self.plan.readable_id("bench", data["title"], key=key), **data)
        elif not quiet:
            # Titled by its columns: the section's heading alone says nothing found.
            self.add(Discovery, node, title=f"Table: {' / '.join(h for h in header if h)}", body=self.text([node]), status="suspected")
        return True


def _units(root: SyntaxTreeNode, plan: ImportPlan) -> list[_Unit]:
    """The document cut into named sections, whatever way it marks them."""
    units: list[_Unit] = []
    current = _Unit("", [], 1)
    units.append(current)
    stack: list[tuple[int, str | None]] = []  # the headings above: (level, mode)
    for node in root.children:
        line = node.map[0] + 1 if node.map else 0
        if node.type == "heading":
            name = plain(node).strip()
            level = int(node.tag[1:])
            parent_mode = next((m for lv, m in reversed(stack) if m and lv < level), None)
            # `### Primary (CustomPackDataset goal)` under Files: a word in brackets does not retarget it.
            own = mode_of(re.sub(r"\([^)]*\)", "", name) if parent_mode else name)
            if level == 1 and own is None:
                plan.fact("title", name)
            while stack and stack[-1][0] >= level:
                stack.pop()
            parent = next((m for _, m in reversed(stack) if m), None)
            named = it.heading_item(name) if level > 1 else None
            if (
                not named
                and parent
                and not parent.startswith("discovery")
                and level > 2
                and re.search(r"\b(bug|issue|problem|error)s?\b", name, re.I)
            ):
                named = ("discovery:old" if re.search(r"\bold\b", name, re.I) else "discovery", name)  # `### X Bug in Old Code`
            if named and named[0] == "task" and parent and parent.startswith("task"):
                named = (parent, named[1])  # `### Feature 1` under Done is done
            current = _Unit(name, [], line, own or parent, item=named, inherited=parent is not None and own in (None, parent))
            # A `#` heading is the document's title ("Session Context"), not a kind its sections take.
            stack.append((level, current.mode if not named and level > 1 else None))
            units.append(current)
            continue
        if node.type == "paragraph":
            segs = segments(node)
            text = plain(node, ticks=True)
            first_line, _, after = text.strip().partition("\n")
            if first_line in ("Summary:", "Analysis:"):
                # Claude Code's own parts: what follows `Summary:` stands on its own.
                current = _Unit("Analysis" if first_line == "Analysis:" else "", [], line)
                if after.strip():
                    current.lead, current.lead_lines = parse(after).children, after.split("\n")
                units.append(current)
                stack = []
                continue
            if len(segs) == 1 and segs[0][0] == "strong":
                name = segs[0][1].rstrip(":").strip()
                own, parent = mode_of(name), next((m for _, m in reversed(stack) if m), None)
                # A bold line groups the items of the heading above (`**Core Benchmarks:**` under Completed).
                mode = parent if parent and parent.startswith("task") and not (own or "").startswith("task") else own or parent
                current = _Unit(name, [], line, mode, item=it.heading_item(name))
                units.append(current)
                continue
            if _meta_lines(text, plan, units, line):
                continue
            m = _LABEL.match(text)
            if m and mode_of(m.group(1)) is not None and "\n" not in m.group(1):
                current = _Unit(m.group(1), [], line, mode_of(m.group(1)))
                units.append(current)
                if m.group(2).strip():
                    # The rest of the paragraph is the section's first item.
                    current.lead, current.lead_lines = parse(m.group(2)).children, m.group(2).split("\n")
                continue
        if (
            node.type in ("ordered_list", "bullet_list")
            and len(node.children) > 1
            and all(_labelled(i, not current.name) for i in node.children)
        ):
            for item in node.children:
                label, lead, rest = _labelled(item, True) or ("", "", [])
                unit = _Unit(label, rest, item.map[0] + 1 if item.map else line, mode_of(label))
                if lead.strip():
                    unit.lead, unit.lead_lines = parse(lead).children, lead.split("\n")
                units.append(unit)
            current = _Unit("", [], line)
            units.append(current)
            continue
        current.blocks.append(node)
    return [u for u in units if u.blocks or u.lead or u.item]


def _meta_lines(text: str, plan: ImportPlan, units: list[_Unit], line: int) -> bool:
    """A paragraph of `**Label**: value` lines (a handoff's header): metadata becomes session facts,
    a known section label its one-item section; False when the paragraph is not such lines."""
    parts = [_LABEL_LINE.match(x) for x in text.split("\n") if x.strip()]
    if not parts or not all(parts):
        return False
    first = parts[0]
    assert first is not None
    if len(parts) == 1 and mode_of(first.group(1)) is not None and meta_field(first.group(1)) is False:
        return False  # `Goal: …` alone opens its section
    if not any(meta_field(m.group(1)) is not False or mode_of(m.group(1)) for m in parts if m):
        return False  # `JSONL: …` / `Parquet: …`: lines of content, not a header
    for m in parts:
        assert m is not None
        label, value = m.group(1).strip(), m.group(2).strip().strip("*").strip()
        fact = meta_field(label)
        if fact is not False:
            if isinstance(fact, str) and fact != "started" and not it.is_placeholder(value):
                plan.fact(fact, value)
            url = re.search(r"https?://\S+", value)
            if url:  # `**Repository:** https://…`: the place itself is a reference too
                units.append(
                    _Unit("references", [], line, "reference", lead=parse(f"{label}: {value}").children, lead_lines=[f"{label}: {value}"])
                )
            continue
        if not value or it.is_placeholder(value):
            continue
        mode = mode_of(label)
        bare = re.sub(r"^\d{4}-\d{2}-\d{2}\S*\s*[—–-]\s*", "", value)
        # `Last activity: 2026-02-14 — Completed 01-02`: an item that says its own status stands alone.
        lead = value if mode is not None else bare if it.marked(bare).state else f"{label}: {value}"
        units.append(_Unit(label if mode else "", [], line, mode, lead=parse(lead).children, lead_lines=lead.split("\n")))
    return True


def _labelled(item: SyntaxTreeNode, loose: bool) -> tuple[str, str, list[SyntaxTreeNode]] | None:
    """`1. Primary Request and Intent:` with its content nested below: (label, text after the
    label, nested blocks).

    Inside a named section only items whose label is a known section name count, so
    that an ordinary `- Risk: ...` bullet stays a bullet; `loose` accepts any `Label:` too."""
    if not item.children or item.children[0].type != "paragraph":
        return None
    text = plain(item.children[0], ticks=True).strip()
    m = _LABEL.match(text)
    if not m or (mode_of(m.group(1)) is None and (not loose or not text.endswith(":"))):
        return None
    if not loose and len(item.children) < 2 and "\n" not in m.group(2):
        return None
    return m.group(1), m.group(2), list(item.children[1:])


def read_summary(text: str, plan: ImportPlan, source: str | None = None, base: datetime | None = None) -> None:
    """Read an agent's summary (any of the common templates) into `plan`."""
    meta, text = front_matter(text)
    for key, value in meta.items():
        fact = meta_field(key)
        if isinstance(fact, str) and value:
            if fact == "started":
                try:
                    plan.fact("started", datetime.fromisoformat(value))
                except ValueError:
                    continue
            else:
                plan.fact(fact, value)
    text = clean(text)
    root = parse(text)
    builder = Builder(text, plan, source, base or now())
    before = {r.id for r in plan.records}
    for unit in _units(root, plan):
        builder.section(unit)
    goals = [r for r in plan.records if r.kind == "goal" and r.id not in before]
    if len(goals) > 1 and len(re.findall(r"^##\s+Session\s+\d+", text, re.M)) > 1:
        # A log of sessions: each earlier session's goal was met before the next began.
        for goal in goals[:-1]:
            if goal.status == "active":
                plan.add(goal.model_copy(update={"status": "achieved"}))
