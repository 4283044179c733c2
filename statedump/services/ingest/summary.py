"""An agent's state dump, compaction or handoff summary read section by section.

Sections are headings (`## Goal`), bold lines (`**Next steps**`), labelled list items
(Claude Code's `1. Primary Request and Intent:`) or labelled paragraphs (`Goal: ...`).
Each section name says which kind its bullets become; a table under a compatibility or
benchmark heading becomes compat or benchmark rows; shell code blocks become commands.
A section whose name is not known is kept whole as a discovery under its own heading.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from statedump.core.clock import now
from statedump.core.render import docformat as fmt
from statedump.models import (
    Benchmark,
    Command,
    Compat,
    Component,
    Decision,
    Discovery,
    File,
    Goal,
    Instruction,
    Metric,
    RecordBase,
    Reference,
    Task,
)
from statedump.services.ingest.mdtokens import item_text, lines_of, parse, plain, segments
from statedump.services.ingest.plan import ImportPlan, one_line
from statedump.services.ingest.sections import clean, mode_of
from statedump.services.ingest.titles import command_title, command_words, short_title

if TYPE_CHECKING:
    from markdown_it.tree import SyntaxTreeNode

_SHELL_LANGS = {"", "bash", "sh", "shell", "console", "zsh", "ini", "systemd", "dotenv", "env"}
_LABEL = re.compile(r"^\s*(?:\d+[.)]\s*)?([A-Z][A-Za-z0-9 /&,'()-]{1,60}?)\s*:\s*(.*)$", re.S)
_BENCH_COLUMN = re.compile(r"tok(?:en)?s?/s|req(?:uest)?s?/s|\bms\b|ttft|tpot|\bitl\b|concurrency|throughput|latency")
_URL = re.compile(r"https?://[^\s)>\]]+")
_PATH = re.compile(r"(?:~|\.{0,2})?/?[\w.-]+(?:/[\w.*-]+)+/?|[\w-]+\.(?:py|md|json|yaml|yml|toml|sh|service|ts|js|rs|go|txt|cfg|ini)\b")


@dataclass
class _Unit:
    name: str
    blocks: list[SyntaxTreeNode]
    line: int
    lead: list[SyntaxTreeNode] = field(default_factory=list)
    """Blocks read from the text after the label (`Goal: make it pass`), parsed on their own."""
    lead_lines: list[str] = field(default_factory=list)

    def chunks(self, doc_lines: list[str]) -> list[tuple[list[SyntaxTreeNode], list[str]]]:
        """(blocks, the source lines their line numbers refer to), in order."""
        return [(b, lines) for b, lines in ((self.lead, self.lead_lines), (self.blocks, doc_lines)) if b]


class _Builder:
    def __init__(self, text: str, plan: ImportPlan, source: str | None, base: datetime):
        self.doc_lines = text.split("\n")
        self.lines = self.doc_lines
        self.plan = plan
        self.source = source
        self.base = base
        self.count = 0

    def add(self, cls: type[RecordBase], node: SyntaxTreeNode | None, **data: Any) -> RecordBase | None:
        data = {k: v for k, v in data.items() if v not in (None, "", [])}
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
        mode = mode_of(unit.name)
        if mode is None:
            body = self.all_text(unit)
            if body:
                first = next(iter(unit.lead or unit.blocks), None)
                self.add(Discovery, first, title=unit.name, body=body, status="suspected")
            self.benchmark_tables(unit)
            return
        if mode == "goal":
            self.goal(unit)
            return
        for blocks, lines in unit.chunks(self.doc_lines):
            self.lines = lines
            for node in blocks:
                self.block(mode, node, unit.name)
        self.lines = self.doc_lines

    def benchmark_tables(self, unit: _Unit) -> None:
        """Tables of throughput or latency figures in a section kept whole: read as benchmarks too."""
        for blocks, lines in unit.chunks(self.doc_lines):
            self.lines = lines
            for node in blocks:
                if node.type == "table" and any(_BENCH_COLUMN.search(h) for h in _table_cells(node)[0][1:]):
                    self.table("benchmark", node, unit.name or "benchmarks")
        self.lines = self.doc_lines

    def block(self, mode: str, node: SyntaxTreeNode, name: str) -> None:
        if node.type in ("bullet_list", "ordered_list"):
            for n, item in enumerate(node.children, start=1):
                self.item(mode, item, n if node.type == "ordered_list" else None)
        elif node.type == "paragraph":
            self.item(mode, node, None)
        elif node.type == "fence":
            self.fence(node, name)
        elif node.type == "table":
            self.table(mode, node, name)
        elif node.type in ("blockquote", "html_block", "code_block"):
            body = self.text([node])
            self.add(Discovery, node, title=f"{name}: {one_line(body, 120)}", body=body, status="suspected")

    def goal(self, unit: _Unit) -> None:
        nodes = [*unit.lead, *unit.blocks]
        first = next((n for n in nodes if n.type in ("paragraph", "bullet_list", "ordered_list")), None)
        if first is None:
            return
        headline = plain(first if first.type == "paragraph" else first.children[0], ticks=True)
        body = self.all_text(unit)
        self.add(Goal, first, title=headline, body=body if " ".join(body.split()) != " ".join(headline.split()) else None)

    def item(self, mode: str, node: SyntaxTreeNode, position: int | None) -> None:
        head = node.children[0] if node.type == "list_item" and node.children else node
        if node.type == "list_item" and not node.children:
            return
        if head.type == "fence":
            self.fence(head, mode)
            return
        headline = plain(head, ticks=True) if head.type == "paragraph" else self.text([head])
        full = item_text(self.lines, node) if node.type == "list_item" else self.text([node])
        body = full if full.strip() != headline.strip() else None
        kind, _, status = mode.partition(":")
        if kind == "instruction":
            quote = headline.strip().strip('"“”')
            standing = bool(re.search(r"\b(always|never|must|do not|don't|keep|only)\b", quote, re.I))
            words = full.strip().strip('"“”') or quote
            # The quote is the record; a short one is its own title (the document shows it once).
            self.add(Instruction, node, title=short_title(quote), quote=words, standing=standing)
        elif kind == "decision":
            self.add(Decision, node, title=headline, choice=one_line(headline, 300), status="accepted", body=body)
        elif kind == "task":
            m = re.match(r"^\s*\[( |x|X)\]\s*(.*)$", headline, re.S)
            if m:  # a checklist item says itself whether it is done
                status = "done" if m.group(1) != " " else status
                headline = m.group(2)
            prio = re.match(r"^\s*\(?P(\d)\)?[:.]?\s+(.*)$", headline, re.S)
            priority = int(prio.group(1)) if prio else (position if status == "todo" else None)
            if prio:
                headline = prio.group(2)
            self.add(Task, node, title=headline, status=status, priority=priority or None, body=body)
        elif kind == "file":
            codes = [v for k, v in segments(head) if k == "code"] if head.type == "paragraph" else []
            found = codes[0] if codes else (m.group(0) if (m := _PATH.search(headline)) else None)
            title = headline.replace(f"`{found}`", "").strip(" -—:") if found else headline
            self.add(File, node, title=title or found or headline, path=found or one_line(headline, 200), body=body)
        elif kind == "reference":
            url = m.group(0) if (m := _URL.search(full)) else None
            if url is None:
                self.add(Discovery, node, title=headline, body=body)
            else:
                self.add(Reference, node, title=headline.replace(url, "").strip(" -—:<>()[]") or url, url=url, body=body)
        elif kind == "command":
            codes = [v for k, v in segments(head) if k == "code"] if head.type == "paragraph" else []
            text = codes[0] if codes else headline
            # A bullet that is only the command is titled by its first words, not the whole line.
            title = command_title(text, "shell") if headline.strip().strip("`").strip() == text.strip() else headline
            self.add(Command, node, title=title, text=text, body=body, form="shell")
        elif kind == "component":
            name, _, version = headline.replace("`", "").partition(" ")
            self.add(Component, node, title=headline, name=name.strip(":"), version=version.strip(" :") or None, body=body)
        elif kind in ("compat", "benchmark"):
            self.add(Discovery, node, title=headline, body=body)
        else:
            category = (
                "dead-end" if re.search(r"\b(ruled out|dead end|does not work|doesn't work|no gain)\b", headline, re.I) else "finding"
            )
            self.add(
                Discovery, node, title=headline, body=body, category=category, status="ruled-out" if category == "dead-end" else "confirmed"
            )

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

    def table(self, mode: str, node: SyntaxTreeNode, section: str) -> None:
        header, rows = _table_cells(node)
        if mode == "compat":
            for row in rows:
                self.compat_row(header, row, section, node)
        elif mode == "benchmark" or any(_BENCH_COLUMN.search(h) for h in header[1:]):
            # Throughput or latency columns make a table benchmarks whatever section holds it.
            for row in rows:
                self.bench_row(header, row, node)
        else:
            self.add(Discovery, node, title=f"{section} (table)", body=self.text([node]))

    def compat_row(self, header: list[str], row: list[str], section: str, node: SyntaxTreeNode) -> None:
        def col(key: str, *others: str) -> str | None:
            # The header statedump's own matrix gives the column, then the words other templates use.
            names = (fmt.COMPAT.label(key).lower(), *others)
            for i, h in enumerate(header):
                if i < len(row) and any(n in h for n in names) and row[i]:
                    return row[i]
            return None

        option = col("option", "backend", "value", "flag", "setting") or (row[0] if row else None)
        result = (col("result", "status", "works", "outcome") or "").lower()
        status = "untested"
        if re.search(r"\b(works?|ok|yes|pass(es|ed)?)\b|✅|✔", result):
            status = "works"
        elif re.search(r"\b(fail(s|ed)?|no|broken|crash(es)?|error)\b|❌|✗", result):
            status = "fails"
        elif "partial" in result:
            status = "partial"
        component = col("component", "kind", "layer") or section
        target = col("target", "gpu", "hardware", "arch", "platform") or "unspecified"
        if option is None:
            return
        self.add(
            Compat,
            node,
            title=f"{component}: {option} on {target}: {status}",
            component=component,
            option=option,
            target=target,
            status=status,
            symptom=col("symptom", "error", "note", "notes", "comment"),
        )

    def bench_row(self, header: list[str], row: list[str], node: SyntaxTreeNode) -> None:
        metrics = []
        concurrency = None
        for i, h in enumerate(header[1:], start=1):
            if i >= len(row):
                break
            number = re.fullmatch(r"[~>≈<]?\s*([-+]?[\d,]*\.?\d+)\s*([A-Za-z/%]*)", row[i].replace(" ", ""))
            if number is None:
                continue
            value = float(number.group(1).replace(",", ""))
            if "concurrency" in h:
                concurrency = int(value) if value >= 1 else None
                continue
            unit = re.search(r"\(([^)]+)\)", h)
            name = re.sub(r"\s*\([^)]*\)", "", h).strip().replace(" ", "_") or f"column_{i}"
            # The unit from `(tok/s)`, else from the value (`172tok/s`), else a header that is a unit (`req/s`).
            named = re.search(r"(tok(?:en)?s?/s|req(?:uest)?s?/s|\bms)$", name)
            metric_unit = (unit.group(1) if unit else number.group(2)) or (named.group(1) if named else "value")
            metrics.append(Metric(name=name, value=value, unit=metric_unit))
        title = row[0] if row else "benchmark"
        rid = self.plan.readable_id("bench", title, key="\x00".join(row))
        self.add(Benchmark, node, title=title, concurrency=concurrency, metrics=metrics, id=rid)


def _table_cells(node: SyntaxTreeNode) -> tuple[list[str], list[list[str]]]:
    """A table's header (lower-cased) and body rows, as plain text."""
    header: list[str] = []
    rows: list[list[str]] = []
    for part in node.children:
        for tr in part.children:
            cells = [plain(c, ticks=False).strip() for c in tr.children]
            if part.type == "thead":
                header = [c.lower() for c in cells]
            else:
                rows.append(cells)
    return header, rows


def _units(root: SyntaxTreeNode, plan: ImportPlan) -> list[_Unit]:
    """The document cut into named sections, whatever way it marks them."""
    units: list[_Unit] = []
    current = _Unit("", [], 1)
    units.append(current)
    for node in root.children:
        line = node.map[0] + 1 if node.map else 0
        if node.type == "heading":
            name = plain(node).strip()
            if node.tag == "h1" and mode_of(name) is None:
                plan.fact("title", name)
            current = _Unit(name, [], line)
            units.append(current)
            continue
        if node.type == "paragraph":
            segs = segments(node)
            if len(segs) == 1 and segs[0][0] == "strong":
                current = _Unit(segs[0][1].rstrip(":"), [], line)
                units.append(current)
                continue
            text = plain(node, ticks=True)
            m = _LABEL.match(text)
            if m and mode_of(m.group(1)) is not None and "\n" not in m.group(1):
                current = _Unit(m.group(1), [], line)
                units.append(current)
                if m.group(2).strip():
                    # The rest of the paragraph is the section's first item.
                    current.lead, current.lead_lines = parse(m.group(2)).children, m.group(2).split("\n")
                continue
        if node.type in ("ordered_list", "bullet_list") and node.children and all(_labelled(i, not current.name) for i in node.children):
            for item in node.children:
                label, lead, rest = _labelled(item, True) or ("", "", [])
                unit = _Unit(label, rest, item.map[0] + 1 if item.map else line)
                if lead.strip():
                    unit.lead, unit.lead_lines = parse(lead).children, lead.split("\n")
                units.append(unit)
            current = _Unit("", [], line)
            units.append(current)
            continue
        current.blocks.append(node)
    return [u for u in units if u.blocks or u.lead]


def _labelled(item: SyntaxTreeNode, loose: bool) -> tuple[str, str, list[SyntaxTreeNode]] | None:
    """`1. Primary Request and Intent:` with its content nested below: (label, text after the
    label, nested blocks).

    Inside a named section only items that are a bare label (`Pending Tasks:`) count, so
    that an ordinary `- Risk: ...` bullet stays a bullet; `loose` accepts `Label: text` too."""
    if not item.children or item.children[0].type != "paragraph":
        return None
    text = plain(item.children[0], ticks=True).strip()
    m = _LABEL.match(text)
    if not m or (mode_of(m.group(1)) is None and not text.endswith(":")) or (not loose and not text.endswith(":")):
        return None
    return m.group(1), m.group(2), list(item.children[1:])


def read_summary(text: str, plan: ImportPlan, source: str | None = None, base: datetime | None = None) -> None:
    """Read an agent's summary (any of the common templates) into `plan`."""
    text = clean(text)
    root = parse(text)
    builder = _Builder(text, plan, source, base or now())
    for unit in _units(root, plan):
        if not unit.name:
            body = builder.all_text(unit)
            if body:
                builder.add(
                    Discovery,
                    unit.blocks[0] if unit.blocks else None,
                    title=f"Summary: {one_line(body, 150)}",
                    body=body,
                    status="suspected",
                )
            builder.benchmark_tables(unit)
            continue
        builder.section(unit)
