"""Which of a benchmark's metrics are its headline: the few figures a reader compares first.

A result keeps every metric its tool wrote (durations, counts, std, every percentile); the
state document, the handoff report and the resume prompt show only these, written here once
so that the three agree. The importers name metrics the way vLLM does (`median_ttft_ms`,
`p99_itl_ms`, `output_throughput`, `failed`), whatever the tool, so one rule serves them all.
"""

from __future__ import annotations

from collections.abc import Sequence

from statedump.models import Metric

HEADLINE: tuple[tuple[str, ...], ...] = (
    ("output_throughput",),
    ("median_ttft_ms", "mean_ttft_ms"),
    ("p99_ttft_ms",),
    ("median_itl_ms", "median_tpot_ms", "mean_itl_ms", "mean_tpot_ms"),
    ("p99_itl_ms", "p99_tpot_ms"),
)
"""Each slot with the names that may fill it, the preferred one first: a median where there
is one (a mean is pulled by the outliers the p99 already shows), ITL before TPOT (ITL is what
a streaming user feels between tokens; TPOT is there when ITL is not)."""

FAILURES = ("failed", "failed_requests")
"""Names of the failed-request count: shown whenever it is above zero, since a figure from a
run where requests failed is not what it seems."""


def headline(metrics: Sequence[Metric]) -> list[Metric]:
    """The headline metrics of a result, in the order of `HEADLINE`, then the failures.

    Slots the result has no metric for are left out; a result none of whose metrics is a
    headline one (a one-batch latency run) gets an empty list, and callers show all of it.
    """
    by_name = {m.name: m for m in metrics}
    out = []
    for names in HEADLINE:
        found = next((by_name[n] for n in names if n in by_name), None)
        if found is not None:
            out.append(found)
    failed = next((by_name[n] for n in FAILURES if n in by_name), None)
    if failed is not None and failed.value > 0:
        out.append(failed)
    return out
