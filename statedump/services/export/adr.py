"""Decisions as adr-tools files (Nygard's ADR format, as npryce/adr-tools writes it).

Each decision becomes `NNNN-slug.md`, numbered in the order the decisions were
made. The first line is `# N. Title` (`adr generate toc` reads it), then `Date:`,
and the sections `## Status`, `## Context`, `## Decision`, `## Consequences`.
Supersession is written the way `adr new -s` writes it: the newer record keeps its
status and adds a `Supersedes [N. Title](file)` line; the older one's status is
replaced by `Superseded by [N. Title](file)`.

adr-tools finds its folder by looking for a `.adr-dir` file (or `doc/adr`) from the current folder
upwards. The export writes `.adr-dir` at the root of the project (git work tree) that holds the
folder, so `adr list` works anywhere in that project; outside any project it writes it inside
the folder itself (pointing at `.`), never in a folder above it, where it would redirect
adr-tools in every project below (`--dir ~/adr` must not touch `~`). Records adr-tools or
another session wrote in the folder keep their files and numbers; this session's are numbered
after them and keep their numbers on a re-export.
"""

from __future__ import annotations

import os
from pathlib import Path

from statedump.core.errors import StatedumpError
from statedump.core.output import write_failure
from statedump.core.render.markup import bullets, inline, paragraphs
from statedump.models.state import SessionState
from statedump.services.export.files import (
    Numbered,
    Survey,
    Written,
    decision_date,
    enforced,
    marker,
    number_decisions,
    prompted_by,
    read_text,
    record_line,
    supersede_maps,
    survey,
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


def adr_files(state: SessionState, found: Survey | None = None) -> dict[str, str]:
    """File name -> text for every decision of the session."""
    numbered = number_decisions(state, found)
    forward, backward = supersede_maps(numbered)
    return {n.filename: adr_text(state, n, forward, backward) for n in numbered}


def project_root(folder: Path) -> Path | None:
    """The nearest folder above `folder` that is a git work tree, if any."""
    for above in folder.parents:
        if (above / ".git").exists():
            return above
    return None


def export_adr(state: SessionState, folder: Path) -> tuple[Written, Path]:
    """Write the decisions into `folder`, and the `.adr-dir` that points adr-tools at it; returns
    what changed and the `.adr-dir` path.

    An existing `.adr-dir` that points elsewhere is refused rather than redirected.
    """
    folder = folder.resolve()
    root = project_root(folder)
    pointer = (root or folder) / ADR_DIR_FILE
    wanted = os.path.relpath(folder, root) if root else "."
    if pointer.is_symlink() or (pointer.exists() and not pointer.is_file()):
        raise StatedumpError("expected a plain file", where=pointer, hint="remove it, then export again")
    if pointer.is_file() and (held := read_text(pointer).strip()) != wanted:
        raise StatedumpError(
            f"{ADR_DIR_FILE} already points at {held!r}", where=pointer, hint="export into that folder, or remove the file"
        )
    written = write_folder(folder, adr_files(state, found := survey(folder, state.session.id)), found)
    if not pointer.is_file():
        try:
            pointer.write_text(wanted + "\n", encoding="utf-8")
        except OSError as err:
            raise write_failure(err, pointer) from None
    return written, pointer
