"""Why a decision was made: the question, the choice, the evidence chain, the commands that
carry it out, the commits that recorded it, and whether it needs review.

`why()` gathers a `WhyReport`; `statedump.core.render.why` presents it for people and for
programs. The CLI, the TUI and the MCP server share these functions.
"""

from __future__ import annotations

from statedump.core.errors import StatedumpError
from statedump.core.layout import RecordRef, record_path
from statedump.core.render.candidates import nearest
from statedump.core.store.store import Store
from statedump.models import Command, Decision, Instruction, RecordBase
from statedump.models.history import Entry
from statedump.models.reports import EnforcedBy, WhyReport
from statedump.models.state import SessionState
from statedump.services.check import actual_values, carries, decision_findings
from statedump.services.flags import parse_command
from statedump.services.history import describe_change, record_at, record_log

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
        if command is None:
            report.enforcing.append(EnforcedBy(e, None, False))
        else:
            actual = actual_values(e, parse_command(command.text, command.form, command.env))
            report.enforcing.append(EnforcedBy(e, command, carries(e, command), actual))
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
        ids = nearest(query, (d.id for d in state.of_kind(Decision))) or "none yet"
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
