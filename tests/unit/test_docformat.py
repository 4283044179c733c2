"""The state document's format is defined once (`docformat`): the renderer writes only its
titles, the reader knows every one of them, and a title changed there changes both sides."""

from __future__ import annotations

import ast
import importlib
import sys
from datetime import UTC, datetime
from pathlib import Path
from types import ModuleType

import pytest
from helpers import ROOT

import statedump.core.render as render_pkg
from statedump.core.render import docformat as fmt
from statedump.core.render import render_markdown
from statedump.models import Compat, Session, Task
from statedump.models.state import SessionState
from statedump.services.demo import load_example
from statedump.services.ingest.mdtokens import parse, plain, sections
from statedump.services.ingest.plan import ImportPlan
from statedump.services.ingest.sections import mode_of
from statedump.services.ingest.statedump_doc import read_statedump

BASE = datetime(2026, 1, 1, tzinfo=UTC)
# The modules that spell the format from docformat; the test below loads them afresh around a changed table.
USERS = (
    "statedump.services.ingest.doc_fields",
    "statedump.services.ingest.summary",
    "statedump.services.ingest.statedump_doc",
    "statedump.core.render.markdown",
)
OWN = ("statedump/core/render/markdown.py", "statedump/services/ingest/statedump_doc.py", "statedump/services/ingest/doc_fields.py")


def _every_part() -> SessionState:
    """The example plus a task in each group it lacks: every heading the document can have."""
    example = load_example()
    extra = [Task(id=f"t-{status}", title=f"a {status} task", status=status) for status, _ in fmt.TASK_GROUPS]
    return SessionState(example.session, [*example.records, *extra])


def _round_trip(text: str, read: object = read_statedump) -> tuple[ImportPlan, SessionState]:
    plan = ImportPlan("markdown", Path("state.md"))
    read(text, plan, BASE)  # type: ignore[operator]
    session = Session(id=plan.session["id"], **{k: v for k, v in plan.session.items() if k != "id"})
    return plan, SessionState(session, plan.records)


def _headings(text: str) -> dict[str, list[str]]:
    """Each `##` title with the `###` titles under it."""
    doc = sections(parse(text)).children[0]
    return {sec.title: [sub.title for sub in sec.children] for sec in doc.children}


def test_the_document_has_the_tables_titles_in_its_order() -> None:
    text = render_markdown(_every_part())
    found = _headings(text)
    assert tuple(found) == fmt.SECTIONS
    assert tuple(found[fmt.DISCOVERIES]) == fmt.DISCOVERY_PARTS
    assert found[fmt.ACCOMPLISHED] == [title for _, title in fmt.TASK_GROUPS]
    assert found[fmt.COMMANDS][-1] == fmt.EARLIER
    tables = [n for n in parse(text).children if n.type == "table"]
    headers = [[plain(th) for th in t.children[0].children[0].children] for t in tables]
    assert headers == [fmt.COMPAT.header, fmt.BENCHMARKS.header, fmt.STACK.header]


def test_every_title_the_renderer_writes_the_reader_reads_back() -> None:
    state = _every_part()
    text = render_markdown(state)
    plan, back = _round_trip(text)
    assert plan.skipped == []
    assert sorted(r.id for r in plan.records) == sorted(r.id for r in state.records)
    assert render_markdown(back) == text


def _with_changed_table(monkeypatch: pytest.MonkeyPatch, old: str, new: str) -> dict[str, ModuleType]:
    """The format's users loaded afresh against a docformat where `old` is spelt `new`.

    Everything is put back when the test ends: the modules in `sys.modules` and as attributes
    of their packages, so later tests see the real format.
    """
    path = Path(fmt.__file__)
    source = path.read_text(encoding="utf-8")
    assert source.count(f'"{old}"') == 1, f"{old!r} is not defined exactly once in docformat"
    for name in USERS:
        importlib.import_module(name)  # present, so that monkeypatch restores it rather than leaving the copy behind
    changed = ModuleType(fmt.__name__)
    changed.__file__ = str(path)
    monkeypatch.setitem(sys.modules, fmt.__name__, changed)
    monkeypatch.setattr(render_pkg, "docformat", changed)
    exec(compile(source.replace(f'"{old}"', f'"{new}"'), str(path), "exec"), changed.__dict__)
    for name in USERS:
        parent, _, child = name.rpartition(".")
        monkeypatch.setattr(sys.modules[parent], child, sys.modules[name])
        monkeypatch.delitem(sys.modules, name)
    return {name.rpartition(".")[2]: importlib.import_module(name) for name in USERS}


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("Goal", "Objective"),
        ("Deployment commands", "Launch commands"),
        ("Software stack", "Installed software"),
        ("Ruled out (do not retry)", "Dead ends"),
        ("In progress", "Under way"),
        ("Earlier and failed commands", "Older commands"),
        ("Built / obtained", "Obtained from"),
        (" · ", " ¦ "),
        ("last known good", "known to work"),
        ("Trade-off", "Cost"),
    ],
)
def test_a_change_to_the_table_changes_both_sides(monkeypatch: pytest.MonkeyPatch, old: str, new: str) -> None:
    state = _every_part()
    before = render_markdown(state)
    mods = _with_changed_table(monkeypatch, old, new)
    text = mods["markdown"].render_markdown(state)
    assert text != before and new in text
    assert mods["statedump_doc"].looks_like_statedump(text)
    plan, back = _round_trip(text, mods["statedump_doc"].read_statedump)
    assert plan.skipped == [] and len(plan.records) == len(state.records)
    assert mods["markdown"].render_markdown(back) == text


def test_a_column_renamed_in_the_table_is_read_from_a_summary_too(monkeypatch: pytest.MonkeyPatch) -> None:
    # The summary reader knows statedump's own compatibility columns from the table.
    cell = Compat(id="c1", title="t", component="MoE runner", option="cutlass", target="SM120", status="works")
    state = SessionState(Session(id="s", title="t"), [cell])
    mods = _with_changed_table(monkeypatch, "Option", "Backend choice")
    doc = mods["markdown"].render_markdown(state)
    matrix = doc.split(f"### {mods['markdown'].fmt.COMPAT.title}\n\n")[1].split("\n\n")[0]
    plan = ImportPlan("markdown", Path("summary.md"))
    mods["summary"].read_summary(f"## Compatibility\n\n{matrix}\n", plan, base=BASE)
    (got,) = plan.records
    assert (got.component, got.option, got.target, got.status) == ("MoE runner", "cutlass", "SM120", "works")  # type: ignore[attr-defined]


def test_the_summary_reader_knows_our_sections_as_their_kinds() -> None:
    expected = {
        fmt.GOAL: "goal",
        fmt.INSTRUCTIONS: "instruction",
        fmt.DISCOVERIES: "discovery",
        fmt.FINDINGS: "discovery",
        fmt.COMPAT.title: "compat",
        fmt.BENCHMARKS.title: "benchmark",
        fmt.DECISIONS: "decision",
        fmt.STACK.title: "component",
        fmt.ACCOMPLISHED: "task:done",
        fmt.NEXT_STEPS: "task:todo",
        fmt.COMMANDS: "command",
        fmt.FILES: "file",
        fmt.REFERENCES: "reference",
        **{title: f"task:{status}" for status, title in fmt.TASK_GROUPS if status != "dropped"},
    }
    assert {title: mode_of(title) for title in expected} == expected


def _strings() -> set[str]:
    """Every piece of text the table spells."""
    out = {*fmt.SECTIONS, *fmt.DISCOVERY_PARTS, fmt.EARLIER, fmt.CRITERIA, fmt.SESSION, fmt.LAST_GOOD, fmt.SEP, fmt.DOT, fmt.ARROW}
    out |= {title for _, title in fmt.TASK_GROUPS}
    out |= {h for t in (fmt.COMPAT, fmt.BENCHMARKS, fmt.STACK) for h in t.header}
    out |= {fmt.QUESTION, fmt.CHOICE, fmt.REJECTED, fmt.RATIONALE, fmt.TRADEOFF, fmt.ENFORCES}
    return out


@pytest.mark.parametrize("module", OWN)
def test_the_renderer_and_the_readers_spell_none_of_it_themselves(module: str) -> None:
    tree = ast.parse((ROOT / module).read_text(encoding="utf-8"))
    docs = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Expr)}
    literals = [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docs]
    copies = sorted({(s, lit) for lit in literals for s in _strings() if s in lit})
    assert copies == []
