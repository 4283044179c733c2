"""Why a decision was made: the question, the choice, the evidence chain, the commands that
carry it out, the commits that recorded it, and whether it needs review.

`why()` gathers a `WhyReport`; `why_markdown()` and `why_json()` present it for people
and for programs. The CLI, the TUI and the MCP server share these functions.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from statedump.core.errors import StatedumpError
from statedump.core.layout import RecordRef, record_path
from statedump.core.store.store import Store
from statedump.models import Command, Decision, Enforcement, Instruction, RecordBase
from statedump.models.state import SessionState
from statedump.services.check import actual_values, carries, decision_findings
from statedump.services.flags import parse_command
from statedump.services.history import Entry, describe_change, entry_json, record_at, record_log

_STATUS_RANK = {"accepted": 0, "proposed": 1, "superseded": 2, "rejected": 3}
# Statuses that mean a linked record no longer supports what links to it.
_WEAK = {"discovery": {"ruled-out"}, "benchmark": {"stale", "invalid"}, "compat": {"untested"}, "instruction": {"superseded"}}
_WEAK |= {"command": {"previous", "failed"}, "decision": {"superseded", "rejected"}, "reference": {"outdated"}}
_WEAK |= {"component": {"replaced"}, "file": {"obsolete"}}


# -- finding the decision ------------------------------------------------------


def _flag_key(text: str) -> str:
    return text.strip().lstrip("-").lower()


def _tier(decision: Decision, query: str) -> int | None:
    """How well `decision` matches: 0 its id, 1 a flag or env it enforces, 2 every word, None not at all."""
    q = query.strip().lower()
    if decision.id == q:
        return 0
    key = _flag_key(query)
    if key and any(_flag_key(e.flag or e.env or "") == key for e in decision.enforces):
        return 1
    haystack = " ".join([decision.id, *decision.text_fields(), *decision.tags]).lower()
    words = q.split()
    if words and all(w in haystack or w.lstrip("-") in haystack for w in words):
        return 2
    return None


def find_decisions(state: SessionState, query: str) -> list[Decision]:
    """Decisions that match `query`, best first.

    `query` is a decision id; a flag or environment variable a decision enforces
    (`kv-cache-dtype`, `--kv-cache-dtype`, `NCCL_P2P_LEVEL`); or words that must all appear
    in the decision's text (case-insensitive), e.g. `BF16 KV`. An exact id comes first,
    then enforced flags, then word matches; within each, accepted before proposed,
    superseded and rejected, then the most recent.
    """
    scored = []
    for d in state.of_kind(Decision):
        tier = _tier(d, query)
        if tier is not None:
            stamp = d.at.timestamp() if d.at else 0.0
            scored.append(((tier, _STATUS_RANK.get(d.status, 9), -stamp, d.id), d))
    return [d for _, d in sorted(scored, key=lambda x: x[0])]


# -- the report -------------------------------------------------------------


class EnforcedBy(NamedTuple):
    """One enforcement of the decision and whether the command carries it out."""

    enforcement: Enforcement
    command: Command | None
    """The command record, or None when the decision names one that does not exist."""
    present: bool
    """True when the command's text or env sets the flag or variable to the enforced value."""


@dataclass
class WhyReport:
    """Everything known about why a decision was made."""

    decision: Decision
    prompted_by: list[Instruction] = field(default_factory=list)
    """The user's instructions behind it: directly, or behind its evidence."""
    evidence: list[RecordBase] = field(default_factory=list)
    """Linked evidence of any kind: discoveries, benchmarks, compat cells, references, files."""
    related: list[RecordBase] = field(default_factory=list)
    """Records it `relates_to`."""
    enforcing: list[EnforcedBy] = field(default_factory=list)
    """Each enforced flag or variable, its command, and whether the command carries it."""
    enforcing_commands: list[Command] = field(default_factory=list)
    """Commands linked with `enforces` that no flag-level enforcement names."""
    supersedes: list[Decision] = field(default_factory=list)
    superseded_by: list[Decision] = field(default_factory=list)
    recorded: Entry | None = None
    """The commit that added the decision."""
    last_changed: Entry | None = None
    """The latest commit that changed it."""
    review_reasons: list[str] = field(default_factory=list)
    """Why the decision needs review; empty when it does not."""
    also_matching: list[Decision] = field(default_factory=list)
    """Other decisions the query matched."""
    missing: list[str] = field(default_factory=list)
    """Linked ids that name no record."""


def _linked(state: SessionState, ids: list[str], missing: list[str]) -> list[RecordBase]:
    out = []
    for rid in ids:
        rec = state.get(rid)
        if rec is None:
            if rid not in missing:
                missing.append(rid)
        elif rec not in out:
            out.append(rec)
    return out


def build_report(state: SessionState, decision: Decision) -> WhyReport:
    """The report from the state alone, without history (recorded, last_changed, review reasons from git)."""
    report = WhyReport(decision)
    links = decision.links
    prompted = _linked(state, links.prompted_by, report.missing)
    report.prompted_by = [r for r in prompted if isinstance(r, Instruction)]
    report.evidence = [r for r in prompted if not isinstance(r, Instruction)] + [
        r for r in _linked(state, links.evidence, report.missing) if r not in prompted
    ]
    # The instruction behind the evidence is part of the chain even when the decision
    # does not link it itself.
    for ev in report.evidence:
        for rec in _linked(state, ev.links.prompted_by, []):
            if isinstance(rec, Instruction) and rec not in report.prompted_by:
                report.prompted_by.append(rec)
    report.related = _linked(state, links.relates_to, report.missing)
    for e in decision.enforces:
        cmd = state.get(e.command)
        command = cmd if isinstance(cmd, Command) else None
        if cmd is None and e.command not in report.missing:
            report.missing.append(e.command)
        report.enforcing.append(EnforcedBy(e, command, command is not None and carries(e, command)))
    named = {e.command for e in decision.enforces}
    report.enforcing_commands = [r for r in _linked(state, links.enforces, report.missing) if isinstance(r, Command) and r.id not in named]
    report.supersedes = [r for r in _linked(state, links.supersedes, report.missing) if isinstance(r, Decision)]
    report.superseded_by = [r for rel, r in state.linking_to(decision.id) if rel == "supersedes" and isinstance(r, Decision)]
    return report


def _linked_ids(decision: Decision) -> list[str]:
    ids = [*decision.links.evidence, *decision.links.prompted_by, *(e.command for e in decision.enforces), *decision.links.enforces]
    return list(dict.fromkeys(i for i in ids if i != decision.id))


def needs_review(
    store: Store, session: str, decision: Decision, state: SessionState | None = None, history: list[Entry] | None = None
) -> list[str]:
    """Why the decision needs review, one reason each; empty when it does not.

    A reason is given for each linked record (evidence, prompted_by, enforced commands)
    whose file was changed by a commit after the one that last changed the decision, and
    for each linked record that is gone or no longer supports it (superseded, ruled out,
    stale, invalid, previous), and for each finding of `statedump check` about the
    decision's enforcements. Records added after the decision (replayed histories link
    forward in time) are not changes. `state` and `history` (the decision's `record_log`)
    are read when not given.
    """
    state = state or store.load(session)
    reasons: list[str] = []
    ids = _linked_ids(decision)
    if history is None and ids:
        history = record_log(store, session, decision.id)
    if history and ids:
        since = history[0].sha
        # Ask git for the commits only of records that differ from what they were at the
        # decision: a ranged log over several kind folders walks thousands of trees (0.4 s in a
        # 10,000-commit store), while reading a few files at one commit costs milliseconds.
        before_of = {rid: record_at(store, since, session, rid, _kind(state.get(rid))) for rid in ids}
        # A record that did not exist at the decision (a dangling link, or one added later)
        # has no change to date; asking git about it would walk the whole history for nothing.
        suspects = {
            rid: (now or before).kind
            for rid, before, now in ((rid, before_of[rid], state.get(rid)) for rid in ids)
            if before is not None and describe_change(before, now) is not None
        }
        paths = [record_path(session, kind, rid) for rid, kind in suspects.items()]
        later = store.git.log(paths, since=since) if paths else []
        seen: set[str] = set()
        for commit, touched in later:  # newest first: the first commit seen for a record is its latest change
            for path in touched:
                ref = RecordRef.parse(path)
                rid = ref.id if ref else ""
                if rid in seen or rid not in suspects:
                    continue
                seen.add(rid)
                before = before_of[rid]
                change = describe_change(before, state.get(rid))
                if before is None or change is None:
                    continue  # added after the decision, or changed back since
                reasons.append(
                    f"{_role(decision, rid)} {rid} changed after the decision was recorded "
                    f"(commit {commit.sha[:10]}, {commit.date:%Y-%m-%d}): {change}"
                )
    for rid in ids:
        rec = state.get(rid)
        role = _role(decision, rid)
        if rec is None:
            reasons.append(f"{role} {rid} no longer exists")
        elif rec.status in _WEAK.get(rec.kind, set()) and not (rec.kind == "discovery" and getattr(rec, "category", "") == "dead-end"):
            reasons.append(f"{role} {rid} is now {rec.status}")
    # A decision whose commands no longer carry it is not in force, whatever its evidence says.
    for finding in decision_findings(state, decision):
        if finding.code.startswith(("enforcement-", "superseded-")):
            reasons.append(f"{finding.code}: {finding.message}")
    return reasons


def _kind(record: RecordBase | None) -> str | None:
    return record.kind if record is not None else None


def _role(decision: Decision, rid: str) -> str:
    if rid in decision.links.evidence:
        return "evidence"
    if rid in decision.links.prompted_by:
        return "instruction"
    return "enforcing command"


def why(store: Store, session: str, query: str, state: SessionState | None = None) -> WhyReport:
    """The report for the decision that best matches `query` (see `find_decisions`), in
    `state` (the session's working tree, read when not given).

    Raises StatedumpError (exit 2) when no decision matches.
    """
    state = state or store.load(session)
    found = find_decisions(state, query)
    if not found:
        ids = ", ".join(d.id for d in state.of_kind(Decision)) or "none yet"
        raise StatedumpError(
            f"no decision matches {query!r}",
            where="QUERY",
            hint=f"give a decision id, a flag it enforces (kv-cache-dtype) or words from it; decisions: {ids}",
        )
    report = build_report(state, found[0])
    report.also_matching = found[1:]
    history = record_log(store, session, found[0].id)
    if history:
        report.last_changed = history[0]
        report.recorded = next((e for e in reversed(history) if e.action in (None, "add", "import")), history[-1])
    report.review_reasons = needs_review(store, session, found[0], state, history)
    return report


# -- presenting -------------------------------------------------------------


def _when(entry: Entry) -> str:
    return f"{entry.date:%Y-%m-%d %H:%M} UTC"


# What opens a block at the start of a paragraph in CommonMark; only then is the first
# character escaped, since formatters drop escapes that are not needed (`\--flag`).
_BLOCK_START = re.compile(r"^(?:[-+*](?:\s|$)|\d{1,9}[.)](?:\s|$)|#{1,6}(?:\s|$)|>|```|~~~|([-*_])(?:\s*\1){2,}\s*$)")


def _para(text: str) -> str:
    from statedump.core.render.markup import inline

    return inline(text, start=bool(_BLOCK_START.match(" ".join(text.split()))))


def _first_paragraph(text: str | None) -> str | None:
    if not text:
        return None
    return text.strip().split("\n\n", 1)[0]


def _actual_text(item: EnforcedBy) -> str:
    if item.command is None:
        return "the command does not exist"
    found = actual_values(item.enforcement, parse_command(item.command.text, item.command.form, item.command.env))
    if found is None:
        return f"not set in {item.command.id}"
    return "set to " + ", ".join("(no value)" if v is None else v for v in found)


def _record_line(rec: RecordBase) -> str:
    from statedump.core.render.markup import code, inline, paragraphs

    line = f"{rec.kind} {code(rec.id)} ({rec.status}): {inline(rec.title)}"
    if rec.source:
        line += f" — {inline(rec.source)}"
    first = _first_paragraph(rec.body)
    if first:
        line += "\n\n" + paragraphs(first)
    return line


def why_markdown(report: WhyReport) -> str:
    """The report as Markdown: question, choice, alternatives, rationale, trade-offs,
    evidence chain, enforcing commands, commits, supersede links, review reasons."""
    from statedump.core.render.markup import bullets, cell, code, inline, paragraphs, table

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
    out += ["", "## Evidence"]
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
    out += ["", "## Enforced by"]
    items = []
    for item in report.enforcing:
        mark = "present" if item.present else f"NOT present ({inline(_actual_text(item))})"
        status = f" ({item.command.status})" if item.command else ""
        items.append(f"{code(item.enforcement.command)}{status}: {code(item.enforcement.setting())} — {mark}")
    items += [f"{code(c.id)} ({c.status}): {inline(c.title)}" for c in report.enforcing_commands]
    out += ["", bullets(items) if items else "No command is linked as enforcing this decision."]
    out += ["", "## Recorded", ""]
    if report.recorded:
        rec = report.recorded
        line = f"Added on {_when(rec)} in commit {code(rec.short)}: {inline(rec.subject)}"
        out.append(line + (f" (source: {inline(rec.source)})" if rec.source else ""))
        last = report.last_changed
        if last and last.sha != rec.sha:
            out += ["", f"Last changed on {_when(last)} in commit {code(last.short)}: {inline(last.subject)}"]
    else:
        out.append("Not committed yet: the decision exists only in the working tree.")
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


def _actual(item: EnforcedBy) -> list[str | None] | None:
    cmd = item.command
    return actual_values(item.enforcement, parse_command(cmd.text, cmd.form, cmd.env)) if cmd else None


def why_json(report: WhyReport) -> dict[str, Any]:
    """The report as JSON-ready data."""
    from statedump.services.records import to_json

    return {
        "decision": to_json(report.decision),
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
                "actual": _actual(e),
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
