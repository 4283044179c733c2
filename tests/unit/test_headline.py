"""The headline rule: which metrics of a result the state document, handoff and resume show."""

from __future__ import annotations

from statedump.core.render.headline import headline
from statedump.models import Metric


def _m(name: str, value: float = 1.0, unit: str = "ms") -> Metric:
    return Metric(name=name, value=value, unit=unit)


def test_headline_picks_throughput_medians_and_p99_in_order() -> None:
    metrics = [
        _m("duration", unit="s"),
        _m("p99_itl_ms"),
        _m("mean_ttft_ms"),
        _m("median_ttft_ms"),
        _m("std_ttft_ms"),
        _m("p99_ttft_ms"),
        _m("median_tpot_ms"),
        _m("median_itl_ms"),
        _m("output_throughput", unit="tok/s"),
        _m("failed", 0, "requests"),
    ]
    names = [m.name for m in headline(metrics)]
    # The median wins over the mean, ITL over TPOT; a zero failure count is not news.
    assert names == ["output_throughput", "median_ttft_ms", "p99_ttft_ms", "median_itl_ms", "p99_itl_ms"]


def test_headline_falls_back_and_shows_failures() -> None:
    metrics = [_m("mean_ttft_ms"), _m("mean_tpot_ms"), _m("p99_tpot_ms"), _m("failed", 8, "requests")]
    assert [m.name for m in headline(metrics)] == ["mean_ttft_ms", "mean_tpot_ms", "p99_tpot_ms", "failed"]


def test_headline_of_other_metrics_is_empty() -> None:
    assert headline([_m("latency", unit="s"), _m("cache_hit_rate", unit="ratio")]) == []
    assert headline([]) == []
