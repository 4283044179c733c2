"""The state document in Markdown.

The spine is `## Goal`, `## Instructions`, `## Discoveries`, `## Accomplished`, in
that order, so that any agent that knows the common compaction format reads it;
then Next steps, Deployment commands, Relevant files / directories, References.
The same records always render the same bytes: nothing here reads a clock.
"""

from __future__ import annotations

import math
import shlex
from collections.abc import Iterator

from statedump.core.render.markup import Md, bullets, cell, code, fenced, inline, line, link, paragraphs, table, visible
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

SPINE = ("Goal", "Instructions", "Discoveries", "Accomplished")
SECTIONS = (*SPINE, "Next steps", "Deployment commands", "Relevant files / directories", "References")


def _tail(record: RecordBase, *extra: str) -> list[str]:
    """The trailing `— status · source · id` of a list item, as `line()` pieces."""
    bits = [*extra, record.status]
    if record.source:
        bits.append(record.source)
    return [" — " + " · ".join(bits) + " · ", Md(code(record.id))]


def _item(head: list[str], record: RecordBase, *extra: str) -> str:
    text = line(*head, *_tail(record, *extra), start=True)
    if record.body:
        text += "\n\n" + paragraphs(record.body)
    return text


def _number(value: float) -> str:
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    if abs(value) >= 1000:
        return f"{value:,.2f}".rstrip("0").rstrip(".")
    return f"{value:g}"


def heading(text: str) -> str:
    """Text for an ATX heading: a `#` at its end would be read as a closing sequence, so it is escaped."""
    escaped = inline(text)
    return escaped[:-1] + "\\#" if escaped.endswith("#") else escaped


def _header(state: SessionState) -> str:
    s = state.session
    lines = [f"# {heading(s.title)}", ""]
    values = [
        (label, v)
        for label, v in (("model", s.model), ("hardware", s.hardware), ("agent", s.agent), ("repo", s.repo), ("branch", s.branch))
        if v
    ]
    lines.append(line("Session ", Md(code(s.id)), "".join(f" · {label}: {value}" for label, value in values), start=True))
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
            block += "\n\nSuccess criteria:\n\n" + bullets([inline(c, start=True) for c in g.criteria if c.strip()])
        parts.append(block)
    return "\n\n".join(parts)


def _instructions(state: SessionState) -> str:
    items = []
    for ins in state.of_kind(Instruction):
        kind = "standing" if ins.standing else "one-off"
        quote = paragraphs(ins.quote)
        if "\n" in quote:
            # The user's words are plain text, not Markdown: each line is escaped.
            head = "\n".join(f"> {inline(line, start=True)}".rstrip() for line in quote.split("\n"))
            items.append(head + "\n\n" + line(ins.title, *_tail(ins, kind), start=True))
        elif _same_words(ins.title, quote) and '" — ' not in " ".join(quote.split()):
            # A title that only repeats the quote is left out; the reader takes the quote for it.
            items.append(line(f'"{quote}"', *_tail(ins, kind), start=True))
        else:
            items.append(line(f'"{quote}" — {ins.title}', *_tail(ins, kind), start=True))
    return bullets(items) if items else "_No instructions recorded._"


def _same_words(a: str, b: str) -> bool:
    # Compared as the document shows them: control characters as symbols, white space joined.
    return visible(a).split() == visible(b).split()


def _findings(state: SessionState) -> list[str]:
    found = [d for d in state.of_kind(Discovery) if d.status != "ruled-out"]
    dead = [d for d in state.of_kind(Discovery) if d.status == "ruled-out"]
    out = []
    if found:
        out.append("### Findings\n\n" + bullets([_item([Md(f"**{inline(d.title)}**")], d, d.category) for d in found]))
    if dead:
        out.append("### Ruled out (do not retry)\n\n" + bullets([_item([Md(f"**{inline(d.title)}**")], d) for d in dead]))
    return out


def _compat(rows: list[Compat]) -> str:
    header = ["Component", "Option", "Target", "Result", "Symptom", "Id"]
    body = [[cell(c.component), cell(c.option), cell(c.target), c.status, cell(c.symptom or ""), code(c.id)] for c in rows]
    return "### Compatibility matrix\n\n" + table(header, body)


def _benchmarks(rows: list[Benchmark]) -> str:
    header = ["Benchmark", "Concurrency", "Metric", "Value", "Unit", "Baseline", "Status", "Id"]
    body = []
    for b in rows:
        conc = str(b.concurrency) if b.concurrency else ""
        base = "yes" if b.baseline else ""
        for m in b.metrics or []:
            body.append([cell(b.title), conc, cell(m.name), _number(m.value), cell(m.unit), base, b.status, code(b.id)])
        if not b.metrics:
            body.append([cell(b.title), conc, "", "", "", base, b.status, code(b.id)])
    return "### Benchmarks\n\n" + table(header, body)


def link_lines(record: RecordBase) -> list[str]:
    """`Evidence: `a`, `b`` lines, one per relation the record uses."""
    out = []
    for rel in RELATIONS:
        targets = getattr(record.links, rel)
        if targets:
            out.append(f"{rel.replace('_', ' ').capitalize()}: " + ", ".join(code(t) for t in targets))
    return out


def _enforcements(d: Decision) -> list[str]:
    return [f"Enforces: {code(s)} on " + ", ".join(code(c) for c in cmds) for s, cmds in d.settings_by_command().items()]


def _decision(d: Decision) -> str:
    status_line = line(f"{d.status} · ", Md(code(d.id)), f" · {d.source}" if d.source else "", start=True)
    lines = [f"#### {heading(d.title)}", "", status_line, ""]
    facts = []
    if d.question:
        facts.append(line(f"Question: {d.question}", start=True))
    facts.append(line(f"Choice: {d.choice}", start=True))
    facts += [line(f"Rejected: {a.option} — {a.why_not}", start=True) for a in d.alternatives]
    if d.rationale:
        facts.append(line(f"Rationale: {d.rationale}", start=True))
    for t in d.tradeoffs:
        values = [v for v in (t.before, t.after) if v]
        change = f": {' → '.join(values)}" + (f" {t.unit}" if t.unit else "") if values else ""
        facts.append(line(f"Trade-off: {t.aspect}{change}" + (f" — {t.note}" if t.note else ""), start=True))
    facts += _enforcements(d)
    facts += link_lines(d)
    lines.append(bullets(facts))
    if d.body:
        lines += ["", paragraphs(d.body)]
    return "\n".join(lines)


def _stack(rows: list[Component]) -> str:
    header = ["Component", "Version", "Built / obtained", "Status", "Id"]
    body = [[cell(c.name), cell(c.version or ""), cell(c.build or ""), c.status, code(c.id)] for c in rows]
    return "### Software stack\n\n" + table(header, body)


def _discoveries(state: SessionState) -> str:
    parts = _findings(state)
    if compat := state.of_kind(Compat):
        parts.append(_compat(compat))
    if bench := state.of_kind(Benchmark):
        parts.append(_benchmarks(bench))
    if decisions := state.of_kind(Decision):
        parts.append("### Decisions\n\n" + "\n\n".join(_decision(d) for d in decisions))
    if stack := state.of_kind(Component):
        parts.append(_stack(stack))
    return "\n\n".join(parts) if parts else "_Nothing discovered yet._"


def _task_item(t: Task) -> str:
    extra = [f"P{t.priority}"] if t.priority else []
    head = [Md(f"**{inline(t.title)}**"), f" ({t.impact})" if t.impact else ""]
    return _item(head, t, *extra)


def _accomplished(state: SessionState) -> str:
    groups = [("done", "Done"), ("in-progress", "In progress"), ("blocked", "Blocked"), ("dropped", "Dropped")]
    parts = []
    for status, label in groups:
        tasks = [t for t in state.of_kind(Task) if t.status == status]
        if tasks:
            parts.append(f"### {label}\n\n" + bullets([_task_item(t) for t in tasks]))
    return "\n\n".join(parts) if parts else "_Nothing accomplished yet._"


def next_steps(state: SessionState) -> list[Task]:
    """Open tasks by priority (unprioritised last), proposals after agreed work of equal priority."""
    open_tasks = [t for t in state.of_kind(Task) if t.status in ("todo", "proposed")]
    return sorted(open_tasks, key=lambda t: (t.priority is None, t.priority or 0, t.status == "proposed", t.id))


def _next(state: SessionState) -> str:
    tasks = next_steps(state)
    return bullets([_task_item(t) for t in tasks]) if tasks else "_No next steps recorded._"


EARLIER = "Earlier and failed commands"


def _command(c: Command, level: str) -> str:
    good = " · last known good" if c.last_known_good else ""
    # Current commands say nothing of their status; earlier and failed ones name it after the form.
    status = f" · {c.status}" if c.status != "current" else ""
    status_line = line(f"{c.form}{status} · ", Md(code(c.id)), good + (f" · {c.source}" if c.source else ""), start=True)
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
    cmds = [c for c in state.of_kind(Command) if c.status == "current"]
    earlier = [c for c in state.of_kind(Command) if c.status != "current"]
    parts = [_command(c, "###") for c in cmds] or ["_No current commands recorded._"]
    if earlier:
        # History, not instructions: what ran before and what failed, verbatim, oldest first.
        parts.append(f"### {EARLIER}\n\n" + "\n\n".join(_command(c, "####") for c in earlier))
    return "\n\n".join(parts)


def _files(state: SessionState) -> str:
    # Obsolete files come last, marked by their status, so that links to them still resolve.
    files = sorted(state.of_kind(File), key=lambda f: f.status == "obsolete")
    items = [_item([Md(code(f.path)), f" — {f.title}"], f) for f in files]
    return bullets(items) if items else "_No files recorded._"


def _references(state: SessionState) -> str:
    items = [_item([Md(link(r.title, r.url))], r) for r in state.of_kind(Reference)]
    return bullets(items) if items else "_No references recorded._"


_SECTIONS = {
    "Goal": _goal,
    "Instructions": _instructions,
    "Discoveries": _discoveries,
    "Accomplished": _accomplished,
    "Next steps": _next,
    "Deployment commands": _commands,
    "Relevant files / directories": _files,
    "References": _references,
}


def render_parts(state: SessionState) -> Iterator[str]:
    """The state document a part at a time: the header, then each section, made when asked for.

    `"\n\n".join(parts) + "\n"` is the document; a reader that shows only its start (the
    TUI's first screen) renders only the sections it shows.
    """
    yield _trim(_header(state))
    for name, build in _SECTIONS.items():
        yield _trim(f"## {name}\n\n{build(state)}")


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
