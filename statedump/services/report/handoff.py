"""The handoff report: where things stand and what changed, for the next person.

`build_handoff()` gathers a `Handoff`; `statedump.core.render.handoff` writes it. It holds what changed since a point in history (by default the session's last
dump tag), the open questions (proposed decisions, blocked tasks, accepted
decisions whose evidence changed since), the last known good commands, a
benchmark trend (throughput against concurrency), and the state document itself.
"""

from __future__ import annotations

from statedump.core.clock import now
from statedump.core.errors import StatedumpError
from statedump.core.store.store import Store
from statedump.models import Benchmark, Command, Decision, Task
from statedump.models.reports import TREND_METRIC, Handoff, TrendPoint
from statedump.models.state import SessionState
from statedump.services.history import diff_states, resolve_ref
from statedump.services.refs import last_dump


def trend(state: SessionState, metric: str = TREND_METRIC) -> list[TrendPoint]:
    """`metric` by concurrency, one point per concurrency (its latest benchmark), ordered by concurrency.

    Benchmarks marked invalid are left out; stale ones stay, and the table says so.
    """
    latest: dict[int, TrendPoint] = {}
    for b in state.of_kind(Benchmark):  # chronological, so later results replace earlier ones
        m = b.metric(metric)
        if b.status != "invalid" and b.concurrency and m is not None:
            latest[b.concurrency] = TrendPoint(b.concurrency, m.value, m.unit, b)
    return [latest[c] for c in sorted(latest)]


def build_handoff(store: Store, session: str, since: str | None = None, state: SessionState | None = None) -> Handoff:
    """Gather the report for `session`; `since` is any ref `statedump diff` takes (default: the last dump)."""
    from statedump.services.review import stale_benchmarks, with_stale
    from statedump.services.why import needs_review

    state = state or store.load(session)
    # Benchmarks whose command changed since they were measured are stale here as in `check`.
    state = with_stale(state, stale_benchmarks(store, session, state))
    if since is None:
        dump = last_dump(store, session)
        since_ref, since_sha = (dump.name, dump.sha) if dump else (None, None)
    else:
        try:
            since_ref, since_sha = since, resolve_ref(store, since, session)
        except StatedumpError as err:
            raise StatedumpError(err.message, where="--since", hint=err.hint) from None
    before = store.load(session, since_sha) if since_sha else SessionState(state.session, [])
    decisions = state.of_kind(Decision)
    review = [(d, reasons) for d in decisions if d.status == "accepted" and (reasons := needs_review(store, session, d, state))]
    return Handoff(
        state=state,
        generated=now(),
        since_ref=since_ref,
        since_sha=since_sha,
        changes=diff_states(before, state),
        proposed=[d for d in decisions if d.status == "proposed"],
        blocked=[t for t in state.of_kind(Task) if t.status == "blocked"],
        review=review,
        good_commands=[c for c in state.of_kind(Command) if c.last_known_good and c.status != "failed"],
        trend=trend(state),
    )
