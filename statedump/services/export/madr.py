"""Decisions as MADR 4 files (Markdown Architectural Decision Records).

Each file starts with YAML front matter (`status`, `date`, `decision-makers`), then
the title and the MADR 4 sections: Context and Problem Statement, Considered
Options, Decision Outcome (with Consequences as Good / Bad / Neutral, because ...,
and Confirmation: the flags that enforce it), Pros and Cons of the Options (the
rejected ones, with why not) and More Information (evidence, supersession, the
commit that recorded it). Files are named `NNNN-slug.md`, numbered in the order the
decisions were made.

A trade-off is Good or Bad only when its before and after are numbers and its
aspect or unit says which way is better (`statedump.services.bench.compare.direction`), e.g.
KV cache capacity 3.15M -> 1.57M tokens is Bad; otherwise it is Neutral.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from statedump.core.render.markup import code, inline, paragraphs
from statedump.models import Decision, Tradeoff
from statedump.models.state import SessionState
from statedump.services.bench.compare import direction, quantity
from statedump.services.export.files import (
    Numbered,
    Survey,
    Written,
    decision_date,
    enforced,
    marker,
    number_decisions,
    prompted_by,
    record_line,
    supersede_maps,
    survey,
    tradeoff_text,
    write_folder,
)


def _bullets(items: list[str]) -> str:
    # MADR's own template writes its lists with `*`.
    return "\n".join(f"* {item}" for item in items)


def _lead(text: str) -> str:
    """Text to follow `because`: the first letter lowered unless it starts a name like `BF16`."""
    flat = " ".join(text.split())
    if len(flat) > 1 and flat[0].isupper() and flat[1].islower():
        flat = flat[0].lower() + flat[1:]
    return inline(flat)


def judge_tradeoff(t: Tradeoff) -> str:
    """`Good`, `Bad` or `Neutral` for a trade-off (see the module docstring)."""
    before, after = quantity(t.before), quantity(t.after)
    better = direction(t.aspect, t.unit)
    if before is None or after is None or better is None or before == after:
        return "Neutral"
    return "Good" if (after > before) == (better == "higher") else "Bad"


def _status(d: Decision, by: list[Numbered]) -> str:
    if by:
        return "superseded by " + ", ".join(f"ADR-{n.number:04d}" for n in by)
    return d.status


def front_matter(state: SessionState, d: Decision, by: list[Numbered]) -> str:
    """The YAML block MADR 4 puts before the title."""
    data: dict[str, object] = {"status": _status(d, by), "date": decision_date(state, d)}
    if d.deciders:
        data["decision-makers"] = list(d.deciders)
    return "---\n" + yaml.safe_dump(data, sort_keys=False, allow_unicode=True, default_flow_style=False, width=1000) + "---"


def madr_text(
    state: SessionState, n: Numbered, forward: dict[str, list[Numbered]], backward: dict[str, list[Numbered]], commit: str | None
) -> str:
    """One decision as a MADR 4 file; `commit` is the sha that recorded it, if known."""
    d = n.decision
    context = [inline(d.question, start=True)] if d.question else []
    context += prompted_by(state, d)
    if d.body:
        context.append(paragraphs(d.body))
    options = [x for x in (inline(d.choice), *(inline(a.option) for a in d.alternatives)) if x]
    outcome = f'Chosen option: "{inline(d.choice)}"' + (f", because {_lead(d.rationale)}" if d.rationale else "")
    outcome += "" if outcome.endswith(".") else "."
    consequences = [f"{judge_tradeoff(t)}, because {tradeoff_text(t.aspect, t.before, t.after, t.unit, t.note)}" for t in d.tradeoffs]
    parts = [
        front_matter(state, d, backward.get(d.id, [])),
        f"# {inline(d.title)}",
        "## Context and Problem Statement",
        "\n\n".join(context) or "_Not recorded._",
        "## Considered Options",
        _bullets(options) or "_Not recorded._",
        "## Decision Outcome",
        outcome,
    ]
    if consequences:
        parts += ["### Consequences", _bullets(consequences)]
    if d.enforces:
        parts += [
            "### Confirmation",
            "Enforced by "
            + "; ".join(enforced(d))
            + ". `statedump check` reports a command that no longer carries it, and `statedump why "
            + d.id
            + "` tells the whole story.",
        ]
    if d.alternatives:
        parts.append("## Pros and Cons of the Options")
        for a in d.alternatives:
            parts += [f"### {inline(a.option)}", _bullets([f"Bad, because {_lead(a.why_not)}"])]
    more = [f"Evidence: {record_line(state.get(i), i)}" for i in d.links.evidence]
    more += [f"Supersedes [{inline(x.decision.title)}]({x.filename})" for x in forward.get(d.id, [])]
    more += [f"Superseded by [{inline(x.decision.title)}]({x.filename})" for x in backward.get(d.id, [])]
    where = f"statedump session {code(state.session.id)}, decision {code(d.id)}"
    if d.source:
        where += f", from {inline(d.source)}"
    more.append(f"Recorded in commit {code(commit[:10])} ({where})" if commit else f"Recorded in {where}")
    parts += ["## More Information", _bullets(more), marker(state, d)]
    return "\n\n".join(parts) + "\n"


def madr_files(state: SessionState, commits: dict[str, str] | None = None, found: Survey | None = None) -> dict[str, str]:
    """File name -> text for every decision; `commits` maps decision ids to the sha that recorded them."""
    numbered = number_decisions(state, found)
    forward, backward = supersede_maps(numbered)
    commits = commits or {}
    return {n.filename: madr_text(state, n, forward, backward, commits.get(n.decision.id)) for n in numbered}


def export_madr(state: SessionState, folder: Path, commits: dict[str, str] | None = None) -> Written:
    """Write the decisions into `folder` as MADR 4 files, beside any others there."""
    folder = folder.resolve()
    found = survey(folder, state.session.id)
    return write_folder(folder, madr_files(state, commits, found), found)
