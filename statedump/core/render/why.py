"""A `WhyReport` for people (Markdown) and for programs (JSON-ready data)."""

from __future__ import annotations

import re
from typing import Any

from statedump.core.render.history import entry_json
from statedump.core.render.json import plain
from statedump.core.render.markup import bullets, cell, code, inline, paragraphs, table
from statedump.models.base import RecordBase
from statedump.models.history import Entry
from statedump.models.reports import EnforcedBy, WhyReport


def _when(entry: Entry) -> str:
    return f"{entry.date:%Y-%m-%d %H:%M} UTC"


# What opens a block at the start of a paragraph in CommonMark; only then is the first
# character escaped, since formatters drop escapes that are not needed (`\--flag`).
_BLOCK_START = re.compile(r"^(?:[-+*](?:\s|$)|\d{1,9}[.)](?:\s|$)|#{1,6}(?:\s|$)|>|```|~~~|([-*_])(?:\s*\1){2,}\s*$)")


def _para(text: str) -> str:
    return inline(text, start=bool(_BLOCK_START.match(" ".join(text.split()))))


def _first_paragraph(text: str | None) -> str | None:
    if not text:
        return None
    return text.strip().split("\n\n", 1)[0]


def _actual_text(item: EnforcedBy) -> str:
    if item.command is None:
        return "the command does not exist"
    if item.actual is None:
        return f"not set in {item.command.id}"
    return "set to " + ", ".join("(no value)" if v is None else v for v in item.actual)


def _record_line(rec: RecordBase) -> str:
    line = f"{rec.kind} {code(rec.id)} ({rec.status}): {inline(rec.title)}"
    if rec.source:
        line += f" — {inline(rec.source)}"
    first = _first_paragraph(rec.body)
    if first:
        line += "\n\n" + paragraphs(first)
    return line


def _evidence(report: WhyReport) -> list[str]:
    out = ["", "## Evidence"]
    if report.prompted_by:
        items = []
        for ins in report.prompted_by:
            by = f" ({inline(ins.source)})" if ins.source else ""
            kind = "standing" if ins.standing else "one-off"
            items.append(f"“{inline(ins.quote)}” — the user{by}; {code(ins.id)}, {kind}, {ins.status}")
        out += ["", "Prompted by:", "", bullets(items)]
    if report.evidence:
        out += ["", "Supported by:", "", bullets([_record_line(r) for r in report.evidence])]
    if report.related:
        out += ["", "Related:", "", bullets([f"{r.kind} {code(r.id)}: {inline(r.title)}" for r in report.related])]
    if not (report.prompted_by or report.evidence or report.related):
        out += ["", "No evidence is linked to this decision."]
    if report.missing:
        out += ["", "Linked but missing: " + ", ".join(code(m) for m in report.missing)]
    return out


def _enforced(report: WhyReport) -> list[str]:
    items = []
    for item in report.enforcing:
        mark = "present" if item.present else f"NOT present ({inline(_actual_text(item))})"
        status = f" ({item.command.status})" if item.command else ""
        items.append(f"{code(item.enforcement.command)}{status}: {code(item.enforcement.setting())} — {mark}")
    items += [f"{code(c.id)} ({c.status}): {inline(c.title)}" for c in report.enforcing_commands]
    return ["", "## Enforced by", "", bullets(items) if items else "No command is linked as enforcing this decision."]


def _recorded(report: WhyReport) -> list[str]:
    out = ["", "## Recorded", ""]
    if report.recorded:
        rec = report.recorded
        line = f"Added on {_when(rec)} in commit {code(rec.short)}: {inline(rec.subject)}"
        out.append(line + (f" (source: {inline(rec.source)})" if rec.source else ""))
        last = report.last_changed
        if last and last.sha != rec.sha:
            out += ["", f"Last changed on {_when(last)} in commit {code(last.short)}: {inline(last.subject)}"]
    else:
        out.append("Not committed yet: the decision exists only in the working tree.")
    return out


def why_markdown(report: WhyReport) -> str:
    """The report as Markdown: question, choice, alternatives, rationale, trade-offs,
    evidence chain, enforcing commands, commits, supersede links, review reasons."""
    d = report.decision
    head = f"Decision {code(d.id)} · {d.status}"
    if d.at:
        head += f" · {d.at:%Y-%m-%d %H:%M} UTC"
    if d.source:
        head += f" · {inline(d.source)}"
    out = [f"# Why: {inline(d.title)}", "", head]
    if d.question:
        out += ["", "## Question", "", _para(d.question)]
    out += ["", "## Choice", "", _para(d.choice)]
    if d.alternatives:
        out += ["", "## Alternatives", "", bullets([f"{inline(a.option)} — not chosen: {inline(a.why_not)}" for a in d.alternatives])]
    if d.rationale:
        out += ["", "## Rationale", "", paragraphs(d.rationale)]
    if d.tradeoffs:
        rows = [[cell(t.aspect), cell(t.before or ""), cell(t.after or ""), cell(t.unit or ""), cell(t.note or "")] for t in d.tradeoffs]
        out += ["", "## Trade-offs", "", table(["Aspect", "Before", "After", "Unit", "Note"], rows)]
    out += _evidence(report) + _enforced(report) + _recorded(report)
    if report.supersedes or report.superseded_by:
        out += ["", "## Supersedes", ""]
        items = [f"Supersedes {code(s.id)} ({s.status}): {inline(s.title)}" for s in report.supersedes]
        items += [f"Superseded by {code(s.id)} ({s.status}): {inline(s.title)}" for s in report.superseded_by]
        out.append(bullets(items))
    out += ["", "## Review", ""]
    if report.review_reasons:
        out += ["Needs review:", "", bullets([inline(r) for r in report.review_reasons])]
    else:
        out.append("No review needed: the linked evidence is unchanged since the decision was recorded.")
    if report.also_matching:
        out += ["", "## Also matching", "", bullets([f"{code(m.id)} ({m.status}): {inline(m.title)}" for m in report.also_matching])]
    return "\n".join(out) + "\n"


def why_json(report: WhyReport) -> dict[str, Any]:
    """The report as JSON-ready data."""
    data = {
        "decision": report.decision,
        "prompted_by": [
            {"id": i.id, "quote": i.quote, "source": i.source, "standing": i.standing, "status": i.status} for i in report.prompted_by
        ],
        "evidence": [{"id": r.id, "kind": r.kind, "title": r.title, "status": r.status, "source": r.source} for r in report.evidence],
        "related": [{"id": r.id, "kind": r.kind, "title": r.title} for r in report.related],
        "enforced_by": [
            {
                "command": e.enforcement.command,
                "flag": e.enforcement.flag,
                "env": e.enforcement.env,
                "value": e.enforcement.value,
                "command_status": e.command.status if e.command else None,
                "present": e.present,
                "actual": e.actual,
            }
            for e in report.enforcing
        ]
        + [{"command": c.id, "command_status": c.status} for c in report.enforcing_commands],
        "supersedes": [d.id for d in report.supersedes],
        "superseded_by": [d.id for d in report.superseded_by],
        "recorded": entry_json(report.recorded) if report.recorded else None,
        "last_changed": entry_json(report.last_changed) if report.last_changed else None,
        "needs_review": bool(report.review_reasons),
        "review_reasons": report.review_reasons,
        "missing": report.missing,
        "also_matching": [d.id for d in report.also_matching],
    }
    out: dict[str, Any] = plain(data)
    return out
