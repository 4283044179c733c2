"""One screenshot per view of the terminal UI, compared with the accepted SVG in __snapshots__.

The demo store is built here with the clock fixed (STATEDUMP_NOW) and statedump's own
git identity, so every commit sha, and so every screen, is the same on every machine.
Update after a deliberate change with `pytest tests/tui/test_tui_snapshots.py --snapshot-update`.
With STATEDUMP_WRITE_DOCS=1 the same screens are also written to docs/img/tui-<view>.svg.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from helpers import ROOT, isolate
from textual.pilot import Pilot

from statedump.core.store.store import Store
from statedump.services.demo import build_demo
from statedump.tui.app import StatedumpApp, make_app
from statedump.tui.widgets.decisions_view import DecisionsView
from statedump.tui.widgets.history_view import HistoryView
from statedump.tui.widgets.matrix_view import MatrixView
from statedump.tui.widgets.records_view import RecordsView

SID = "qwen35-397b-a17b-nvfp4"
SIZE = (100, 30)
DOCS_IMG = ROOT / "docs" / "img"
Compare = Callable[..., bool]


@pytest.fixture(scope="module")
def fixed_demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The demo store with a fixed clock and identity: the same shas on every run."""
    root = tmp_path_factory.mktemp("fixed-demo") / "store"
    home = tmp_path_factory.mktemp("fixed-demo-home")
    with pytest.MonkeyPatch.context() as mp:
        isolate(mp, home)
        build_demo(root)
    yield root


@pytest.fixture(autouse=True)
def _no_debounce(monkeypatch: pytest.MonkeyPatch) -> None:
    from statedump.tui.widgets import history_view, record_detail, records_view

    monkeypatch.setattr(record_detail, "HISTORY_DELAY", 0.001)
    monkeypatch.setattr(records_view, "SEARCH_DELAY", 0.001)
    monkeypatch.setattr(history_view, "DIFF_DELAY", 0.001)


async def settle(pilot: Pilot[None]) -> None:
    for _ in range(3):
        await pilot.pause()
        await pilot.app.workers.wait_for_complete()
    await pilot.pause()


def shoot(snap_compare: Compare, app: StatedumpApp, name: str, keys: Callable[[Pilot[None]], object] | tuple[str, ...]) -> bool:
    """Settle, press the keys (or run the steps), settle, then compare (and write the docs image when asked)."""

    async def before(pilot: Pilot[None]) -> None:
        await settle(pilot)
        if isinstance(keys, tuple):
            await pilot.press(*keys)
        else:
            result = keys(pilot)
            if hasattr(result, "__await__"):
                await result
        await settle(pilot)
        if os.environ.get("STATEDUMP_WRITE_DOCS"):
            DOCS_IMG.mkdir(parents=True, exist_ok=True)
            pilot.app.save_screenshot(f"tui-{name}.svg", path=str(DOCS_IMG))

    return snap_compare(app, terminal_size=SIZE, run_before=before)


def test_sessions(snap_compare: Compare, fixed_demo: Path) -> None:
    assert shoot(snap_compare, make_app(Store(fixed_demo)), "sessions", ())


def test_state(snap_compare: Compare, fixed_demo: Path) -> None:
    assert shoot(snap_compare, make_app(Store(fixed_demo), SID), "state", ())


def test_records(snap_compare: Compare, fixed_demo: Path) -> None:
    app = make_app(Store(fixed_demo), SID)

    async def steps(pilot: Pilot[None]) -> None:
        await pilot.press("2")
        await settle(pilot)
        app.screen.query_one(RecordsView).show_record("bf16-kv-cache")

    assert shoot(snap_compare, app, "records", steps)


def test_matrix(snap_compare: Compare, fixed_demo: Path) -> None:
    app = make_app(Store(fixed_demo), SID)

    async def steps(pilot: Pilot[None]) -> None:
        await pilot.press("3")
        await settle(pilot)
        row = app.screen.query_one(MatrixView).rows.index(("MoE runner backend", "flashinfer_cutlass"))
        await pilot.press(*["down"] * row)

    assert shoot(snap_compare, app, "matrix", steps)


def test_benchmarks(snap_compare: Compare, fixed_demo: Path) -> None:
    assert shoot(snap_compare, make_app(Store(fixed_demo), SID), "benchmarks", ("4",))


def test_decisions(snap_compare: Compare, fixed_demo: Path) -> None:
    app = make_app(Store(fixed_demo), SID)

    async def steps(pilot: Pilot[None]) -> None:
        await pilot.press("5")
        await settle(pilot)
        app.screen.query_one(DecisionsView).select("bf16-kv-cache")

    assert shoot(snap_compare, app, "decisions", steps)


def test_history(snap_compare: Compare, fixed_demo: Path) -> None:
    app = make_app(Store(fixed_demo), SID)

    async def steps(pilot: Pilot[None]) -> None:
        await pilot.press("6")
        await settle(pilot)
        view = app.screen.query_one(HistoryView)
        view.select(next(e.sha for e in view.entries if e.subject == "decision: add bf16-kv-cache"))

    assert shoot(snap_compare, app, "history", steps)
