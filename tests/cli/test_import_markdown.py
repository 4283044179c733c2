"""Markdown import: statedump's own document comes back byte for byte; agent templates
become records of the right kinds; unknown sections are kept."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from helpers import FIXTURES, Cli, git

from statedump.core.render import render_markdown
from statedump.core.store.store import Store
from statedump.models import (
    Alternative,
    Benchmark,
    Command,
    Compat,
    Component,
    Decision,
    Discovery,
    Enforcement,
    File,
    Goal,
    Instruction,
    Links,
    Metric,
    RecordBase,
    Reference,
    Session,
    Task,
    Tradeoff,
)
from statedump.models.state import SessionState
from statedump.services.demo import EXAMPLE, load_example
from statedump.services.ingest import read_plan
from statedump.services.ingest.apply import apply_plan


def _kinds(plan_records: list) -> dict[str, list[str]]:  # type: ignore[type-arg]
    out: dict[str, list[str]] = {}
    for r in plan_records:
        out.setdefault(r.kind, []).append(r.title)
    return out


def test_render_import_render_is_byte_identical(cli: Cli, tmp_path: Path) -> None:
    doc = render_markdown(load_example())
    src = tmp_path / "state.md"
    src.write_text(doc, encoding="utf-8")
    r = cli("import", "markdown", str(src), "-s", EXAMPLE)
    assert r.exit_code == 0, r.output
    assert "(new session)" in r.stdout
    assert cli("render", "-s", EXAMPLE).stdout == doc


def test_round_trip_into_an_existing_empty_session(store: Store, tmp_path: Path) -> None:
    store.create_session(Session(id=EXAMPLE, title="placeholder"))
    doc = render_markdown(load_example())
    src = tmp_path / "state.md"
    src.write_text(doc, encoding="utf-8")
    report = apply_plan(store, read_plan("markdown", src), EXAMPLE)
    assert report.commit is not None and not report.created_session
    assert render_markdown(store.load(EXAMPLE)) == doc


def test_round_trip_keeps_ids_statuses_and_fields(tmp_path: Path) -> None:
    example = load_example()
    src = tmp_path / "state.md"
    src.write_text(render_markdown(example), encoding="utf-8")
    plan = read_plan("markdown", src)
    got = {r.id: r for r in plan.records}
    decision = got["bf16-kv-cache"]
    original = example.get("bf16-kv-cache")
    # Everything the document shows; the rationale's line breaks and the deciders it does not.
    shown = {"id", "title", "status", "source", "question", "choice", "alternatives", "tradeoffs", "enforces", "links", "body"}
    assert decision.model_dump(include=shown) == original.model_dump(include=shown)  # type: ignore[union-attr]
    assert got["launch-server"].text == example.get("launch-server").text  # type: ignore[attr-defined,union-attr]
    assert got["msg-6007-accuracy-question"].standing is True  # type: ignore[attr-defined]
    assert got["sm120-trtllm-cutedsl-dead-end"].category == "dead-end"  # type: ignore[attr-defined]
    assert got["catid-sm120-gist"].url == "https://gist.github.com/catid/87cca824963f17fe7479a0ed26221397"  # type: ignore[attr-defined]
    assert [m.value for m in got["bench-throughput-c1024"].metrics] == [2100.0]  # type: ignore[attr-defined]
    # Earlier and failed commands come back with their status, form and text; benchmarks keep theirs.
    assert got.keys() == {r.id for r in example.records}
    for rid in ("launch-server-initial", "launch-server-pre-kv-fix", "systemd-unit-pre-kv-fix", "launch-server-nextn"):
        old = example.get(rid)
        assert old is not None and old.status != "current"
        # A fenced block holds the text without its final line break.
        want = old.model_copy(update={"text": old.text.rstrip("\n")})  # type: ignore[attr-defined]
        assert got[rid].model_dump(exclude={"at", "tags", "links"}) == want.model_dump(exclude={"at", "tags", "links"}), rid
    assert [got[b].status for b in ("bench-decode-c1", "bench-throughput-c1024", "bench-nextn-synthetic")] == ["stale"] * 3
    assert plan.session["id"] == EXAMPLE and plan.session["model"] == "nvidia/Qwen3.5-397B-A17B-NVFP4"


def test_reimporting_adds_nothing(cli: Cli, store: Store, tmp_path: Path) -> None:
    src = tmp_path / "state.md"
    src.write_text(render_markdown(load_example()), encoding="utf-8")
    assert cli("import", "markdown", str(src), "-s", EXAMPLE).exit_code == 0
    head = git(store.root, "rev-parse", "HEAD")
    r = cli("import", "markdown", str(src), "-s", EXAMPLE)
    assert r.exit_code == 0
    assert "0 added, 0 changed, 63 unchanged (nothing to write)" in r.stdout
    assert git(store.root, "rev-parse", "HEAD") == head


def test_one_commit_with_import_trailers(cli: Cli, store: Store, tmp_path: Path) -> None:
    src = tmp_path / "state.md"
    src.write_text(render_markdown(load_example()), encoding="utf-8")
    before = int(git(store.root, "rev-list", "--count", "HEAD"))
    assert cli("import", "markdown", str(src), "-s", EXAMPLE).exit_code == 0
    assert int(git(store.root, "rev-list", "--count", "HEAD")) == before + 1
    body = git(store.root, "log", "-1", "--format=%B")
    assert "Statedump-Action: import" in body
    assert "Statedump-Source: state.md sha256:" in body
    files = git(store.root, "show", "--name-only", "--format=", "HEAD").split()
    assert len(files) == 64  # 63 records and session.yaml


def test_opencode_template() -> None:
    plan = read_plan("markdown", FIXTURES / "opencode_summary.md")
    kinds = _kinds(plan.records)
    assert kinds["goal"] == ["Serve Qwen3.5-397B-A17B-NVFP4 with SGLang on 8x RTX PRO 6000 (SM120) for long-context agentic coding."]
    assert kinds["instruction"] == [
        "Are we doing anything that could be reducing model accuracy?",
        "Always keep the full 262K context available.",
    ]
    assert len(kinds["discovery"]) == 3  # the hardware notes' item among them
    compat = [r for r in plan.records if r.kind == "compat"]
    assert [(c.option, c.target, c.status) for c in compat] == [  # type: ignore[attr-defined]
        ("flashinfer_cutlass", "SM120", "works"),
        ("flashinfer_trtllm", "SM120", "fails"),
    ]
    assert compat[1].symptom == "kernel not built for SM120"  # type: ignore[attr-defined]
    bench = [r for r in plan.records if r.kind == "benchmark"]
    assert [(b.title, b.concurrency, b.metrics[0].value, b.metrics[0].unit) for b in bench] == [  # type: ignore[attr-defined]
        ("single request", 1, 172.0, "tok/s"),
        ("high concurrency", 1024, 2100.0, "tok/s"),
    ]
    assert [t.status for t in plan.records if t.kind == "task"] == ["done", "done"]
    (cmd,) = [r for r in plan.records if r.kind == "command"]
    assert cmd.text.startswith("python -m sglang.launch_server")  # type: ignore[attr-defined]
    assert [f.path for f in plan.records if f.kind == "file"] == [  # type: ignore[attr-defined]
        "/etc/systemd/system/sglang-qwen35.service",
        "python/sglang/srt/model_executor/model_runner.py",
    ]
    # `## Hardware notes` is a notes section: its item is a discovery (it was kept whole under the
    # heading; a heading is no finding).
    assert "PCIe Gen5 only, no NVLink; NCCL tuned by hand." in kinds["discovery"]


def test_later_template_work_state_and_next_move() -> None:
    plan = read_plan("markdown", FIXTURES / "later_template.md")
    assert plan.session["title"] == "Handoff: SM120 deployment"
    kinds = _kinds(plan.records)
    assert kinds["goal"] == ["Make the SGLang service on SM120 accurate and fast."]
    assert len(kinds["instruction"]) == 2 and len(kinds["decision"]) == 2
    tasks = {t.title: (t.status, t.priority) for t in plan.records if t.kind == "task"}  # type: ignore[attr-defined]
    assert tasks == {
        "Backend matrix on SM120": ("done", None),
        "Benchmarks up to concurrency 1024": ("done", None),
        "Calibrating FP8 KV scales": ("in-progress", None),
        "Expert parallelism: waiting for a FlashInfer release": ("blocked", None),
        "Re-test NEXTN on real agentic prompts": ("todo", 1),
        "Compare long-context accuracy of BF16 and FP8 KV": ("todo", 2),
    }
    instructions = [r for r in plan.records if r.kind == "instruction"]
    assert all(i.standing for i in instructions)  # type: ignore[attr-defined]
    assert [f.path for f in plan.records if f.kind == "file"] == ["/opt/sglang/run.sh"]  # type: ignore[attr-defined]


def test_claude_code_nine_sections() -> None:
    plan = read_plan("markdown", FIXTURES / "claude_nine_sections.md")
    kinds = _kinds(plan.records)
    assert kinds["goal"][0].startswith("The user asked to deploy")
    assert len(kinds["discovery"]) == 4  # two concepts, one error and fix, problem solving
    assert kinds["instruction"] == ["try up to 1024", "Are we doing anything that could be reducing model accuracy?"]
    files = [r for r in plan.records if r.kind == "file"]
    assert files[0].path == "python/sglang/srt/model_executor/model_runner.py"  # type: ignore[attr-defined]
    assert "kv_cache_dtype" in (files[0].body or "")  # the snippet stays with its file, not a command
    assert (files[0].body or "").split("\n")[1:3] == ["- Resolves the KV cache dtype from the checkpoint config", "```python"]
    assert all("Primary Request" not in (r.body or "") for r in plan.records)
    assert [r.quote for r in plan.records if r.kind == "instruction"] == kinds["instruction"]  # type: ignore[attr-defined]
    assert not [r for r in plan.records if r.kind == "command"]
    statuses = [t.status for t in plan.records if t.kind == "task"]
    assert statuses == ["todo", "in-progress", "todo"]
    assert all("continue the conversation" not in (r.body or "") + r.title for r in plan.records)


def test_codex_handoff() -> None:
    plan = read_plan("markdown", FIXTURES / "codex_handoff.md")
    kinds = _kinds(plan.records)
    assert kinds["goal"] == ["make the SGLang server on SM120 return correct output."]
    assert len(kinds["decision"]) == 2
    assert kinds["discovery"] == ["The user cares about accuracy above throughput."]
    assert kinds["task"] == ["Tune NCCL for PCIe.", "Add service monitoring."]
    (ref,) = [r for r in plan.records if r.kind == "reference"]
    assert ref.url == "https://gist.github.com/catid/87cca824963f17fe7479a0ed26221397"  # type: ignore[attr-defined]


TRICKY = [
    "a *star* and _under_ [link](x) | pipe `tick` <tag> &amp; 1. x",
    "# not a heading — really · dotted",
    "> quote-ish [x] y\\z",
    "ends with — done · msg 1",
    "P1 · done",
]


def _tricky_state() -> SessionState:
    recs: list[RecordBase] = []
    for i, t in enumerate(TRICKY):
        body = "Body: " + t
        recs += [
            Goal(id=f"g{i}", title=t, source=t, body=f"{body}\n\n- item {t}", criteria=[t]),
            Instruction(id=f"i{i}", title=t, quote=f"{t}\n\nsecond paragraph" if i % 2 else t, source=t, standing=bool(i % 2)),
            Discovery(id=f"d{i}", title=t, source=t, category="risk", body=body),
            Discovery(id=f"dr{i}", title=t, status="ruled-out"),
            Compat(id=f"c{i}", title="x", component=t, option=t, target=t, symptom=t, status="fails"),
            Benchmark(
                id=f"b{i}",
                title=t,
                concurrency=i + 1,
                metrics=[Metric(name=t, value=1234.5, unit=t), Metric(name="x", value=float("inf"), unit="u")],
            ),
            Decision(
                id=f"dec{i}",
                title=t,
                choice=t,
                question=t,
                rationale=t,
                source=t,
                alternatives=[Alternative(option="opt", why_not=t)],
                tradeoffs=[Tradeoff(aspect="cap", before="3", after="1", unit="tok", note=t)],
                enforces=[Enforcement(command=f"cmd{i}", flag="--x", value="1"), Enforcement(command=f"cmd{i}", env="E")],
                links=Links(evidence=[f"d{i}"]),
                body=body,
            ),
            Component(id=f"co{i}", title="x", name=t, version=t, build=t),
            Task(
                id=f"t{i}",
                title=t,
                impact=t,
                priority=i + 1,
                status=["done", "todo", "proposed", "blocked", "in-progress"][i],
                source=t,
                body=body,
            ),
            Command(
                id=f"cmd{i}",
                title=t,
                text="echo " + t,
                env={"A": "1"} if i % 2 else {},
                purpose=t,
                source=t,
                body=body,
                last_known_good=bool(i % 2),
            ),
            File(id=f"f{i}", title=t, path=f"/p/{i} x`y", source=t, body=body),
            Reference(id=f"r{i}", title=t, url=f"https://e.org/a b({i})é", source=t, body=body),
            Reference(id=f"rj{i}", title="js: " + t, url=f"javascript:alert({i})", source=t),
        ]
    start = datetime(2026, 1, 1, tzinfo=UTC)
    recs = [r.model_copy(update={"at": start + timedelta(minutes=n)}) for n, r in enumerate(recs)]
    return SessionState(Session(id="s", title=TRICKY[0], model=TRICKY[1], body=TRICKY[2]), recs)


def test_round_trip_survives_markup_characters(tmp_path: Path) -> None:
    # Escapes, pipes in cells, the tail separators inside titles and sources, URLs that need <>.
    state = _tricky_state()
    doc = render_markdown(state)
    src = tmp_path / "tricky.md"
    src.write_text(doc, encoding="utf-8")
    plan = read_plan("markdown", src)
    assert plan.skipped == [] and len(plan.records) == len(state.records)
    session = Session(id=plan.session["id"], **{k: v for k, v in plan.session.items() if k != "id"})
    assert render_markdown(SessionState(session, plan.records)) == doc
    got = {r.id: r for r in plan.records}
    # The document holds the URL as parsers read it (percent-encoded); that is what comes back.
    assert got["r0"].url == "https://e.org/a%20b(0)%C3%A9"  # type: ignore[attr-defined]
    assert got["rj0"].url == "javascript:alert(0)"  # type: ignore[attr-defined]
    assert got["c0"].option == TRICKY[0] and got["i1"].quote == f"{TRICKY[1]}\n\nsecond paragraph"  # type: ignore[attr-defined]


def test_importing_the_rendering_into_its_own_session_changes_nothing(demo_copy: Path) -> None:
    # What the document does not show (tags, links, versions, made-up titles) is kept, and a
    # text whose lines the document joined counts as the same text.
    store = Store(demo_copy)
    doc = render_markdown(store.load(EXAMPLE))
    src = demo_copy.parent / "state.md"
    src.write_text(doc, encoding="utf-8")
    head = git(demo_copy, "rev-parse", "HEAD")
    report = apply_plan(store, read_plan("markdown", src), EXAMPLE)
    assert (len(report.added), len(report.changed), report.unchanged) == (0, 0, 63)
    assert report.commit is None and git(demo_copy, "rev-parse", "HEAD") == head


def test_a_newer_dump_updates_only_what_it_says(demo_copy: Path) -> None:
    store = Store(demo_copy)
    doc = render_markdown(store.load(EXAMPLE)).replace(
        "| MoE runner backend                         | flashinfer_trtllm                              | SM120 (RTX PRO 6000 Blackwell) | fails  |",
        "| MoE runner backend                         | flashinfer_trtllm                              | SM120 (RTX PRO 6000 Blackwell) | works  |",
    )
    src = demo_copy.parent / "state.md"
    src.write_text(doc, encoding="utf-8")
    before = store.get(EXAMPLE, "sm120-moe-flashinfer-trtllm")
    report = apply_plan(store, read_plan("markdown", src), EXAMPLE)
    assert [r.id for r in report.changed] == ["sm120-moe-flashinfer-trtllm"] and not report.added
    after = store.get(EXAMPLE, "sm120-moe-flashinfer-trtllm")
    assert after.status == "works"
    assert after.model_dump(exclude={"status"}) == before.model_dump(exclude={"status"})  # title, versions, tags, at kept


def test_damaged_documents_never_crash_the_reader() -> None:
    # Lines dropped, repeated and salted with markup, from the rendering and each template:
    # whatever comes out, the reader gives a plan (bad records are skipped with their line).
    import random

    from statedump.services.ingest.markdown import read_markdown_text
    from statedump.services.ingest.plan import ImportPlan

    sources = [render_markdown(load_example())] + [
        (FIXTURES / f"{n}.md").read_text() for n in ("opencode_summary", "later_template", "claude_nine_sections")
    ]
    salt = ["`", "*", "|", " — ", " · ", "#", "[", "](", "1. ", "- ", "> ", "```", "**", ":", "<", "    "]
    rng = random.Random(7)
    for _ in range(60):
        lines = rng.choice(sources).split("\n")
        for _ in range(rng.randint(1, 25)):
            j = rng.randrange(len(lines))
            roll = rng.random()
            if roll < 0.4 and len(lines) > 1:
                del lines[j]
            elif roll < 0.7:
                lines.insert(j, rng.choice(lines))
            else:
                k = rng.randrange(len(lines[j]) + 1)
                lines[j] = lines[j][:k] + rng.choice(salt) + lines[j][k:]
        plan = ImportPlan("markdown", Path("damaged.md"))
        read_markdown_text("\n".join(lines), plan)
        assert all(r.id and r.title for r in plan.records)


def test_the_demo_rendering_imported_into_a_new_store_passes_check_and_validate(tmp_path: Path) -> None:
    # Earlier and failed commands are in the document, so the decisions' links to them resolve.
    example = load_example()
    src = tmp_path / "state.md"
    src.write_text(render_markdown(example), encoding="utf-8")
    fresh = Store.init(tmp_path / "fresh")
    cli = Cli(fresh.root)
    r = cli("import", "markdown", str(src))
    assert r.exit_code == 0, r.output
    check = cli("check")
    assert check.exit_code == 0, check.output
    validate = cli("validate")
    assert validate.exit_code == 0, validate.output
    state = fresh.load(EXAMPLE)
    assert {r.id for r in state.records} == {r.id for r in example.records}
    assert cli("render").stdout == src.read_text(encoding="utf-8")


def test_dropped_tasks_obsolete_files_and_earlier_commands_round_trip(tmp_path: Path) -> None:
    state = SessionState(
        Session(id="s", title="t"),
        [
            Task(id="t-drop", title="Try EP", status="dropped", source="msg 9", priority=2, impact="x", body="Too slow."),
            File(id="f-old", title="old launcher", path="/opt/run_old.sh", status="obsolete", body="Gone."),
            Command(id="c-now", title="Launch", text="vllm serve m --tp 8"),
            Command(id="c-bad", title="First try", text="vllm serve m\n\n```\nx", status="failed", source="msg 3", body="Crashed."),
            Command(id="c-old", title="Unit", text="[Unit]\nA=b", form="systemd", status="previous", env={"X": "1"}, purpose="p"),
            Benchmark(id="b", title="b", status="invalid", metrics=[Metric(name="tput", value=1.0, unit="tok/s")]),
        ],
    )
    doc = render_markdown(state)
    src = tmp_path / "s.md"
    src.write_text(doc, encoding="utf-8")
    plan = read_plan("markdown", src)
    assert plan.skipped == []
    got = {r.id: r for r in plan.records}
    assert {k: r.status for k, r in got.items()} == {r.id: r.status for r in state.records}
    assert got["c-old"].model_dump(exclude={"at"}) == state.get("c-old").model_dump(exclude={"at"})  # type: ignore[union-attr]
    assert got["c-bad"].text == "vllm serve m\n\n```\nx" and got["c-bad"].body == "Crashed."  # type: ignore[attr-defined]
    session = Session(id=plan.session["id"], title=plan.session["title"])
    assert render_markdown(SessionState(session, plan.records)) == doc


def test_a_document_rendered_before_the_status_column_still_reads(tmp_path: Path) -> None:
    old = "\n".join(
        [
            "# t",
            "",
            "Session `s`",
            "",
            "## Goal",
            "",
            "## Instructions",
            "",
            "## Discoveries",
            "",
            "### Benchmarks",
            "",
            "| Benchmark | Concurrency | Metric | Value | Unit  | Baseline | Id  |",
            "| --------- | ----------- | ------ | ----- | ----- | -------- | --- |",
            "| one       | 1           | tput   | 172   | tok/s | yes      | `b` |",
            "",
            "## Accomplished",
            "",
        ]
    )
    src = tmp_path / "old.md"
    src.write_text(old, encoding="utf-8")
    (bench,) = read_plan("markdown", src).records
    assert isinstance(bench, Benchmark) and bench.status == "valid" and bench.baseline and bench.metrics[0].value == 172


def test_an_imported_session_gets_a_start_and_becomes_the_default(cli: Cli, store: Store, tmp_path: Path) -> None:
    # `s1` (from the fixture) has no start; the imported session starts at its earliest record.
    src = tmp_path / "state.md"
    src.write_text(render_markdown(load_example()), encoding="utf-8")
    assert cli("import", "markdown", str(src), "-s", "imported").exit_code == 0
    started = store.load_session("imported").started
    assert started == datetime(2026, 3, 15, 12, 0, tzinfo=UTC)  # the made-up times start at the fixed clock
    assert store.pick_session(None) == "imported"


def test_an_imported_session_starts_at_its_earliest_checkpoint_or_record(store: Store, tmp_path: Path) -> None:
    from statedump.services.ingest.plan import CheckpointMark, ImportPlan

    (tmp_path / "x.md").write_text("x\n", encoding="utf-8")
    plan = ImportPlan("markdown", tmp_path / "x.md")
    early = datetime(2026, 1, 2, 3, 4, tzinfo=UTC)
    plan.add(Discovery(id="d", title="d", at=datetime(2026, 2, 1, tzinfo=UTC)))
    plan.checkpoints.append(CheckpointMark(at=early, source="c1", message="m"))
    apply_plan(store, plan, "new")
    assert store.load_session("new").started == early
    # A start the file gives wins; a session that has one keeps it.
    plan.session["started"] = datetime(2025, 1, 1, tzinfo=UTC)
    apply_plan(store, plan, "new")
    assert store.load_session("new").started == early


SUMMARY = """# Handoff: vLLM on 8 GPUs

## Instructions

- "Never use an FP8 KV cache without calibrated scales, because unscaled FP8 silently loses accuracy on long contexts."
- Always keep the full 262K context.

## Accomplished

- Deployed vLLM with tensor parallelism 8.

| Config    | Concurrency | Output throughput (tok/s) | TTFT (ms) |
| --------- | ----------- | ------------------------- | --------- |
| baseline  | 1           | 172                       | 45        |
| high load | 1024        | 2,100                     | 900       |

## Deployment commands

```bash
VLLM_USE_V1=1 vllm serve Qwen/Qwen3-8B --tensor-parallel-size 8
```

```bash
python -m sglang.launch_server --model-path m
```
"""


def test_summary_titles_are_short_and_not_repeated(tmp_path: Path) -> None:
    src = tmp_path / "handoff.md"
    src.write_text(SUMMARY, encoding="utf-8")
    plan = read_plan("markdown", src)
    long, short = [r for r in plan.records if isinstance(r, Instruction)]
    assert long.quote.startswith("Never use an FP8 KV cache") and long.quote.endswith("long contexts.")
    assert long.title.endswith("…") and len(long.title) <= 80 and long.quote.startswith(long.title[:-1])
    assert short.title == short.quote == "Always keep the full 262K context."
    assert [c.title for c in plan.records if isinstance(c, Command)] == ["vllm serve …", "python -m sglang.launch_server …"]
    # The rendering shows a short quote once, and reads back the same.
    doc = render_markdown(SessionState(Session(id="s", title="t"), plan.records))
    assert '- "Always keep the full 262K context." — standing · active · handoff.md · `' in doc
    plan2 = read_plan_text(tmp_path, doc)
    assert render_markdown(SessionState(Session(id="s", title="t"), plan2.records)) == doc


def read_plan_text(tmp_path: Path, text: str):  # type: ignore[no-untyped-def]
    src = tmp_path / "again.md"
    src.write_text(text, encoding="utf-8")
    return read_plan("markdown", src)


def test_a_table_with_throughput_columns_is_benchmarks_wherever_it_is(tmp_path: Path) -> None:
    src = tmp_path / "handoff.md"
    src.write_text(SUMMARY, encoding="utf-8")
    plan = read_plan("markdown", src)
    benches = [r for r in plan.records if isinstance(r, Benchmark)]
    assert [(b.id, b.title, b.concurrency) for b in benches] == [("bench-baseline", "baseline", 1), ("bench-high-load", "high load", 1024)]
    assert [(m.name, m.value, m.unit) for m in benches[1].metrics] == [("output_throughput", 2100.0, "tok/s"), ("ttft", 900.0, "ms")]
    assert not [r for r in plan.records if "(table)" in r.title]
    assert [t.title for t in plan.records if isinstance(t, Task)] == ["Deployed vLLM with tensor parallelism 8."]


def test_summary_ids_carry_a_hash_only_when_needed(tmp_path: Path) -> None:
    import re

    src = tmp_path / "handoff.md"
    src.write_text(SUMMARY, encoding="utf-8")
    plan = read_plan("markdown", src)
    ids = [r.id for r in plan.records]
    assert not [i for i in ids if re.search(r"-[0-9a-f]{8}$", i)], ids
    assert ids[:3] == ["never-use-an-fp8-kv-cache-without", "always-keep-the-full-262k-context", "deployed-vllm-with-tensor-parallelism-8"]
    assert ids[-2:] == ["cmd-vllm-serve-qwen-qwen3-8b-tensor-parallel", "cmd-python-m-sglang-launch-server-model-path"]
    # Same slug, different record: the second gets a hash; the same record always gets the same id.
    first = plan.readable_id("", "Always keep the full 262K context", key="other")
    assert first != "always-keep-the-full-262k-context" and re.search(r"-[0-9a-f]{8}$", first)
    assert plan.readable_id("", "Always keep the full 262K context", key="other") == first
    # Re-reading gives the same ids.
    assert [r.id for r in read_plan("markdown", src).records] == ids


def test_benchmark_tables_in_unknown_sections_and_command_bullets(tmp_path: Path) -> None:
    src = tmp_path / "notes.md"
    src.write_text(
        "## Hardware notes\n\nPCIe only.\n\n| Run | req/s | p50 latency (ms) |\n| --- | --- | --- |\n| c64 | 12.5 | 310 |\n\n"
        "## Commands\n\n- `vllm serve Qwen/Qwen3-8B --tp 8`\n- Restart with `systemctl restart vllm`\n",
        encoding="utf-8",
    )
    plan = read_plan("markdown", src)
    (bench,) = [r for r in plan.records if isinstance(r, Benchmark)]
    assert bench.id == "bench-c64" and [(m.name, m.value, m.unit) for m in bench.metrics] == [
        ("req/s", 12.5, "req/s"),
        ("p50_latency", 310.0, "ms"),
    ]
    # A notes section gives discoveries, one per item (it was kept whole under its heading, which
    # the real corpus counts as junk: a heading is no finding).
    assert [r.title for r in plan.records if r.kind == "discovery"] == ["PCIe only."]
    assert [c.title for c in plan.records if isinstance(c, Command)] == ["vllm serve …", "Restart with `systemctl restart vllm`"]
