"""The state document in Markdown.

Its titles, separators and columns are `docformat`'s, which the importer reads back with:
the spine (Goal, Instructions, Discoveries, Accomplished) first, so that any agent that
knows the common compaction format reads it, then the other sections.
The same records always render the same bytes: nothing here reads a clock.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterator

from statedump.core.render import docformat as fmt
from statedump.core.render.headline import headline
from statedump.core.render.markup import Md, bullets, cell, code, fenced, inline, line, link, paragraphs, table, visible
from statedump.core.render.numbers import number
from statedump.models import (
    RELATIONS,
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
from statedump.models.state import SessionState

# Re-exported: `statedump.core.render` has always offered them.
SPINE = fmt.SPINE
SECTIONS = fmt.SECTIONS


def _tail(record: RecordBase, *extra: str) -> list[str]:
    """The trailing `— status · source · id` of a list item, as `line()` pieces."""
    bits = [*extra, record.status]
    if record.source:
        bits.append(record.source)
    return [fmt.SEP + fmt.DOT.join(bits) + fmt.DOT, Md(code(record.id))]


def _item(head: list[str], record: RecordBase, *extra: str) -> str:
    text = line(*head, *_tail(record, *extra), start=True)
    if record.body:
        text += "\n\n" + paragraphs(record.body)
    return text


def heading(text: str) -> str:
    """Text for an ATX heading: a `#` at its end would be read as a closing sequence, so it is escaped."""
    escaped = inline(text)
    return escaped[:-1] + "\\#" if escaped.endswith("#") else escaped


def _header(state: SessionState) -> str:
    s = state.session
    lines = [f"# {heading(s.title)}", ""]
    values = [(label, v) for label in fmt.SESSION_LABELS if (v := getattr(s, label))]
    lines.append(line(fmt.SESSION, Md(code(s.id)), "".join(f"{fmt.DOT}{label}: {value}" for label, value in values), start=True))
    if s.body:
        lines += ["", paragraphs(s.body)]
    return "\n".join(lines)


def _goal(state: SessionState) -> str:
    goals = state.of_kind(Goal)
    if not goals:
        return "_No goal recorded._"
    parts = []
    for g in goals:
        block = line(Md(f"**{inline(g.title)}**"), *_tail(g), start=True)
        if g.body:
            block += "\n\n" + paragraphs(g.body)
        if any(c.strip() for c in g.criteria):
            block += f"\n\n{fmt.CRITERIA}\n\n" + bullets([inline(c, start=True) for c in g.criteria if c.strip()])
        parts.append(block)
    return "\n\n".join(parts)


def _instructions(state: SessionState) -> str:
    items = []
    for ins in state.of_kind(Instruction):
        kind = fmt.STANDING if ins.standing else fmt.ONE_OFF
        quote = paragraphs(ins.quote)
        if "\n" in quote:
            # The user's words are plain text, not Markdown: each line is escaped.
            head = "\n".join(f"> {inline(line, start=True)}".rstrip() for line in quote.split("\n"))
            items.append(head + "\n\n" + line(ins.title, *_tail(ins, kind), start=True))
        elif _same_words(ins.title, quote) and '"' + fmt.SEP not in " ".join(quote.split()):
            # A title that only repeats the quote is left out; the reader takes the quote for it.
            items.append(line(f'"{quote}"', *_tail(ins, kind), start=True))
        else:
            items.append(line(f'"{quote}"{fmt.SEP}{ins.title}', *_tail(ins, kind), start=True))
    return bullets(items) if items else "_No instructions recorded._"


def _same_words(a: str, b: str) -> bool:
    # Compared as the document shows them: control characters as symbols, white space joined.
    return visible(a).split() == visible(b).split()


def _bold_item(d: Discovery, *extra: str) -> str:
    return _item([Md(f"**{inline(d.title)}**")], d, *extra)


def _findings(state: SessionState) -> str:
    found = [d for d in state.of_kind(Discovery) if d.status != "ruled-out"]
    return bullets([_bold_item(d, d.category) for d in found]) if found else ""


def _ruled_out(state: SessionState) -> str:
    dead = [d for d in state.of_kind(Discovery) if d.status == "ruled-out"]
    return bullets([_bold_item(d) for d in dead]) if dead else ""


def _compat(state: SessionState) -> str:
    rows = [
        fmt.COMPAT.row(
            component=cell(c.component),
            option=cell(c.option),
            target=cell(c.target),
            result=c.status,
            symptom=cell(c.symptom or ""),
            id=code(c.id),
        )
        for c in state.of_kind(Compat)
    ]
    return table(fmt.COMPAT.header, rows) if rows else ""


def _benchmarks(state: SessionState) -> str:
    rows = []
    for b in state.of_kind(Benchmark):
        conc = str(b.concurrency) if b.concurrency else ""
        base = fmt.BASELINE if b.baseline else ""
        # The headline figures (throughput, TTFT, ITL, failures); `show` has every metric.
        shown = [(cell(m.name), number(m.value), cell(m.unit)) for m in headline(b.metrics) or b.metrics] or [("", "", "")]
        for metric, value, unit in shown:
            rows.append(
                fmt.BENCHMARKS.row(
                    title=cell(b.title),
                    concurrency=conc,
                    metric=metric,
                    value=value,
                    unit=unit,
                    baseline=base,
                    status=b.status,
                    id=code(b.id),
                )
            )
    return table(fmt.BENCHMARKS.header, rows) if rows else ""


def link_lines(record: RecordBase) -> list[str]:
    """`Evidence: `a`, `b`` lines, one per relation the record uses."""
    out = []
    for rel in RELATIONS:
        targets = getattr(record.links, rel)
        if targets:
            out.append(f"{fmt.relation_label(rel)}: " + ", ".join(code(t) for t in targets))
    return out


def _enforcements(d: Decision) -> list[str]:
    return [f"{fmt.ENFORCES}: {code(s)}{fmt.ENFORCES_ON}" + ", ".join(code(c) for c in cmds) for s, cmds in d.settings_by_command().items()]


def _decision(d: Decision) -> str:
    status_line = line(d.status + fmt.DOT, Md(code(d.id)), fmt.DOT + d.source if d.source else "", start=True)
    lines = [f"#### {heading(d.title)}", "", status_line, ""]
    facts = []
    if d.question:
        facts.append(line(f"{fmt.QUESTION}: {d.question}", start=True))
    facts.append(line(f"{fmt.CHOICE}: {d.choice}", start=True))
    facts += [line(f"{fmt.REJECTED}: {a.option}{fmt.SEP}{a.why_not}", start=True) for a in d.alternatives]
    if d.rationale:
        facts.append(line(f"{fmt.RATIONALE}: {d.rationale}", start=True))
    for t in d.tradeoffs:
        values = [v for v in (t.before, t.after) if v]
        change = f": {fmt.ARROW.join(values)}" + (f" {t.unit}" if t.unit else "") if values else ""
        facts.append(line(f"{fmt.TRADEOFF}: {t.aspect}{change}" + (fmt.SEP + t.note if t.note else ""), start=True))
    facts += _enforcements(d)
    facts += link_lines(d)
    lines.append(bullets(facts))
    if d.body:
        lines += ["", paragraphs(d.body)]
    return "\n".join(lines)


def _decisions(state: SessionState) -> str:
    return "\n\n".join(_decision(d) for d in state.of_kind(Decision))


def _stack(state: SessionState) -> str:
    rows = [
        fmt.STACK.row(name=cell(c.name), version=cell(c.version or ""), build=cell(c.build or ""), status=c.status, id=code(c.id))
        for c in state.of_kind(Component)
    ]
    return table(fmt.STACK.header, rows) if rows else ""


_DISCOVERY_PARTS = {
    fmt.FINDINGS: _findings,
    fmt.RULED_OUT: _ruled_out,
    fmt.COMPAT.title: _compat,
    fmt.BENCHMARKS.title: _benchmarks,
    fmt.DECISIONS: _decisions,
    fmt.STACK.title: _stack,
}


def _discoveries(state: SessionState) -> str:
    parts = [f"### {title}\n\n{body}" for title in fmt.DISCOVERY_PARTS if (body := _DISCOVERY_PARTS[title](state))]
    return "\n\n".join(parts) if parts else "_Nothing discovered yet._"


def _task_item(t: Task) -> str:
    extra = [fmt.priority(t.priority)] if t.priority else []
    head = [Md(f"**{inline(t.title)}**"), f" ({t.impact})" if t.impact else ""]
    return _item(head, t, *extra)


def _accomplished(state: SessionState) -> str:
    parts = []
    for status, title in fmt.TASK_GROUPS:
        tasks = [t for t in state.of_kind(Task) if t.status == status]
        if tasks:
            parts.append(f"### {title}\n\n" + bullets([_task_item(t) for t in tasks]))
    return "\n\n".join(parts) if parts else "_Nothing accomplished yet._"


def next_steps(state: SessionState) -> list[Task]:
    """Open tasks by priority (unprioritised last), proposals after agreed work of equal priority."""
    open_tasks = [t for t in state.of_kind(Task) if t.status in fmt.NEXT_STATUSES]
    return sorted(open_tasks, key=lambda t: (t.priority is None, t.priority or 0, t.status == "proposed", t.id))


def _next(state: SessionState) -> str:
    tasks = next_steps(state)
    return bullets([_task_item(t) for t in tasks]) if tasks else "_No next steps recorded._"


def _command(c: Command, level: str) -> str:
    good = fmt.DOT + fmt.LAST_GOOD if c.last_known_good else ""
    # Current commands say nothing of their status; earlier and failed ones name it after the form.
    status = fmt.DOT + c.status if c.status != fmt.CURRENT else ""
    status_line = line(c.form + status + fmt.DOT, Md(code(c.id)), good + (fmt.DOT + c.source if c.source else ""), start=True)
    lines = [f"{level} {heading(c.title)}", "", status_line]
    if c.purpose:
        lines += ["", inline(c.purpose, start=True)]
    if c.env:
        # Values are shell-quoted so the block stays copy-pasteable whatever they hold.
        lines += ["", fenced("\n".join(f"export {k}={shlex.quote(v)}" for k, v in c.env.items()), "bash")]
    lines += ["", fenced(c.text, "ini" if c.form == "systemd" else "bash")]
    if c.body:
        lines += ["", paragraphs(c.body)]
    return "\n".join(lines)


def _commands(state: SessionState) -> str:
    cmds = [c for c in state.of_kind(Command) if c.status == fmt.CURRENT]
    earlier = [c for c in state.of_kind(Command) if c.status != fmt.CURRENT]
    parts = [_command(c, "###") for c in cmds] or ["_No current commands recorded._"]
    if earlier:
        # History, not instructions: what ran before and what failed, verbatim, oldest first.
        parts.append(f"### {fmt.EARLIER}\n\n" + "\n\n".join(_command(c, "####") for c in earlier))
    return "\n\n".join(parts)


def _files(state: SessionState) -> str:
    # Obsolete files come last, marked by their status, so that links to them still resolve.
    files = sorted(state.of_kind(File), key=lambda f: f.status == "obsolete")
    items = [_item([Md(code(f.path)), fmt.SEP + f.title], f) for f in files]
    return bullets(items) if items else "_No files recorded._"


def _references(state: SessionState) -> str:
    items = [_item([Md(link(r.title, r.url))], r) for r in state.of_kind(Reference)]
    return bullets(items) if items else "_No references recorded._"


_SECTIONS = {
    fmt.GOAL: _goal,
    fmt.INSTRUCTIONS: _instructions,
    fmt.DISCOVERIES: _discoveries,
    fmt.ACCOMPLISHED: _accomplished,
    fmt.NEXT_STEPS: _next,
    fmt.COMMANDS: _commands,
    fmt.FILES: _files,
    fmt.REFERENCES: _references,
}


def render_parts(state: SessionState) -> Iterator[str]:
    """The state document a part at a time: the header, then each section, made when asked for.

    `"\n\n".join(parts) + "\n"` is the document; a reader that shows only its start (the
    TUI's first screen) renders only the sections it shows.
    """
    yield _trim(_header(state))
    for name in fmt.SECTIONS:
        yield _trim(f"## {name}\n\n{_SECTIONS[name](state)}")


def render_markdown(state: SessionState) -> str:
    """The whole state document."""
    return "\n\n".join(render_parts(state)) + "\n"


def _trim(doc: str) -> str:
    """Trailing spaces removed outside code blocks (a blank field leaves `Choice: `); commands keep theirs."""
    out, fence = [], ""
    for row in doc.split("\n"):
        stripped = row.lstrip()
        if fence and stripped.startswith(fence) and not stripped.strip("`"):
            fence = ""
        elif not fence and stripped.startswith("```"):
            fence = stripped[: len(stripped) - len(stripped.lstrip("`"))]
            out.append(row)
            continue
        out.append(row if fence else row.rstrip())
    return "\n".join(out)
