"""What the ADR and MADR exports share: numbering, file names, dates, evidence lines, and
writing a folder of decision files so that a second export gives the same bytes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from statedump.core.clock import now
from statedump.core.errors import StatedumpError
from statedump.core.render.markup import code, inline, link
from statedump.core.render.numbers import number as figure
from statedump.core.store.files import write_text_atomic
from statedump.core.store.store import Store
from statedump.models import Benchmark, Compat, Decision, Discovery, Instruction, RecordBase, Reference
from statedump.models.ids import slug_words
from statedump.models.state import SessionState

NUMBERED = re.compile(r"^\d+-[^/]*\.md$")
"""The names adr-tools lists (`adr list`): digits, a dash, anything, `.md`."""
MARKER_PREFIX = "<!-- statedump-export: "
SLUG_MAX = 80


@dataclass(frozen=True)
class Numbered:
    """A decision with the number and file name the export gives it."""

    number: int
    decision: Decision
    filename: str

    @property
    def heading(self) -> str:
        """`N. Title`: the first line of the ADR without `# `, and the text of links to it."""
        return f"{self.number}. {inline(self.decision.title)}"


def slug(title: str) -> str:
    """The file-name slug, as adr-tools makes it: lowercase words joined by `-`, cut at a word."""
    return slug_words(title, SLUG_MAX) or "decision"


def number_decisions(state: SessionState) -> list[Numbered]:
    """Every decision, numbered from 1 in the order they were made."""
    return [Numbered(n, d, f"{n:04d}-{slug(d.title)}.md") for n, d in enumerate(state.of_kind(Decision), 1)]


def decision_date(state: SessionState, decision: Decision) -> date:
    """When the decision was made; else when the session started; else today."""
    when = decision.at or state.session.started or now()
    return when.date()


def marker(state: SessionState, decision: Decision) -> str:
    """The last line of every exported file: which record it came from, so a re-export knows its own files."""
    return f"{MARKER_PREFIX}{state.session.id}/{decision.id} -->"


def supersede_maps(numbered: list[Numbered]) -> tuple[dict[str, list[Numbered]], dict[str, list[Numbered]]]:
    """(supersedes, superseded_by): decision id -> the numbered decisions on the other end."""
    by_id = {n.decision.id: n for n in numbered}
    forward: dict[str, list[Numbered]] = {}
    backward: dict[str, list[Numbered]] = {}
    for n in numbered:
        for old in n.decision.links.supersedes:
            if old in by_id:
                forward.setdefault(n.decision.id, []).append(by_id[old])
                backward.setdefault(old, []).append(n)
    return forward, backward


def record_line(record: RecordBase | None, record_id: str) -> str:
    """One evidence line: what the record says, its kind and status, where it came from, its id."""
    if record is None:
        return f"{code(record_id)} (no longer in the session)"
    head = link(record.title, record.url) if isinstance(record, Reference) else inline(record.title)
    facts = [record.kind, record.status]
    if isinstance(record, Benchmark):
        figures = [f"{inline(m.name)} {figure(m.value)} {inline(m.unit)}" for m in record.metrics]
        if record.concurrency:
            figures.append(f"concurrency {record.concurrency}")
        facts += figures
    if isinstance(record, Compat) and record.symptom:
        facts.append(inline(record.symptom))
    if isinstance(record, Discovery):
        facts[0] = f"{record.category}"
    if record.source:
        facts.append(inline(record.source))
    return f"{head} — {', '.join(facts)} ({code(record.id)})"


def prompted_by(state: SessionState, decision: Decision) -> list[str]:
    """The user's words that prompted the decision, as Markdown blocks (quotes kept verbatim)."""
    out = []
    for rid in decision.links.prompted_by:
        rec = state.get(rid)
        if isinstance(rec, Instruction):
            said = f"Prompted by the user ({inline(rec.source)}):" if rec.source else "Prompted by the user:"
            quote = "\n".join("> " + inline(line) if line.strip() else ">" for line in rec.quote.strip().splitlines())
            out.append(f"{said}\n\n{quote}")
        else:
            out.append(f"Prompted by: {record_line(rec, rid)}")
    return out


def enforced(decision: Decision) -> list[str]:
    """`flag value` on `commands`, one line per setting."""
    return [f"{code(s)} on " + ", ".join(code(c) for c in cmds) for s, cmds in decision.settings_by_command().items()]


def tradeoff_text(aspect: str, before: str | None, after: str | None, unit: str | None, note: str | None) -> str:
    change = " → ".join(inline(v) for v in (before, after) if v)
    text = inline(aspect) + (f": {change}" if change else "") + (f" {inline(unit)}" if unit and change else "")
    return text + (f" — {inline(note)}" if note else "")


@dataclass
class Written:
    """What an export did to its folder."""

    folder: Path
    written: list[str]
    unchanged: list[str]
    removed: list[str]


def write_folder(folder: Path, files: dict[str, str]) -> Written:
    """Write `files` (name -> text) into `folder`, replacing earlier statedump exports there.

    Numbered files that an earlier export wrote and this one does not (a decision
    renumbered or removed) are deleted; numbered files statedump did not write make
    the export refuse before anything is touched, since adr-tools would mix them in.
    """
    if folder.exists() and not folder.is_dir():
        raise StatedumpError("expected a folder, found a file", where=folder, hint="name a new or existing folder with --dir")
    stale: list[Path] = []
    if folder.is_dir():
        for path in sorted(folder.iterdir()):
            if not (path.is_file() and NUMBERED.match(path.name)):
                continue
            if MARKER_PREFIX not in path.read_text(encoding="utf-8", errors="replace"):
                raise StatedumpError(
                    f"{path.name} was not written by statedump",
                    where=folder,
                    hint="export into an empty folder, or one that only holds an earlier statedump export",
                )
            if path.name not in files:
                stale.append(path)
    folder.mkdir(parents=True, exist_ok=True)
    result = Written(folder, [], [], [p.name for p in stale])
    for path in stale:
        path.unlink()
    for name, text in files.items():
        path = folder / name
        if path.is_file() and path.read_bytes() == text.encode("utf-8"):
            result.unchanged.append(name)
            continue
        write_text_atomic(path, text)
        result.written.append(name)
    return result


def recorded_commits(store: Store, session: str, state: SessionState) -> dict[str, str]:
    """Decision id -> the sha of the commit that first recorded it (one git call per decision)."""
    from statedump.services.history import record_log

    out = {}
    for d in state.of_kind(Decision):
        entries = record_log(store, session, d.id)
        if entries:
            out[d.id] = entries[-1].sha
    return out
