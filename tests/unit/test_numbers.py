"""One number format for every text output: the state document, resume prompts, the handoff."""

from __future__ import annotations

import math

import pytest

from statedump.core.render.handoff import trend_rows
from statedump.core.render.markdown import render_markdown
from statedump.core.render.numbers import number
from statedump.models import Benchmark, Metric, Session
from statedump.models.reports import TrendPoint
from statedump.models.state import SessionState
from statedump.services.report.resume import resume_prompt


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (2100.5, "2,100.5"),
        (2100.0, "2,100"),
        (12345.678, "12,345.68"),
        (-1234.5, "-1,234.5"),
        (82.89297074037474, "82.893"),
        (999.9999, "1,000"),
        (0.0125, "0.0125"),
        (0.0, "0"),
        (math.inf, "inf"),
        (-math.inf, "-inf"),
        (math.nan, "nan"),
    ],
)
def test_number(value: float, text: str) -> None:
    assert number(value) == text


def test_render_resume_and_handoff_write_a_value_alike() -> None:
    bench = Benchmark(
        id="c64",
        title="c=64",
        concurrency=64,
        metrics=[Metric(name="output_throughput", value=2100.5, unit="tok/s"), Metric(name="median_ttft_ms", value=12345.678, unit="ms")],
    )
    state = SessionState(Session(id="s1", title="t"), [bench])
    for text in (render_markdown(state), resume_prompt(state).text):
        assert "2,100.5" in text and "12,345.68" in text, text
        assert "2100.5" not in text and "12345.7" not in text
    assert trend_rows([TrendPoint(64, 2100.5, "tok/s", bench)])[0][1] == "2,100.5"
