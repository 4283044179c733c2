"""The Benchmarks view: every benchmark in a table, and throughput (and latency) plotted against concurrency."""

from __future__ import annotations

from collections import Counter
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.widgets import DataTable, Static

from statedump.models import Benchmark, Metric
from statedump.tui import text
from statedump.tui.widgets import stylesheet
from statedump.tui.widgets.bench_plot import BenchPlot, Point
from statedump.tui.widgets.session_view import SessionView

_LATENCY_WORDS = ("latency", "ttft", "itl", "tpot", "e2e")


def is_throughput(m: Metric) -> bool:
    """A rate: tokens or requests per second."""
    return "throughput" in m.name.lower() or m.unit.endswith("/s")


def is_latency(m: Metric) -> bool:
    """A time: latency, time to first token, inter-token latency."""
    return any(w in m.name.lower() for w in _LATENCY_WORDS) or m.unit in ("ms", "s", "us", "µs")


def series(benchmarks: list[Benchmark], wanted: str) -> tuple[str, str, list[Point]]:
    """(metric name, unit, points) of the commonest throughput or latency metric among
    benchmarks that record a concurrency, sorted by concurrency."""
    test = is_throughput if wanted == "throughput" else is_latency
    found = [(b, m) for b in benchmarks if b.concurrency for m in b.metrics if test(m)]
    if not found:
        return "", "", []
    name = Counter(m.name for _, m in found).most_common(1)[0][0]
    chosen = [(b, m) for b, m in found if m.name == name]
    points = [Point(b.concurrency or 0, m.value, b.baseline, b.id) for b, m in chosen]
    return name, chosen[0][1].unit, sorted(points, key=lambda p: (p.concurrency, not p.baseline))


def exact(value: float) -> str:
    """A measured value in full: 2100 -> 2,100; 0.25 -> 0.25."""
    return f"{value:,.0f}" if value == int(value) else f"{value:,.6g}"


def metrics_text(b: Benchmark) -> Text:
    """`output_throughput 172 tok/s, ...` on one line."""
    return text.line(", ".join(f"{m.name} {exact(m.value)} {m.unit}" for m in b.metrics) or "—")


class BenchView(SessionView):
    """A row per benchmark; below, bars of throughput and of latency (when recorded) by concurrency."""

    DEFAULT_CSS = stylesheet(__file__)
    MAIN = "#bench-table"
    BINDINGS: ClassVar[list[BindingType]] = [Binding("o", "open_record", "Open record")]

    def compose(self) -> ComposeResult:
        yield DataTable(id="bench-table", cursor_type="row", zebra_stripes=True)
        benchmarks = self.state.of_kind(Benchmark)
        plots = []
        for wanted in ("throughput", "latency"):
            name, unit, points = series(benchmarks, wanted)
            if points:
                plots.append(BenchPlot(f"{name} ({unit}) by concurrency", points, id=f"bench-plot-{wanted}"))
        with Horizontal(id="bench-plots"):
            if plots:
                yield from plots
            else:
                yield Static(Text("No benchmark records a concurrency with a throughput or latency metric.", style="dim"))

    def on_mount(self) -> None:
        table = self.query_one("#bench-table", DataTable)
        table.add_column("Benchmark", width=34)
        table.add_column("Conc.", width=6)
        table.add_column("Metrics", width=30)
        table.add_column("Base", width=4)
        table.add_column("Status", width=8)
        table.add_column("Id", width=24)
        for b in self.state.of_kind(Benchmark):
            table.add_row(
                text.line(b.title),
                Text(str(b.concurrency) if b.concurrency else "—", justify="right"),
                metrics_text(b),
                Text("◆", style="magenta") if b.baseline else "",
                text.status(b.status),
                text.line(b.id),
                key=b.id,
            )

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        self.action_open_record()

    def action_open_record(self) -> None:
        table = self.query_one("#bench-table", DataTable)
        if table.row_count:
            key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
            if key is not None:
                self.post_message(self.OpenRecord(key))
