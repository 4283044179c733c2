"""Decisions as adr-tools files (Nygard's ADR format, as npryce/adr-tools writes it).

Each decision becomes `NNNN-slug.md`, numbered in the order the decisions were
made. The first line is `# N. Title` (`adr generate toc` reads it), then `Date:`,
and the sections `## Status`, `## Context`, `## Decision`, `## Consequences`.
Supersession is written the way `adr new -s` writes it: the newer record keeps its
status and adds a `Supersedes [N. Title](file)` line; the older one's status is
replaced by `Superseded by [N. Title](file)`. adr-tools finds the folder through a
`.adr-dir` file in the folder above it, which the export writes too.
"""

from __future__ import annotations

from pathlib import Path

from statedump.core.errors import StatedumpError
from statedump.core.render.markup import bullets, inline, paragraphs
from statedump.models.state import SessionState
from statedump.services.export.files import (
    Numbered,
    Written,
    decision_date,
    enforced,
    marker,
    number_decisions,
    prompted_by,
    record_line,
    supersede_maps,
    tradeoff_text,
    write_folder,
)

SUPERSEDES = "Supersedes"
SUPERSEDED_BY = "Superseded by"
"""The link words Debian's adr-tools 3.0.0 writes (`adr new -s`); releases before 3.0 spelt them with a c."""
STATUS_WORDS = {"accepted": "Accepted", "proposed": "Proposed", "rejected": "Rejected", "superseded": "Superseded"}
ADR_DIR_FILE = ".adr-dir"


def _link(n: Numbered) -> str:
    return f"[{n.heading}]({n.filename})"


def _status(n: Numbered, forward: dict[str, list[Numbered]], backward: dict[str, list[Numbered]]) -> str:
    by = backward.get(n.decision.id, [])
    lines = [f"{SUPERSEDED_BY} {_link(x)}" for x in by] if by else [STATUS_WORDS[n.decision.status]]
    lines += [f"{SUPERSEDES} {_link(x)}" for x in forward.get(n.decision.id, [])]
    return "\n\n".join(lines)


def adr_text(state: SessionState, n: Numbered, forward: dict[str, list[Numbered]], backward: dict[str, list[Numbered]]) -> str:
    """One decision as an adr-tools file."""
    d = n.decision
    context = [inline(d.question, start=True)] if d.question else []
    context += prompted_by(state, d)
    evidence = [record_line(state.get(i), i) for i in d.links.evidence]
    if evidence:
        context.append("Evidence:\n\n" + bullets(evidence))
    if d.body:
        context.append(paragraphs(d.body))
    decision = [f"Chosen: {inline(d.choice.rstrip('.')) or 'not recorded'}."]
    if d.rationale:
        decision.append(paragraphs(d.rationale))
    if d.enforces:
        decision.append("Enforced by:\n\n" + bullets(enforced(d)))
    consequences = []
    if d.tradeoffs:
        consequences.append(bullets([tradeoff_text(t.aspect, t.before, t.after, t.unit, t.note) for t in d.tradeoffs]))
    if d.alternatives:
        rejected = [f"{inline(a.option)}: {inline(a.why_not)}" for a in d.alternatives]
        consequences.append("Rejected alternatives:\n\n" + bullets(rejected))
    sections = [
        f"# {n.heading}",
        f"Date: {decision_date(state, d).isoformat()}",
        "## Status",
        _status(n, forward, backward),
        "## Context",
        "\n\n".join(context) or "_Not recorded._",
        "## Decision",
        "\n\n".join(decision),
        "## Consequences",
        "\n\n".join(consequences) or "_Not recorded._",
        marker(state, d),
    ]
    return "\n\n".join(sections) + "\n"


def adr_files(state: SessionState) -> dict[str, str]:
    """File name -> text for every decision of the session."""
    numbered = number_decisions(state)
    forward, backward = supersede_maps(numbered)
    return {n.filename: adr_text(state, n, forward, backward) for n in numbered}


def export_adr(state: SessionState, folder: Path) -> tuple[Written, Path]:
    """Write the decisions into `folder` and `.adr-dir` beside it; returns what changed and the `.adr-dir` path.

    An existing `.adr-dir` that points elsewhere is refused rather than redirected.
    """
    folder = folder.resolve()
    pointer = folder.parent / ADR_DIR_FILE
    wanted = folder.name + "\n"
    if pointer.is_file() and pointer.read_text(encoding="utf-8").strip() != folder.name:
        raise StatedumpError(
            f"{ADR_DIR_FILE} already points at {pointer.read_text(encoding='utf-8').strip()!r}",
            where=pointer,
            hint="export into that folder, or remove the file",
        )
    if pointer.exists() and not pointer.is_file():
        raise StatedumpError("expected a file, found a folder", where=pointer)
    written = write_folder(folder, adr_files(state))
    if not pointer.is_file() or pointer.read_text(encoding="utf-8") != wanted:
        pointer.write_text(wanted, encoding="utf-8")
    return written, pointer
