"""The handoff report for people: Markdown sections (with a Mermaid chart of the benchmark
trend), each also drawn for a terminal by `terminal.print_handoff`."""

from __future__ import annotations

import re

from statedump.core.render.history import gone_and_came, short_value
from statedump.core.render.markdown import render_markdown
from statedump.core.render.markup import bullets, cell, code, fenced, inline, table
from statedump.core.render.numbers import number
from statedump.models.history import FieldChange
from statedump.models.reports import TREND_METRIC, Handoff, TrendPoint


def _since(h: Handoff) -> str:
    if h.since_ref is None:
        return "the start of the session (it has no dump yet)"
    return code(h.since_ref)


def _field(change: FieldChange) -> str:
    # Verbatim text (a command, a body): only the lines that differ, each as code.
    both = gone_and_came(change, lambda line: code(line.strip()))
    if both is None:
        return f"{inline(change.field)}: {inline(short_value(change.old))} → {inline(short_value(change.new))}"
    return f"{inline(change.field)}: {both[0]} → {both[1]}"


def changes_markdown(h: Handoff) -> str:
    """Records added, changed (field by field, old → new) and removed since the ref."""
    if not h.changes:
        return f"Nothing changed since {_since(h)}."
    counts = {k: sum(1 for d in h.changes if d.change == k) for k in ("added", "changed", "removed")}
    parts = [f"Since {_since(h)}: {counts['added']} added, {counts['changed']} changed, {counts['removed']} removed."]
    for change, label in (("added", "Added"), ("changed", "Changed"), ("removed", "Removed")):
        items = []
        for d in (x for x in h.changes if x.change == change):
            item = f"{d.kind} {code(d.id)}: {inline(d.title)}"
            if change == "changed":
                item += "\n" + bullets([_field(f) for f in d.fields])
            items.append(item)
        if items:
            parts.append(f"### {label}\n\n" + bullets(items))
    return "\n\n".join(parts)


def open_questions_markdown(h: Handoff) -> str:
    """Proposed decisions, blocked tasks, and decisions needing review with the reasons."""
    parts = []
    if h.proposed:
        items = [f"**{inline(d.title)}** — {inline(d.question or d.choice)} · {code(d.id)}" for d in h.proposed]
        parts.append("### Proposed decisions\n\n" + bullets(items))
    if h.blocked:
        items = []
        for t in h.blocked:
            blocks = f" — blocks {', '.join(code(b) for b in t.links.blocks)}" if t.links.blocks else ""
            items.append(f"**{inline(t.title)}** · {code(t.id)}{blocks}")
        parts.append("### Blocked tasks\n\n" + bullets(items))
    if h.review:
        items = [f"**{inline(d.title)}** · {code(d.id)}\n" + bullets([inline(r) for r in reasons]) for d, reasons in h.review]
        parts.append("### Decisions needing review\n\n" + bullets(items))
    return "\n\n".join(parts) or "_None: no proposed decision, no blocked task, no decision needing review._"


def commands_markdown(h: Handoff) -> str:
    """The commands last seen to work; current ones are in full in the state document below."""
    if not h.good_commands:
        return "_No command is marked last known good._"
    items = []
    for c in h.good_commands:
        item = f"**{inline(c.title)}** — {c.form} · {c.status} · {code(c.id)}" + (f" · {inline(c.source)}" if c.source else "")
        if c.status != "current":
            item += "\n\n" + fenced(c.text, "ini" if c.form == "systemd" else "bash")
        items.append(item)
    note = "Current commands are written out in full under Deployment commands in the state document below."
    return bullets(items) + "\n\n" + note


def _plot_value(value: float) -> str:
    # Mermaid reads the chart's data as numbers: no grouping commas here, unlike `number`.
    return str(int(value)) if value == int(value) else f"{value:.6g}"


def trend_rows(points: list[TrendPoint]) -> list[list[str]]:
    """Concurrency, value, unit, benchmark id and status, one row per point."""
    return [[str(p.concurrency), number(p.value), p.unit, p.benchmark.id, p.benchmark.status] for p in points]


TREND_HEADER = ["Concurrency", TREND_METRIC, "Unit", "Benchmark", "Status"]


def trend_markdown(h: Handoff) -> str:
    """A Mermaid xychart of the trend metric against concurrency, and the same figures as a table."""
    if not h.trend:
        return f"_No benchmark records {TREND_METRIC} at a known concurrency._"
    unit = h.trend[0].unit
    xs = ", ".join(f'"{p.concurrency}"' for p in h.trend)
    ys = ", ".join(_plot_value(p.value) for p in h.trend)
    top = max(p.value for p in h.trend)
    chart = "\n".join(
        [
            "xychart-beta",
            f'    title "{TREND_METRIC} by concurrency"',
            f'    x-axis "concurrency" [{xs}]',
            f'    y-axis "{unit.replace(chr(34), "")}" 0 --> {_plot_value(float(int(top * 1.1) + 1))}',
            f"    line [{ys}]",
        ]
    )
    rows = [[conc, value, cell(unit), code(bench), status] for conc, value, unit, bench, status in trend_rows(h.trend)]
    text = fenced(chart, "mermaid") + "\n\n" + table(TREND_HEADER, rows)
    if any(p.benchmark.status == "stale" for p in h.trend):
        text += "\n\nStale results were measured on a setup that has changed since; re-measure before relying on them."
    return text


_HEADING = re.compile(r"^(#{1,5}) ")
_FENCE = re.compile(r"^(`{3,}|~{3,})")


def demote(markdown: str) -> str:
    """Every heading one level deeper (`#` -> `##`), leaving fenced code blocks alone."""
    out, fence = [], ""
    for line in markdown.split("\n"):
        m = _FENCE.match(line)
        if fence:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence) and not line.strip(fence[0]).strip():
                fence = ""
        elif m:
            fence = m.group(1)
        elif _HEADING.match(line):
            line = "#" + line
        out.append(line)
    return "\n".join(out)


def sections(h: Handoff) -> list[tuple[str, str]]:
    """(heading, Markdown body) of each part of the report, in order."""
    return [
        (f"What changed since {h.since_ref or 'the start'}", changes_markdown(h)),
        ("Open questions", open_questions_markdown(h)),
        ("Last known good commands", commands_markdown(h)),
        ("Benchmark trend", trend_markdown(h)),
    ]


def header_markdown(h: Handoff) -> str:
    """The title and the facts line."""
    s = h.state.session
    facts = [f"Session {code(s.id)}", f"generated {h.generated:%Y-%m-%d %H:%M} UTC"]
    if h.since_ref and h.since_sha:
        facts.append(f"compared with {code(h.since_ref)} (commit {code(h.since_sha[:10])})")
    return f"# Handoff: {inline(s.title)}\n\n" + " · ".join(facts)


def state_markdown(h: Handoff) -> str:
    """The state document, as a section of the report."""
    doc = render_markdown(h.state).rstrip("\n")
    body = doc.split("\n", 1)[1].lstrip("\n") if doc.startswith("# ") else doc
    return "## State document\n\n" + demote(body)


def handoff_markdown(h: Handoff) -> str:
    """The whole report as Markdown."""
    parts = [header_markdown(h)]
    parts += [f"## {inline(title)}\n\n{body}" for title, body in sections(h)]
    parts.append(state_markdown(h))
    return "\n\n".join(parts) + "\n"
