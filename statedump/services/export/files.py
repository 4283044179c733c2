"""What the ADR and MADR exports share: numbering, file names, dates, evidence lines, and
writing a folder of decision files so that a second export gives the same bytes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from statedump.core.clock import now
from statedump.core.errors import StatedumpError
from statedump.core.output import make_folder, write_failure
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


@dataclass(frozen=True)
class Survey:
    """What an export folder already holds: the numbers other files took (adr-tools' own records,
    another session's export) and the numbers this session's earlier exports gave its decisions."""

    taken: frozenset[int] = frozenset()
    ours: dict[str, int] = field(default_factory=dict)
    own_files: tuple[Path, ...] = ()


_MARKER = re.compile(re.escape(MARKER_PREFIX) + r"([^/\s]+)/(\S+) -->")


def survey(folder: Path, session: str) -> Survey:
    """Read the numbered files of `folder`: which are this session's earlier exports, which are not."""
    if folder.exists() and not folder.is_dir():
        raise StatedumpError("expected a folder, found a file", where=folder, hint="name a new or existing folder with --dir")
    if not folder.is_dir():
        return Survey()
    taken: set[int] = set()
    ours: dict[str, int] = {}
    own: list[Path] = []
    for path in sorted(folder.iterdir()):
        if not (path.is_file() and not path.is_symlink() and NUMBERED.match(path.name)):
            continue
        number = int(path.name.split("-", 1)[0])
        found = _MARKER.search(read_text(path)[-400:])
        if found and found.group(1) == session:
            ours.setdefault(found.group(2), number)
            own.append(path)
        else:
            taken.add(number)
    return Survey(frozenset(taken), ours, tuple(own))


def read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError as err:
        raise StatedumpError(f"cannot read: {err.strerror or err}", where=path) from None


def number_decisions(state: SessionState, folder: Survey | None = None) -> list[Numbered]:
    """Every decision, numbered in the order they were made: the number an earlier export gave it,
    else the next after every number the folder holds (so adr-tools' own records keep theirs)."""
    folder = folder or Survey()
    following = max(folder.taken | set(folder.ours.values()), default=0) + 1
    out = []
    for d in state.of_kind(Decision):
        n = folder.ours.get(d.id)
        if n is None:
            n, following = following, following + 1
        out.append(Numbered(n, d, f"{n:04d}-{slug(d.title)}.md"))
    return out


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


def write_folder(folder: Path, files: dict[str, str], found: Survey) -> Written:
    """Write `files` (name -> text) into `folder`, replacing this session's earlier export there.

    Files an earlier export of the session wrote and this one does not (a decision renamed or
    removed) are deleted; every other file (adr-tools' own records, another session's export)
    is left as it is.
    """
    clash = [name for name in files if (folder / name).exists() and folder / name not in found.own_files]
    if clash:
        raise StatedumpError(f"{clash[0]} is not this session's export", where=folder, hint="remove or rename that file, then export again")
    stale = [p for p in found.own_files if p.name not in files]
    make_folder(folder)
    try:
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
    except OSError as err:
        raise write_failure(err, folder) from None
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
