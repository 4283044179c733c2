"""The terminal UI, driven by keys (and a click) through Textual's Pilot on real stores.

Each test asserts on what the screen shows: the text the compositor would draw.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from helpers import Cli, git
from rich.syntax import Syntax
from rich.text import Text
from textual.containers import VerticalScroll
from textual.pilot import Pilot
from textual.widgets import DataTable, Markdown, OptionList, Static

from statedump.core.errors import StatedumpError
from statedump.core.render import render_markdown
from statedump.core.store.store import Store
from statedump.models import Discovery, Session
from statedump.tui.app import StatedumpApp, make_app
from statedump.tui.screens.session import SessionScreen
from statedump.tui.screens.sessions import SessionsScreen
from statedump.tui.screens.state_at import StateAtScreen
from statedump.tui.widgets.history_view import HistoryView
from statedump.tui.widgets.matrix_view import MatrixView
from statedump.tui.widgets.records_view import RecordsView
from statedump.tui.widgets.state_view import document_pieces, pieces

SID = "qwen35-397b-a17b-nvfp4"
Scenario = Callable[[Pilot[None]], Awaitable[None]]


def shown(app: StatedumpApp) -> str:
    """The active screen as plain text, line by line, as it would be drawn."""
    strips = app.screen._compositor.render_strips()
    return "\n".join("".join(seg.text for seg in strip) for strip in strips)


@pytest.fixture(autouse=True)
def _no_debounce(monkeypatch: pytest.MonkeyPatch) -> None:
    # The UI waits a moment after a key before reading git; tests need not.
    from statedump.tui.widgets import history_view, record_detail, records_view

    monkeypatch.setattr(record_detail, "HISTORY_DELAY", 0.001)
    monkeypatch.setattr(records_view, "SEARCH_DELAY", 0.001)
    monkeypatch.setattr(history_view, "DIFF_DELAY", 0.001)


async def settle(pilot: Pilot[None], rounds: int = 2) -> None:
    """Let timers fire and workers finish, `rounds` times over for work that starts more work."""
    for _ in range(rounds):
        await pilot.pause()
        await pilot.app.workers.wait_for_complete()
    await pilot.pause()


def drive(app: StatedumpApp, scenario: Scenario, size: tuple[int, int] = (100, 30)) -> None:
    async def main() -> None:
        async with app.run_test(size=size) as pilot:
            await settle(pilot, rounds=1)
            await scenario(pilot)

    asyncio.run(main())


def content(app: StatedumpApp, selector: str) -> str:
    """The whole text a widget holds, scrolled into view or not: a Static's content, a Markdown's source."""
    widget = app.screen.query_one(selector)
    if isinstance(widget, Markdown):
        return widget.source
    assert isinstance(widget, Static)
    value = widget.content
    if isinstance(value, Syntax):
        return value.code
    return value.plain if isinstance(value, Text) else str(value)


def session_screen(app: StatedumpApp) -> SessionScreen:
    screen = app.screen
    assert isinstance(screen, SessionScreen), screen
    return screen


# -- sessions, the state document, every view at 80x24, quitting ---------------------------


def test_sessions_list_then_every_view_at_80_by_24_then_quit(demo_root: Path) -> None:
    app = make_app(Store(demo_root))

    async def scenario(pilot: Pilot[None]) -> None:
        assert isinstance(app.screen, SessionsScreen)
        text = shown(app)
        assert SID in text and "Deploy Qwen3.5-397B-A17B-NVFP4" in text
        await pilot.press("enter")
        await settle(pilot, rounds=1)
        screen = session_screen(app)
        text = shown(app)
        assert "State" in text and "History" in text  # the tabs
        assert "Session qwen35-397b-a17b-nvfp4" in text  # the state document
        assert "q Quit" in text and "/ Find" in text  # the footer
        for _ in range(20):  # the document is drawn piece by piece as it scrolls
            await pilot.press("end")
            await settle(pilot, rounds=1)
            if "nccl-env-docs" in shown(app):
                break
        assert "NCCL environment variables documentation" in shown(app)  # the last reference
        for key, expect in (("2", "63 records"), ("3", "Component"), ("4", "Benchmark"), ("5", "Why:"), ("6", "Commit")):
            await pilot.press(key)
            await settle(pilot, rounds=1)
            text = shown(app)
            lines = text.splitlines()
            assert len(lines) == 24 and all(len(x) == 80 for x in lines)
            assert expect in text, key
            assert "q Quit" in lines[-1]  # the whole footer fits
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, SessionsScreen)
        await pilot.press("enter")
        await settle(pilot, rounds=1)
        assert session_screen(app) is not screen
        await pilot.press("q")
        await pilot.pause()
        assert not app.is_running

    drive(app, scenario, size=(80, 24))


# -- records -----------------------------------------------------------------------


def test_records_filter_by_text_kind_and_status_with_detail(demo_root: Path) -> None:
    app = make_app(Store(demo_root), SID)

    async def scenario(pilot: Pilot[None]) -> None:
        await pilot.press("2")
        await settle(pilot, rounds=1)
        text = shown(app)
        assert "63 records" in text
        await pilot.press("slash", *"bf16-kv-cache", "escape")  # Escape leaves the search box for the table
        await settle(pilot)
        table = app.screen.query_one("#records-table", DataTable)
        assert app.focused is table and session_screen(app)
        ids = [str(k.value) for k in table.rows]
        assert "bf16-kv-cache" in ids and len(ids) < 63
        view = app.screen.query_one(RecordsView)
        await pilot.press("x")  # clear filters
        await pilot.pause()
        assert table.row_count == 63
        await pilot.press("k")  # the kind list opens; pick "decision" by typing it
        await pilot.pause()
        await pilot.press(*"decision", "enter")
        await settle(pilot, rounds=1)
        assert {str(k.value) for k in table.rows} == {
            "sm120-backend-choice",
            "nccl-pcie-env",
            "deploy-systemd-service",
            "disable-nextn",
            "bf16-kv-cache",
        }
        assert "5/63" in shown(app)
        await pilot.press("s", *"accepted", "enter")
        await settle(pilot, rounds=1)
        assert table.row_count == 5
        table.focus()
        while view.current_id() != "bf16-kv-cache":
            await pilot.press("down")
        await settle(pilot)
        text = shown(app)
        assert "Force a BF16 KV cache instead of" in text
        assert "evidence → fp8-kv-cache-unscaled" in text
        assert "2026-03-14 17:40" in text  # its history, from record_log
        assert "add · msg 6008–6024" in content(app, "#detail-history")
        assert "choice: Force --kv-cache-dtype bf16" in content(app, "#detail-yaml")
        await pilot.press("l")  # to the links
        await pilot.pause()
        await pilot.press("enter")  # follow the first: evidence -> fp8-kv-cache-unscaled
        await settle(pilot)
        assert view.current_id() == "fp8-kv-cache-unscaled"
        assert table.row_count == 63  # the filters that hid it were cleared
        assert app.focused is table
        links = app.screen.query_one("#detail-links", OptionList)
        prompts = [str(links.get_option_at_index(i).prompt) for i in range(links.option_count)]
        assert "← evidence of bf16-kv-cache  Force a BF16 KV cache instead of the checkpoint's unscaled FP8" in prompts

    drive(app, scenario)


# -- matrix, benchmarks --------------------------------------------------------------


def test_matrix_cell_for_flashinfer_cutlass_works_and_benchmarks_plot(demo_root: Path) -> None:
    app = make_app(Store(demo_root), SID)

    async def scenario(pilot: Pilot[None]) -> None:
        await pilot.click("#--content-tab-matrix")  # the mouse works too
        await settle(pilot, rounds=1)
        await pilot.press("tab")  # from the tabs into the grid
        view = app.screen.query_one(MatrixView)
        row = view.rows.index(("MoE runner backend", "flashinfer_cutlass"))
        await pilot.press(*["down"] * row)
        await pilot.pause()
        text = shown(app)
        line = next(x for x in text.splitlines() if "MoE runner backend" in x and "flashinfer_cutlass" in x)
        assert "✔ works" in line
        assert "works  MoE runner flashinfer_cutlass (with FP4 GEMM flashinfer_cudnn) works on" in text
        assert "repro Add --moe-runner-backend flashinfer_cutlass" in text
        trtllm = view.rows.index(("MoE runner backend", "flashinfer_trtllm"))
        await pilot.press(*(["down"] * (trtllm - row) if trtllm > row else ["up"] * (row - trtllm)))
        await pilot.pause()
        assert "symptom Fails on SM120" in shown(app)
        await pilot.press("o")  # open the record in the Records view
        await settle(pilot)
        assert app.screen.query_one(RecordsView).current_id() == "sm120-moe-flashinfer-trtllm"
        await pilot.press("4")
        await settle(pilot, rounds=1)
        text = shown(app)
        assert "output_throughput 2,100 tok/s" in text
        assert "output_throughput (tok/s) by concurrency" in text
        assert "1◆" in text and "1024◆" in text  # both measured points are baselines
        assert "█" in text and "2.1k" in text

    drive(app, scenario)


def test_bench_plot_draws_throughput_and_latency_with_baselines_marked() -> None:
    from statedump.models import Benchmark, Metric
    from statedump.tui.widgets.bench_plot import draw
    from statedump.tui.widgets.bench_view import series

    def bench(i: str, conc: int, tput: float, ttft: float, baseline: bool = False) -> Benchmark:
        metrics = [Metric(name="output_throughput", value=tput, unit="tok/s"), Metric(name="mean_ttft_ms", value=ttft, unit="ms")]
        return Benchmark(id=i, title=i, concurrency=conc, metrics=metrics, baseline=baseline)

    runs = [bench("c64", 64, 1500, 900), bench("c1", 1, 172, 80, baseline=True), bench("c8", 8, 700, 120)]
    name, unit, points = series(runs, "throughput")
    assert (name, unit) == ("output_throughput", "tok/s")
    assert [p.concurrency for p in points] == [1, 8, 64]  # ordered by concurrency
    name, unit, latency = series(runs, "latency")
    assert (name, unit, [p.value for p in latency]) == ("mean_ttft_ms", "ms", [80, 120, 900])
    lines = draw("output_throughput (tok/s) by concurrency", points, 40, 12).plain.splitlines()
    assert lines[0] == "output_throughput (tok/s) by concurrency"
    assert lines[1].startswith("1.5k│") and "1.5k" in lines[1][5:]  # the axis top and the tallest bar's value
    assert lines[-2].split() == ["1◆", "8", "64"]  # baselines marked under their bar
    fill = [row.count("█") for row in lines[1:-3]]
    assert fill == sorted(fill) and fill[0] == 0 < fill[-1]  # bars grow from the axis up


# -- decisions ---------------------------------------------------------------------


def test_decision_bf16_why_chain_from_the_command_palette(demo_root: Path) -> None:
    app = make_app(Store(demo_root), SID)

    async def scenario(pilot: Pilot[None]) -> None:
        await pilot.press("ctrl+p", *"decision bf16")
        await settle(pilot, rounds=1)
        assert "Show decision Force a BF16 KV cache" in shown(app)
        await pilot.press("enter")
        await settle(pilot)
        assert "Why: Force a BF16 KV cache" in shown(app)
        chain = content(app, "#why-doc")
        assert "Are we doing anything that could be reducing model accuracy?" in chain  # msg 6007, verbatim
        assert "msg 6007" in chain
        assert re.search(r"\| KV cache capacity +\| 3\.15M +\| 1\.57M +\| tokens", chain)
        assert "fp8-kv-cache-unscaled" in chain  # the evidence
        assert "`launch-server`" in chain  # a command that enforces it
        await pilot.press("w", "pagedown", "pagedown")  # read it: the keyboard scrolls the document
        await pilot.pause()
        scroll = app.screen.query_one("#why-scroll", VerticalScroll)
        assert app.focused is scroll and scroll.scroll_y > 0
        await pilot.press("ctrl+p", *"history at dump 1")
        await settle(pilot, rounds=1)
        await pilot.press("enter")
        await settle(pilot)
        assert "◆ dump/qwen35-397b-a17b-nvfp4/1" in shown(app)

    drive(app, scenario)


def test_decision_needing_review_is_marked(demo_copy: Path) -> None:
    store = Store(demo_copy)
    evidence = store.get(SID, "kv-capacity-fp8-vs-bf16")
    store.put(SID, evidence.model_copy(update={"title": "KV capacity: 3.15M FP8 vs 1.40M BF16 tokens (re-measured)"}))
    app = make_app(store, SID)

    async def scenario(pilot: Pilot[None]) -> None:
        await pilot.press("5")
        await settle(pilot)
        while "Why: Force a BF16 KV cache" not in shown(app):
            await pilot.press("down")
            await settle(pilot)
        assert "⚠ needs review (1)" in shown(app)
        assert "kv-capacity-fp8-vs-bf16 changed after the decision was recorded" in content(app, "#why-doc")
        # The change is also the newest commit of the History view, field by field.
        await pilot.press("6")
        await settle(pilot)
        text = shown(app)
        assert "~ changed discovery kv-capacity-fp8-vs-bf16" in text
        assert "1.40M BF16" in text

    drive(app, scenario)


# -- history -----------------------------------------------------------------------


def test_history_diff_of_a_chosen_commit_and_state_at_it(demo_root: Path) -> None:
    app = make_app(Store(demo_root), SID)

    async def scenario(pilot: Pilot[None]) -> None:
        await pilot.press("6")
        await settle(pilot)
        view = app.screen.query_one(HistoryView)
        row = next(i for i, e in enumerate(view.entries) if e.subject == "decision: add bf16-kv-cache")
        text = shown(app)
        assert "◆ 2" in text  # the second dump tag, on the newest commit
        await pilot.press(*["down"] * row)
        await settle(pilot)
        text = shown(app)
        assert "+ added decision bf16-kv-cache" in text
        assert "choice: Force --kv-cache-dtype bf16" in text
        assert "smoke-test-bf16-kv-pass" not in text.split("+ added")[1]  # only this commit's change
        await pilot.press("o")
        await settle(pilot)
        assert isinstance(app.screen, StateAtScreen)
        doc = app.screen.query_one("#state-at-view")
        source = doc.document  # type: ignore[attr-defined]
        assert "Force a BF16 KV cache" in source
        assert "switch-to-bf16-kv-cache" not in source  # added by a later commit
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, SessionScreen)
        await pilot.press("n")  # next dump tag
        await settle(pilot)
        assert "◆ dump/qwen35-397b-a17b-nvfp4/1" in shown(app)

    drive(app, scenario)


# -- untrusted text -------------------------------------------------------------------


def test_history_diff_reads_only_what_a_commit_touched_and_equals_the_whole_state_diff(demo_copy: Path) -> None:
    from statedump.models.state import SessionState
    from statedump.services.history import diff_states, session_log, state_at
    from statedump.tui.reader import Reader

    store = Store(demo_copy)
    moved = store.get(SID, "retest-nextn-real-prompts")  # a task that becomes a discovery: two files, one id
    data = moved.model_dump(exclude={"kind", "status", "priority", "impact"})
    store.put(SID, Discovery(**data, status="suspected"))
    entries = session_log(store, SID)
    view = HistoryView(Reader(store), SID, store.load(SID))
    for entry in [entries[0], entries[1], next(e for e in entries if e.subject == "decision: add bf16-kv-cache"), entries[-1]]:
        parents = git(demo_copy, "rev-list", "--parents", "-n1", entry.sha).split()[1:]
        new = state_at(store, SID, entry.sha)
        old = state_at(store, SID, parents[0]) if parents and SID in store.session_ids(parents[0]) else SessionState(new.session, [])
        assert view._compare(store, entry) == diff_states(old, new), entry.subject
    assert [d.change for d in view._compare(store, entries[0])] == ["changed"]  # the kind change is one record


def test_record_text_is_shown_literally(store: Store) -> None:
    title = "Looks like [bold red]x[/] and \x1b[31mred"
    store.add("s1", Discovery(id="markup-text", title=title, body="Body [bold red]x[/] then \x1b[31m escape", source="msg [b]1[/b]"))
    app = make_app(store, "s1")

    async def scenario(pilot: Pilot[None]) -> None:
        text = shown(app)  # the State view
        assert "Looks like [bold red]x[/] and ␛[31mred" in text
        assert "Body [bold red]x[/] then ␛[31m escape" in text
        await pilot.press("2")
        await settle(pilot)
        text = shown(app)
        assert "discovery    confirmed    Looks like [bold red]x[/] and ␛[3" in text  # the table row
        assert "Looks like [bold red]x[/] and" in text and "␛[31mred" in text  # the detail
        assert "msg [b]1[/b]" in text
        assert "\x1b" not in text
        assert "Looks like [bold red]x[/] and ␛[31mred" in content(app, "#detail-head")
        await pilot.press("ctrl+p", *"markup")
        await settle(pilot, rounds=1)
        assert "Show record markup-text: Looks like [bold red]x[/] and ␛[31mred" in shown(app)

    drive(app, scenario)


def test_a_broken_record_file_is_reported_not_a_crash(store: Store) -> None:
    folder = store.root / "sessions" / "s1" / "task"
    folder.mkdir()
    (folder / "broken.yaml").write_text("id: broken\ntitle: [unclosed\n")
    app = make_app(store, "s1")

    async def scenario(pilot: Pilot[None]) -> None:
        text = shown(app)
        assert "Cannot read this session:" in text and "broken.yaml" in text
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, SessionsScreen)

    drive(app, scenario)
    (store.root / "sessions" / "s1" / "session.yaml").write_text("id: s1\ntitle: [unclosed\n")
    app = make_app(store)

    async def listing(pilot: Pilot[None]) -> None:
        text = shown(app)
        assert "s1" in text and "unreadable" in text

    drive(app, listing)


# -- scale ----------------------------------------------------------------------------


def _big_session(root: Path, n: int) -> Store:
    """A store with one session of `n` records written straight into the working tree (which
    is what the session view reads; committing them would only slow the test down)."""
    store = Store.init(root)
    store.create_session(Session(id="big", title="Ten thousand records"))
    folder = root / "sessions" / "big" / "discovery"
    folder.mkdir()
    for i in range(n):
        link = f"links:\n  relates_to:\n  - rec-{i - 1:05d}\n" if i else ""
        (folder / f"rec-{i:05d}.yaml").write_text(
            f"id: rec-{i:05d}\nkind: discovery\ntitle: Finding number {i}\nstatus: confirmed\n{link}body: Line one of {i}.\n"
        )
    return store


@pytest.mark.slow
def test_ten_thousand_records_open_quickly_without_a_widget_each(tmp_path: Path) -> None:
    store = _big_session(tmp_path / "big", 10_000)
    app = make_app(store, "big")

    async def scenario(pilot: Pilot[None]) -> None:
        started = time.monotonic()
        await pilot.press("2")
        await settle(pilot, rounds=1)
        table = app.screen.query_one("#records-table", DataTable)
        assert table.row_count == 10_000
        assert len(app.screen.query("*")) < 1000  # rows are table rows, not widgets
        for _ in range(5):
            await pilot.press("pagedown")
        await pilot.press("ctrl+end")
        await settle(pilot)
        assert app.screen.query_one(RecordsView).current_id() == "rec-09999"
        assert "← relates_to of" not in shown(app)  # the last one has no record linking to it
        assert "relates_to → rec-09998" in shown(app)
        assert time.monotonic() - started < 15

    drive(app, scenario)


def test_the_state_document_is_cut_inside_long_lists_and_tables_not_inside_items() -> None:
    items = [f"- item {i}" + ("\n\n  more of item 3, indented" if i == 3 else "") for i in range(10)]
    table = ["| A | B |", "| --- | --- |", *(f"| a{i} | b{i} |" for i in range(9))]
    doc = "\n".join(["# Title", "", *items, "", "```", *["code"] * 6, "```", "", *table, ""])
    parts = pieces(doc, size=4)
    lists = [p for p in parts if "- item" in p]
    assert len(lists) > 2 and "\n".join(lists).count("- item") == 10  # the long list is cut between items
    assert any("- item 3\n\n  more of item 3" in p for p in parts)  # an item's indented paragraph stays with it
    assert "```\n" + "code\n" * 6 + "```" in "\n".join(parts)  # never inside code
    rows = [p for p in parts if p.startswith("| A | B |")]
    assert len(rows) > 1 and all(p.split("\n")[1] == "| --- | --- |" for p in rows)  # each part repeats the header
    assert sum(p.count("| a") for p in rows) == 9


def test_the_document_is_rendered_only_as_far_as_it_is_read(demo_root: Path) -> None:
    state = Store(demo_root).load(SID)
    whole = pieces(render_markdown(state))
    document = document_pieces(state, lines=10)
    # Only the start is made for the first screen; the rest, when asked for, is the same document.
    assert 0 < len(document._made) < len(whole)
    assert [document.get(i) for i in range(len(whole))] == whole
    assert document.get(len(whole)) is None


# -- the command ---------------------------------------------------------------------


def test_tui_command_is_registered_and_refuses_an_unknown_session(cli: Cli) -> None:
    r = cli("tui", "--help")
    assert r.exit_code == 0 and "--store" in r.output and "--session" in r.output
    r = cli("tui", "-s", "nope")
    assert r.exit_code == 2
    assert r.output.strip().startswith("statedump: ") and len(r.output.strip().splitlines()) == 1


def test_make_app_checks_the_session_first(store: Store) -> None:
    with pytest.raises(StatedumpError):
        make_app(store, "missing")
    assert make_app(store, "s1").session_id == "s1"


# -- following the store, going back along links, the keys -------------------------------------


@pytest.fixture
def fast_refresh(monkeypatch: pytest.MonkeyPatch) -> None:
    # The session screen looks at the store every REFRESH_EVERY seconds; tests need not wait a whole one.
    from statedump.tui.screens import session as session_screen_module

    monkeypatch.setattr(session_screen_module, "REFRESH_EVERY", 0.2)


async def on_record(pilot: Pilot[None], app: StatedumpApp, record_id: str) -> RecordsView:
    """The Records view, its cursor on `record_id`."""
    await pilot.press("2")
    await settle(pilot, rounds=1)
    view = app.screen.query_one(RecordsView)
    view.show_record(record_id)
    await settle(pilot)
    return view


async def until(pilot: Pilot[None], done: Callable[[], bool], seconds: float = 10) -> None:
    """Let the app run until `done()` (a change made elsewhere has reached the screen), or time runs out."""
    deadline = time.monotonic() + seconds
    while not done() and time.monotonic() < deadline:
        await asyncio.sleep(0.1)
        await settle(pilot, rounds=1)


@pytest.mark.usefixtures("fast_refresh")
def test_a_record_added_from_another_process_appears_in_the_open_session(demo_copy: Path) -> None:
    import subprocess
    import sys

    app = make_app(Store(demo_copy), SID)

    async def scenario(pilot: Pilot[None]) -> None:
        view = await on_record(pilot, app, "bf16-kv-cache")
        count = app.screen.query_one("#records-table", DataTable).row_count
        # Another shell (or an agent over MCP) adds a record: a real process, the real CLI.
        subprocess.run(
            [sys.executable, "-m", "statedump", "add", "discovery", "--title", "Seen from outside the TUI", "--store", str(demo_copy)],
            check=True,
            capture_output=True,
        )
        table = app.screen.query_one("#records-table", DataTable)
        await until(pilot, lambda: table.row_count != count)
        assert table.row_count == count + 1
        assert "seen-from-outside-the-tui" in {str(k.value) for k in table.rows}
        assert view.current_id() == "bf16-kv-cache"  # the place is kept
        assert f"{count + 1} records" in str(session_screen(app).sub_title)

    drive(app, scenario)


def test_escape_after_following_links_goes_back_record_by_record(demo_root: Path) -> None:
    app = make_app(Store(demo_root), SID)

    async def scenario(pilot: Pilot[None]) -> None:
        view = await on_record(pilot, app, "bf16-kv-cache")
        await pilot.press("l", "enter")  # follow evidence -> fp8-kv-cache-unscaled
        await settle(pilot)
        first = view.current_id()
        assert first == "fp8-kv-cache-unscaled"
        await pilot.press("l", "enter")  # and on, to whatever it links first
        await settle(pilot)
        second = view.current_id()
        assert second not in (None, first)
        await pilot.press("escape")
        await settle(pilot)
        assert view.current_id() == first and isinstance(app.screen, SessionScreen)
        await pilot.press("escape")
        await settle(pilot)
        assert view.current_id() == "bf16-kv-cache" and isinstance(app.screen, SessionScreen)
        await pilot.press("escape")  # nothing left to go back to: the sessions list
        await settle(pilot)
        assert isinstance(app.screen, SessionsScreen)

    drive(app, scenario)


def test_question_mark_shows_the_keys(demo_root: Path) -> None:
    app = make_app(Store(demo_root), SID)

    async def scenario(pilot: Pilot[None]) -> None:
        await pilot.press("2")
        await settle(pilot, rounds=1)
        await pilot.press("question_mark")
        await settle(pilot)
        text = shown(app)
        assert app.screen.query("HelpPanel")
        for words in ("Kind", "Status", "Links", "Find"):
            assert words in text, words
        await pilot.press("question_mark")
        await settle(pilot)
        assert not app.screen.query("HelpPanel")

    drive(app, scenario)


@pytest.mark.usefixtures("fast_refresh")
def test_a_status_set_from_the_tui_is_one_commit_and_shows(demo_copy: Path) -> None:
    before = git(demo_copy, "rev-list", "--count", "HEAD")
    app = make_app(Store(demo_copy), SID)

    async def scenario(pilot: Pilot[None]) -> None:
        await on_record(pilot, app, "disable-nextn")
        await pilot.press("c")
        await settle(pilot)
        options = app.screen.query_one("#status-options", OptionList)
        options.highlighted = [options.get_option_at_index(i).id for i in range(options.option_count)].index("rejected")
        await pilot.press("enter")

        def rejected() -> bool:
            state = session_screen(app).state
            record = state.get("disable-nextn") if state else None
            return record is not None and record.status == "rejected"

        await until(pilot, rejected)
        assert session_screen(app).state.get("disable-nextn").status == "rejected"  # type: ignore[union-attr]

    drive(app, scenario)
    assert int(git(demo_copy, "rev-list", "--count", "HEAD")) == int(before) + 1
    assert "status rejected" in git(demo_copy, "log", "-1", "--format=%s")
