"""What `check` learns from history, so that it agrees with `why` and `handoff`: accepted
decisions that need review (`services.why.needs_review`), and benchmarks whose producing
command changed after they were measured.

A benchmark's measurement is dated by the last commit that changed its file; when a command
it links with `produced_by` differs now from what it was in that commit, the result was
measured on a setup that is gone, and every face shows it as `stale` (`with_stale`).
Recording the benchmark again (or editing it, to say it still holds) settles it, as editing
a decision settles its review.
"""

from __future__ import annotations

from statedump.core.layout import record_path
from statedump.core.store.store import Store
from statedump.models import Benchmark, Command, Decision
from statedump.models.state import SessionState
from statedump.services.check import Finding
from statedump.services.history import describe_change, record_at, record_logs

_OWN_CODES = ("enforcement-", "superseded-")


def stale_benchmarks(store: Store, session: str, state: SessionState) -> dict[str, str]:
    """Benchmark id -> why it is stale, for each `valid` benchmark whose `produced_by` command
    changed since the commit that last changed the benchmark."""
    measured = [(b, [c for c in b.links.produced_by if isinstance(state.get(c), Command)]) for b in state.of_kind(Benchmark)]
    measured = [(b, commands) for b, commands in measured if b.status == "valid" and commands]
    if not measured:
        return {}
    # Every history at once; a command is read as of a benchmark's commit only when a later
    # commit changed it, or it has uncommitted changes: otherwise it is as it was then.
    commands = {c for _, cs in measured for c in cs}
    logs, order = record_logs(store, session, {**{b.id: b.kind for b, _ in measured}, **{c: "command" for c in commands}})
    files = {c: record_path(session, "command", c) for c in commands}
    dirty = set(store.git.dirty(sorted(files.values())))
    edited = {c for c, path in files.items() if path in dirty}
    out: dict[str, str] = {}
    for b, cids in measured:
        history = logs.get(b.id)
        if not history:
            continue  # not committed yet: nothing to date the measurement by
        since = history[0].sha
        for cid in cids:
            later = bool(logs.get(cid)) and order.get(logs[cid][0].sha, len(order)) < order.get(since, len(order))
            if not later and cid not in edited:
                continue
            before = record_at(store, since, session, cid, "command")
            change = describe_change(before, state.get(cid)) if before is not None else None
            if change is not None:
                out[b.id] = f"produced_by command {cid} changed since the benchmark was measured (commit {since[:10]}): {change}"
                break
    return out


def with_stale(state: SessionState, stale: dict[str, str]) -> SessionState:
    """The state with those benchmarks shown as `stale` (in memory only: the files are not touched)."""
    if not stale:
        return state
    records = [r.model_copy(update={"status": "stale"}) if r.kind == "benchmark" and r.id in stale else r for r in state.records]
    return SessionState(state.session, records)


def load_effective(store: Store, session: str) -> SessionState:
    """The session's working tree with benchmarks whose command changed shown as stale:
    the state the TUI, `render` and `handoff` present."""
    state = store.load(session)
    return with_stale(state, stale_benchmarks(store, session, state))


def history_findings(store: Store, session: str, state: SessionState) -> list[Finding]:
    """`benchmark-command-changed` for each benchmark gone stale that way, and
    `decision-needs-review` for each accepted decision with reasons (one finding per reason),
    both judged on the state with those benchmarks stale, as `handoff` judges them."""
    from statedump.services.why import needs_review

    stale = stale_benchmarks(store, session, state)
    out = [Finding("benchmark-command-changed", f"benchmark/{bid}", why) for bid, why in stale.items()]
    effective = with_stale(state, stale)
    for d in effective.of_kind(Decision):
        if d.status == "accepted":
            reasons = needs_review(store, session, d, effective)
            # Reasons that are `check` findings already are reported under their own codes.
            out += [Finding("decision-needs-review", f"decision/{d.id}", r) for r in reasons if not r.startswith(_OWN_CODES)]
    return out


def check_session(store: Store, session: str, rev: str | None = None) -> tuple[SessionState, list[Finding]]:
    """Everything `check` reports for a session, in report order: the consistency findings,
    and — for the working tree only, since they are judged from the history up to now — the
    advisory ones above. `check` on the command line and the MCP `check` tool both ask this."""
    from statedump.services.check import check, ordered

    state = store.load(session, rev)
    findings = check(state)
    if rev is None:
        findings = ordered(findings + history_findings(store, session, state))
    return state, findings
