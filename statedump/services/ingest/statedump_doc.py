"""statedump's own state document read back into records: the inverse of `render_markdown`.

The document shows each record's id, status and source, so those come back exactly.
What it does not show (times, tags, most links, a compat cell's versions, a benchmark's
environment) cannot come back; records get made-up times that keep the document's order,
since the renderer sorts each kind by time. Rendering the records read from a rendered
document gives the same bytes. Titles, separators and columns are `docformat`'s, the
renderer's own.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from statedump.core.errors import from_validation
from statedump.core.render import docformat as fmt
from statedump.core.render.docformat import DOT, SEP
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
    RecordBase,
    Reference,
    Task,
)
from statedump.services.ingest.doc_fields import Tail, decision_facts, env_pairs, is_env, items, number, one_of, rows, tail
from statedump.services.ingest.mdtokens import Section, lines_of, parse, plain, raw_link_target, sections, segments
from statedump.services.ingest.plan import ImportPlan

if TYPE_CHECKING:
    from markdown_it.tree import SyntaxTreeNode

_EARLIER_STATUSES = tuple(s for s in Command.STATUSES if s != fmt.CURRENT)


def looks_like_statedump(text: str) -> bool:
    """True for a document statedump rendered: a title, then `Session `id`` and the four spine sections."""
    root = parse(text)
    nodes = root.children
    if len(nodes) < 2 or nodes[0].type != "heading" or nodes[0].tag != "h1" or nodes[1].type != "paragraph":
        return False
    segs = segments(nodes[1])
    if len(segs) < 2 or segs[0] != ("text", fmt.SESSION) or segs[1][0] != "code":
        return False
    names = [plain(n) for n in nodes if n.type == "heading" and n.tag == "h2"]
    return tuple(names[: len(fmt.SPINE)]) == fmt.SPINE


class _Reader:
    def __init__(self, text: str, plan: ImportPlan, base: datetime):
        self.lines = text.split("\n")
        self.plan = plan
        self.base = base
        self.count = 0

    # -- helpers --------------------------------------------------------------
    def make(self, cls: type[RecordBase], node: SyntaxTreeNode | None, *, guessed: set[str] | None = None, **data: Any) -> None:
        # Made-up times one second apart keep the document's order within each kind.
        # Fields left at None are not in the document, so they are left unset (see apply).
        data = {k: v for k, v in data.items() if v is not None}
        data.setdefault("at", self.base + timedelta(seconds=self.count))
        self.count += 1
        try:
            self.plan.add(cls.model_validate(data), guessed)
        except ValidationError as err:
            line = node.map[0] + 1 if node is not None and node.map else 0
            self.plan.skip(line, str(from_validation(err, f"{cls.KIND} {data.get('id', '?')}")))

    def item_body(self, item: SyntaxTreeNode, skip: int = 1) -> str | None:
        rest = item.children[skip:]
        return lines_of(self.lines, rest, dedent=2) or None if rest else None

    # -- sections -------------------------------------------------------------
    def header(self, top: Section) -> None:
        first = top.children[0] if top.children else None
        if first is None or first.level != 1:
            return
        self.plan.fact("title", first.title)
        blocks = first.blocks
        if blocks and blocks[0].type == "paragraph":
            segs = segments(blocks[0])
            if len(segs) >= 2 and segs[1][0] == "code":
                self.plan.fact("id", segs[1][1])
                rest = "".join(v for _, v in segs[2:])
                label = None
                for bit in rest.split(DOT)[1:]:
                    name, colon, value = bit.partition(": ")
                    if colon and name in fmt.SESSION_LABELS:
                        label = name
                        self.plan.session[label] = value
                    elif label is not None:
                        self.plan.session[label] += DOT + bit
            body = lines_of(self.lines, blocks[1:])
            if body:
                self.plan.fact("body", body)

    def goal(self, sec: Section) -> None:
        heads = [i for i, n in enumerate(sec.blocks) if n.type == "paragraph" and self._goal_tail(n) is not None]
        for k, i in enumerate(heads):
            node = sec.blocks[i]
            found = self._goal_tail(node)
            assert found is not None
            title, parts = found
            following = sec.blocks[i + 1 : heads[k + 1] if k + 1 < len(heads) else len(sec.blocks)]
            criteria: list[str] = []
            for j, n in enumerate(following):
                if n.type == "paragraph" and plain(n) == fmt.CRITERIA and j + 1 < len(following):
                    criteria = [plain(li.children[0]) for li in following[j + 1].children if li.children]
                    following = following[:j]
                    break
            body = lines_of(self.lines, following) or None
            self.make(Goal, node, **parts.fields(), title=title, body=body, criteria=criteria)

    def _goal_tail(self, node: SyntaxTreeNode) -> tuple[str, Tail] | None:
        """(title, tail) of a goal's first line, `**title** — status · source · `id``."""
        segs = segments(node)
        if not segs or segs[0][0] != "strong":
            return None
        parts = tail([("text", ""), *segs[1:]] if len(segs) > 1 else segs, Goal.STATUSES)
        if parts is None or parts.head != "":
            return None
        return segs[0][1], parts

    def instructions(self, sec: Section) -> None:
        for item in items(sec.blocks):
            kids = item.children
            if kids and kids[0].type == "blockquote" and len(kids) > 1:
                # Each line of a long quote is written as escaped plain text.
                quote = "\n\n".join(plain(p) for p in kids[0].children if p.type == "paragraph")
                parts = tail(segments(kids[1]), Instruction.STATUSES, one_of(fmt.STANDING, fmt.ONE_OFF))
                if parts is None:
                    continue
                title = parts.head
            else:
                parts = tail(segments(kids[0]) if kids else [], Instruction.STATUSES, one_of(fmt.STANDING, fmt.ONE_OFF))
                if parts is None or not parts.head.startswith('"'):
                    continue
                head = parts.head
                cut = head.rfind('"' + SEP)
                if cut > 0:
                    # A blank quote shows as `""`; a space keeps the record valid and the document the same.
                    quote, title = head[1:cut] or " ", head[cut + 1 + len(SEP) :]
                elif len(head) > 1 and head.endswith('"'):
                    # The renderer leaves out a title that only repeats the quote.
                    quote = title = head[1:-1]
                else:
                    continue
            standing = parts.extras[0] == fmt.STANDING
            self.make(Instruction, item, **parts.fields(), title=title, quote=quote, standing=standing)

    def findings(self, sec: Section, ruled_out: bool) -> None:
        for item in items(sec.blocks):
            segs = segments(item.children[0]) if item.children else []
            if not segs or segs[0][0] != "strong":
                continue
            parts = tail(segs[1:], Discovery.STATUSES, None if ruled_out else one_of("finding", "risk", "dead-end"))
            if parts is None:
                continue
            category = "dead-end" if ruled_out else parts.extras[0]
            self.make(
                Discovery,
                item,
                guessed={"category"} if ruled_out else None,
                **parts.fields(),
                title=segs[0][1],
                category=category,
                body=self.item_body(item),
            )

    def compat(self, sec: Section) -> None:
        for node, cells in rows(sec.blocks):
            if (c := fmt.COMPAT.read(cells)) is None:
                continue
            title = f"{c['component']}: {c['option']} on {c['target']} {c['result']}"
            self.make(
                Compat,
                node,
                guessed={"title"},
                id=c["id"],
                title=title[:300],
                status=c["result"],
                component=c["component"],
                option=c["option"],
                target=c["target"],
                symptom=c["symptom"] or None,
            )

    def benchmarks(self, sec: Section) -> None:
        groups: dict[str, list[dict[str, str]]] = {}
        first: dict[str, SyntaxTreeNode] = {}
        for node, cells in rows(sec.blocks):
            # Documents rendered before a column was added do not show it: it reads as blank.
            row = fmt.BENCHMARKS.read(cells) or fmt.BENCHMARKS.read(cells, without=fmt.BENCHMARK_ADDED)
            if row is not None:
                groups.setdefault(row["id"], []).append(row)
                first.setdefault(row["id"], node)
        for rid, group in groups.items():
            head = group[0]
            metrics = [{"name": r["metric"], "value": number(r["value"]), "unit": r["unit"]} for r in group if r["metric"]]
            self.make(
                Benchmark,
                first[rid],
                id=rid,
                title=head["title"],
                status=head["status"] or None,
                concurrency=head["concurrency"] or None,
                metrics=metrics,
                baseline=head["baseline"] == fmt.BASELINE,
            )

    def decisions(self, sec: Section) -> None:
        for dec in sec.children:
            blocks = dec.blocks
            if not blocks or blocks[0].type != "paragraph":
                continue
            segs = segments(blocks[0])
            if len(segs) < 2 or segs[0][0] != "text" or segs[1][0] != "code":
                continue
            status = segs[0][1].removesuffix(DOT)
            source = "".join(v for _, v in segs[2:]).removeprefix(DOT) or None
            data: dict[str, Any] = {"id": segs[1][1], "title": dec.title, "status": status, "source": source}
            rest = blocks[1:]
            if rest and rest[0].type == "bullet_list":
                data.update(decision_facts(rest[0]))
                rest = rest[1:]
            data["body"] = lines_of(self.lines, rest) or None
            self.make(Decision, dec.heading, **data)

    def stack(self, sec: Section) -> None:
        for node, cells in rows(sec.blocks):
            if (c := fmt.STACK.read(cells)) is None:
                continue
            name, version, build = c["name"], c["version"], c["build"]
            title = f"{name} {version}".strip()
            self.make(
                Component,
                node,
                guessed={"title"},
                id=c["id"],
                title=title,
                status=c["status"],
                name=name,
                version=version or None,
                build=build or None,
            )

    def tasks(self, blocks: list[SyntaxTreeNode], statuses: tuple[str, ...]) -> None:
        for item in items(blocks):
            segs = segments(item.children[0]) if item.children else []
            if not segs or segs[0][0] != "strong":
                continue
            parts = tail(segs[1:], statuses, lambda bits: len(bits) <= 1 and all(fmt.priority_of(b) is not None for b in bits))
            if parts is None:
                continue
            head = parts.head.strip()
            impact = head[1:-1] if head.startswith("(") and head.endswith(")") else None
            priority = fmt.priority_of(parts.extras[0]) if parts.extras else None
            self.make(
                Task,
                item,
                **parts.fields(),
                title=segs[0][1],
                priority=priority,
                impact=impact,
                body=self.item_body(item),
            )

    def commands(self, sec: Section) -> None:
        for cmd in sec.children:
            if cmd.title == fmt.EARLIER and cmd.children and not (cmd.blocks and cmd.blocks[0].type == "paragraph"):
                # Earlier and failed commands: one `####` section each, written like a current one.
                for old in cmd.children:
                    self.command(old, _EARLIER_STATUSES)
            else:
                self.command(cmd, (fmt.CURRENT,))

    def command(self, cmd: Section, statuses: tuple[str, ...]) -> None:
        """One command section: `form [· status] · `id` [· last known good] [· source]`, purpose, env, text, body."""
        blocks = list(cmd.blocks)
        if not blocks or blocks[0].type != "paragraph":
            return
        segs = segments(blocks[0])
        if len(segs) < 2 or segs[1][0] != "code":
            return
        form, _, status = segs[0][1].removesuffix(DOT).partition(DOT)
        status = status or fmt.CURRENT
        if status not in statuses:
            return
        rest_text = "".join(v for _, v in segs[2:])
        good = rest_text.startswith(DOT + fmt.LAST_GOOD)
        if good:
            rest_text = rest_text[len(DOT + fmt.LAST_GOOD) :]
        source = rest_text.removeprefix(DOT) or None
        blocks = blocks[1:]
        purpose = None
        if blocks and blocks[0].type == "paragraph":
            purpose = plain(blocks[0])
            blocks = blocks[1:]
        env: dict[str, str] = {}
        if len(blocks) >= 2 and blocks[0].type == blocks[1].type == "fence" and is_env(blocks[0].content):
            env = env_pairs(blocks[0].content) or {}
            blocks = blocks[1:]
        if not blocks or blocks[0].type != "fence":
            return
        # An empty block was a blank text (the field is required): a line break renders the same.
        text = blocks[0].content.removesuffix("\n") or "\n"
        body = lines_of(self.lines, blocks[1:]) or None
        self.make(
            Command,
            cmd.heading,
            id=segs[1][1],
            title=cmd.title,
            form=form,
            status=status,
            source=source,
            purpose=purpose,
            env=env,
            text=text,
            last_known_good=good,
            body=body,
        )

    def files(self, sec: Section) -> None:
        for item in items(sec.blocks):
            segs = segments(item.children[0]) if item.children else []
            if len(segs) < 3 or segs[0][0] != "code" or not segs[1][1].startswith(SEP):
                continue
            parts = tail([("text", segs[1][1][len(SEP) :]), *segs[2:]], File.STATUSES)
            if parts is None:
                continue
            self.make(File, item, **parts.fields(), title=parts.head, path=segs[0][1], body=self.item_body(item))

    def references(self, sec: Section) -> None:
        for item in items(sec.blocks):
            head = item.children[0] if item.children else None
            segs = segments(head)
            if len(segs) >= 3 and segs[0][0] == "link":
                title, url, rest = segs[0][1], raw_link_target(head) or "", segs[1:]
            elif len(segs) >= 4 and segs[0][1].endswith(" (") and segs[1][0] == "code" and segs[2][1].startswith(")"):
                # A URL no parser would follow (`javascript:`) is shown as `title (`url`)`.
                title, url, rest = segs[0][1][:-2], segs[1][1], [("text", segs[2][1][1:]), *segs[3:]]
            else:
                continue
            parts = tail(rest, Reference.STATUSES)
            if parts is None or parts.head:
                continue
            self.make(Reference, item, **parts.fields(), title=title, url=url, body=self.item_body(item))

    def discoveries(self, sec: Section) -> None:
        for sub in sec.children:
            if (read := _DISCOVERY_PARTS.get(sub.title)) is not None:
                read(self, sub)

    def accomplished(self, sec: Section) -> None:
        groups = {title: status for status, title in fmt.TASK_GROUPS}
        for sub in sec.children:
            if sub.title in groups:
                self.tasks(sub.blocks, (groups[sub.title],))


_Read = Callable[[_Reader, Section], None]
_DISCOVERY_PARTS: dict[str, _Read] = {
    fmt.FINDINGS: lambda r, s: r.findings(s, False),
    fmt.RULED_OUT: lambda r, s: r.findings(s, True),
    fmt.COMPAT.title: _Reader.compat,
    fmt.BENCHMARKS.title: _Reader.benchmarks,
    fmt.DECISIONS: _Reader.decisions,
    fmt.STACK.title: _Reader.stack,
}
_SECTIONS: dict[str, _Read] = {
    fmt.GOAL: _Reader.goal,
    fmt.INSTRUCTIONS: _Reader.instructions,
    fmt.DISCOVERIES: _Reader.discoveries,
    fmt.ACCOMPLISHED: _Reader.accomplished,
    fmt.NEXT_STEPS: lambda r, s: r.tasks(s.blocks, fmt.NEXT_STATUSES),
    fmt.COMMANDS: _Reader.commands,
    fmt.FILES: _Reader.files,
    fmt.REFERENCES: _Reader.references,
}


def read_statedump(text: str, plan: ImportPlan, base: datetime) -> None:
    """Read a document `render_markdown` wrote into `plan` (records, session facts)."""
    reader = _Reader(text, plan, base)
    top = sections(parse(text))
    reader.header(top)
    doc = top.children[0] if top.children and top.children[0].level == 1 else top
    for sec in doc.children:
        if (read := _SECTIONS.get(sec.title)) is not None:
            read(reader, sec)
