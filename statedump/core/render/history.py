"""History for people and for programs: log lines, diff lines, and their JSON shapes."""

from __future__ import annotations

import difflib
from collections.abc import Callable
from typing import Any

from statedump.core.render.json import plain, to_json
from statedump.models.history import Comparison, Entry, FieldChange


def short_value(value: Any, limit: int = 80) -> str:
    """A value on one line for a diff or a log: text flattened, an infinite rate `inf`, a
    nested value as one-line JSON, long text cut with an ellipsis."""
    if value is None:
        return "(none)"
    data = plain(value)
    text = " ".join(data.split()) if isinstance(data, str) else to_json(data, indent=None)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def changed_lines(change: FieldChange) -> list[str] | None:
    """For long verbatim text (a command, a body: a string of several lines on either side),
    the lines that differ, each `- old` or `+ new` in order; None for any other value, which
    is shown whole."""
    old, new = change.old, change.new
    if not (isinstance(old, str) and isinstance(new, str) and ("\n" in old or "\n" in new)):
        return None
    return [line for line in difflib.ndiff(old.splitlines(), new.splitlines()) if line[:2] in ("- ", "+ ")]


def gone_and_came(change: FieldChange, show: Callable[[str], str]) -> tuple[str, str] | None:
    """For verbatim text, the lines that went and the lines that came, each drawn by `show`
    and joined with ` / ` (`(no line)` when there are none); None for any other value."""
    lines = changed_lines(change)
    if lines is None:
        return None
    gone = " / ".join(show(line[2:]) for line in lines if line[0] == "-") or "(no line)"
    came = " / ".join(show(line[2:]) for line in lines if line[0] == "+") or "(no line)"
    return gone, came


def change_line(change: FieldChange) -> str:
    """A field's change in a few words, `status confirmed -> resolved`; of verbatim text, the
    lines that went and came."""
    # A shell line's trailing `\` continues it; it says nothing about the change.
    both = gone_and_came(change, lambda line: line.strip(" \\"))
    old, new = both if both is not None else (change.old, change.new)
    return f"{change.field} {short_value(old, 40)} -> {short_value(new, 40)}"


def entry_json(entry: Entry) -> dict[str, Any]:
    """An entry as JSON-ready data."""
    return {
        "commit": entry.sha,
        "date": plain(entry.date),
        "subject": entry.subject,
        "action": entry.action,
        "record": entry.record,
        "source": entry.source,
        "session": entry.session,
    }


def log_lines(entries: list[Entry]) -> list[str]:
    """One line per entry: date, short sha, subject, and the source when there is one."""
    out = []
    for e in entries:
        line = f"{e.date:%Y-%m-%d %H:%M}  {e.short}  {e.subject}"
        out.append(line + (f"  [{e.source}]" if e.source else ""))
    return out or ["(no commits yet)"]


def diff_json(result: Comparison) -> dict[str, Any]:
    """A comparison as JSON-ready data."""
    data = {
        "from": {"ref": result.old_ref, "commit": result.old_sha},
        "to": {"ref": result.new_ref, "commit": result.new_sha},
        "changes": [
            {
                "id": d.id,
                "kind": d.kind,
                "change": d.change,
                "title": d.title,
                "fields": [{"field": f.field, "old": f.old, "new": f.new} for f in d.fields] if d.change == "changed" else [],
            }
            for d in result.changes
        ],
    }
    out: dict[str, Any] = plain(data)
    return out


def _field_lines(change: FieldChange) -> list[str]:
    lines = changed_lines(change)
    if lines is None:
        return [f"    {change.field}: {short_value(change.old)} -> {short_value(change.new)}"]
    return [f"    {change.field}:"] + [f"      {line[0]} {line[2:].strip()}" for line in lines]


_MARK = {"added": "+", "removed": "-", "changed": "~"}


def diff_lines(result: Comparison) -> list[str]:
    """The comparison for people: one line per record (+ added, - removed, ~ changed), then
    the changed fields as old -> new, then a count."""
    new = result.new_sha[:10] if result.new_sha else "working tree"
    out = [f"{result.old_ref} ({result.old_sha[:10]}) -> {result.new_ref}" + (f" ({new})" if result.new_sha else "")]
    counts = {"added": 0, "removed": 0, "changed": 0}
    for d in result.changes:
        counts[d.change] += 1
        out.append(f"{_MARK[d.change]} {d.kind} {d.id}: {' '.join(d.title.split())}")
        if d.change == "changed":
            for f in d.fields:
                out += _field_lines(f)
    if not result.changes:
        out.append("no differences")
    out.append(f"{counts['added']} added, {counts['removed']} removed, {counts['changed']} changed")
    return out
