"""Agents' summaries as they are found in the wild (tests/corpus_real/files/summaries): one test per
behaviour of the summary reader, on a real file where one shows it, inline where none does."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from helpers import CORPUS_REAL, Cli

from statedump.core.store.store import Store
from statedump.models import RecordBase
from statedump.services.ingest import read_plan
from statedump.services.ingest.plan import ImportPlan

SUMMARIES = CORPUS_REAL / "files" / "summaries"
EXPECTED = CORPUS_REAL / "expected" / "summaries"


def _plan(name: str) -> ImportPlan:
    return read_plan("markdown", SUMMARIES / name)


def _inline(tmp_path: Path, text: str) -> ImportPlan:
    src = tmp_path / "summary.md"
    src.write_text(text, encoding="utf-8")
    return read_plan("markdown", src)


def _find(plan: ImportPlan, kind: str, words: str) -> RecordBase:
    found = [r for r in plan.records if r.kind == kind and words.lower() in r.title.lower()]
    assert found, f"no {kind} titled with {words!r}: {[(r.kind, r.title) for r in plan.records]}"
    return found[0]


def _titles(plan: ImportPlan) -> list[str]:
    return [r.title for r in plan.records]


def _bare(text: str) -> str:
    return re.sub(r"^[\W\d.)]*|[\W]*$", "", " ".join(text.split()).lower())


def _is_junk(junk: str, title: str) -> bool:
    """The title is the junk (numbering and marks aside), or holds a junk of two words or more."""
    return _bare(title) == _bare(junk) or (len(junk.split()) >= 2 and _bare(junk) in title.lower())


def _captured(name: str) -> tuple[int, int, list[str]]:
    """(facts captured, facts, junk titles) of one corpus file against its hand-written expectations."""
    spec: dict[str, Any] = yaml.safe_load((EXPECTED / f"{name}.yaml").read_text(encoding="utf-8"))
    plan = _plan(name)
    texts = [(r, r.model_dump_json().lower()) for r in plan.records]
    got = sum(any(r.kind == f["kind"] and r.status == f["status"] and f["match"].lower() in t for r, t in texts) for f in spec["facts"])
    junk = [r.title for r in plan.records for j in spec.get("junk", []) if _is_junk(j, r.title)]
    return got, len(spec["facts"]), junk


def test_claude_nine_sections_after_a_long_analysis(tmp_path: Path) -> None:
    # `Summary:` stands after 5,000 characters of `Analysis:`; the harness's lines are not records.
    plan = _plan("claude_code_apollo_deploy_hetzner.md")
    assert _find(plan, "goal", "deploying Apollo").status == "active"
    assert _find(plan, "task", "Deploy Next.js on VPS").status == "todo"
    assert _find(plan, "decision", "Reuse existing Supabase project").status == "accepted"  # from the analysis
    assert _find(plan, "discovery", "circular dependency").status == "resolved"
    titles = " ".join(_titles(plan))
    for heading in ("Primary Request and Intent", "Key Technical Concepts", "All User Messages", "Optional Next Step"):
        assert heading not in titles
    assert "continued from a previous conversation" not in titles and "Please continue" not in titles


def test_all_user_messages_are_instructions_the_last_one_open() -> None:
    plan = _plan("claude_code_apollo_deploy_hetzner.md")
    assert _find(plan, "instruction", "yes push").status == "done"
    hardening = _plan("claude_code_apollo_docker_hardening.md")
    latest = _find(hardening, "instruction", "realign to the Review")
    assert latest.status == "active"


@pytest.mark.parametrize("indent", [5, 3])
def test_claude_summary_pasted_indented(tmp_path: Path, indent: int) -> None:
    # Pasted from a terminal every line carries the same indent; read as if it did not.
    text = (SUMMARIES / "claude_code_apollo_deploy_hetzner.md").read_text(encoding="utf-8")
    pasted = "\n".join(" " * indent + line if line.strip() else "" for line in text.split("\n"))
    plan = _inline(tmp_path, pasted)
    assert sorted(_titles(plan)) == sorted(_titles(_plan("claude_code_apollo_deploy_hetzner.md")))


def test_placeholders_make_no_record() -> None:
    plan = _plan("HANDOFF_template_placeholders_only.md")
    titles = _titles(plan)
    assert not [t for t in titles if t.startswith("(") or "(name)" in t]
    assert not [r for r in plan.records if r.kind in ("goal", "task")]
    (cmd,) = [r for r in plan.records if r.kind == "command"]
    assert "pnpm -C apps/web run test:ci" in cmd.text  # type: ignore[attr-defined]
    assert _find(plan, "discovery", "/api/v1/*").status == "confirmed"


def test_none_yet_and_editor_notes_make_no_record() -> None:
    plan = _plan("gsd_STATE_slm_copilot_inference_engine.md")
    titles = _titles(plan)
    assert "None yet." not in titles and not [t for t in titles if "Updated after each plan" in t or t.startswith("Resume file")]
    assert _find(plan, "goal", "Inference Engine").status == "active"  # `**Current focus:**`
    # Blockers/Concerns: a hedged concern is suspected, a stated one confirmed.
    assert _find(plan, "discovery", "Let's Encrypt edge cases").status == "suspected"
    assert _find(plan, "discovery", "RAM footprint").status == "confirmed"


def test_markers_in_headings_and_emoji_sections() -> None:
    plan = _plan("carrot_HANDOFF_sdxl_vastai.md")
    assert _find(plan, "discovery", "Trace File Error").status == "resolved"  # `### Issue 1: … (FIXED)`
    assert _find(plan, "task", "Fix the Dependencies").status == "todo"  # `### Step 1:` under NEXT STEPS
    assert _find(plan, "decision", "Use Different Face Restoration").status == "proposed"  # `### Option B:`
    rocm = _plan("rocmforge_SESSION_CONTEXT_after_reboot.md")
    assert _find(rocm, "discovery", "CWSR Disable Only").status == "ruled-out"  # `(FAILED)`
    vtt = _plan("vtt_hw_benchmarks_SESSION_SUMMARY.md")
    assert _find(vtt, "task", "STREAM memory bandwidth").status == "done"  # under `### ✅ Completed`
    assert _find(vtt, "task", "Keras OCR").status == "in-progress"  # under `### 🚧 In Progress`
    assert _find(vtt, "task", "Streamlit dashboard").status == "proposed"  # `**Future:**`


def test_item_markers_and_prefixes(tmp_path: Path) -> None:
    plan = _inline(
        tmp_path,
        "## Next steps\n\n- [x] Downloaded the weights\n- ✅ Built the image\n- ☐ Write the unit\n- In progress: tuning NCCL\n"
        "- Blocked: expert parallel\n- Done: smoke test\n- Dropped: the A100 run\n- Fix the port (COMPLETED)\n\n"
        "## Findings\n\n- Ruled out: FP8 KV cache\n- Tried: CUDA graphs off, no gain\n- The OOM (FIXED)\n",
    )
    status = {r.title: r.status for r in plan.records}
    assert status == {
        "Downloaded the weights": "done",
        "Built the image": "done",
        "Write the unit": "todo",
        "tuning NCCL": "in-progress",
        "expert parallel": "blocked",
        "smoke test": "done",
        "the A100 run": "dropped",
        "Fix the port (COMPLETED)": "done",
        "FP8 KV cache": "ruled-out",
        "CUDA graphs off, no gain": "ruled-out",
        "The OOM (FIXED)": "resolved",
    }


def test_a_subsection_takes_its_parents_kind(tmp_path: Path) -> None:
    plan = _inline(
        tmp_path,
        "## Relevant files / directories\n\n### Backend\n\n- `serve/launch.sh` — the launcher\n\n### Frontend\n\n- `web/app.tsx`\n\n"
        "## Accomplished\n\n### Phase 1\n\n- Built the image\n\n### Phase 2\n\n- Pushed the image\n",
    )
    assert [(r.kind, r.path) for r in plan.records if r.kind == "file"] == [("file", "serve/launch.sh"), ("file", "web/app.tsx")]  # type: ignore[attr-defined]
    assert [(r.title, r.status) for r in plan.records if r.kind == "task"] == [("Built the image", "done"), ("Pushed the image", "done")]
    assert not [t for t in _titles(plan) if t in ("Backend", "Frontend", "Phase 1", "Phase 2")]


def test_pi_checkpoint_and_word_boundaries(tmp_path: Path) -> None:
    # "Constraints & Preferences" holds instructions: `reference` no longer matches inside "preferences".
    plan = _inline(
        tmp_path,
        "## Goal\nServe Llama-3-70B.\n\n## Constraints & Preferences\n- Never restart production without asking.\n\n"
        "## Progress\n### Done\n- Downloaded the weights\n### In Progress\n- Tuning max-num-seqs\n### Blocked\n- EP: waiting for a release\n\n"
        "## Key Decisions\n- Pin vLLM 0.8.4\n\n## Next Steps\n1. Benchmark at concurrency 64\n\n## Critical Context\n- The H100s are PCIe.\n\n"
        "## Commands & Tools Run\n- `nvidia-smi topo -m`\n\n## Errors & Fixes\n- OOM at startup: lowered gpu-memory-utilization\n",
    )
    kinds = [(r.kind, r.status, r.title) for r in plan.records]
    assert kinds == [
        ("goal", "active", "Serve Llama-3-70B."),
        ("instruction", "active", "Never restart production without asking."),
        ("task", "done", "Downloaded the weights"),
        ("task", "in-progress", "Tuning max-num-seqs"),
        ("task", "blocked", "EP: waiting for a release"),
        ("decision", "accepted", "Pin vLLM 0.8.4"),
        ("task", "todo", "Benchmark at concurrency 64"),
        ("discovery", "confirmed", "The H100s are PCIe."),
        ("command", "current", "nvidia-smi topo -m"),
        ("discovery", "resolved", "OOM at startup: lowered gpu-memory-utilization"),
    ]


def test_settings_old_and_new_and_bugs_under_decisions(tmp_path: Path) -> None:
    plan = _inline(
        tmp_path,
        "## Optimal configuration\n\n- Backend: Vulkan RADV (most stable)\n- Flash Attention: Disabled (incompatible with GLM)\n\n"
        "## Key Design Decisions\n\n### Pack format\nOLD (wrong):\n  4 elements\n\nNEW (correct):\n  5 elements\n\n"
        "### Counting Bug in Old Code\nOld code indexed twice.\n",
    )
    got = [(r.kind, r.status, r.title) for r in plan.records]
    assert got == [
        ("decision", "accepted", "Backend: Vulkan RADV (most stable)"),
        ("compat", "fails", "Flash Attention: fails"),
        ("decision", "superseded", "Pack format: 4 elements"),
        ("decision", "accepted", "Pack format: 5 elements"),
        ("discovery", "resolved", "Counting Bug in Old Code"),
    ]


def test_files_named_in_items_are_file_records() -> None:
    plan = _plan("codex_HANDOFF_trr_app_postgres_workaround.md")
    (postgres,) = [r for r in plan.records if r.kind == "file" and r.path == "apps/web/src/lib/server/postgres.ts"]  # type: ignore[attr-defined]
    assert postgres.status == "relevant"
    mlx = _plan("mlx_openai_server_HANDOFFS.md")
    (gone,) = [r for r in mlx.records if r.kind == "file" and r.path == "app/hub/controller.py"]  # type: ignore[attr-defined]
    assert gone.status == "obsolete"  # "consolidated into the daemon"


def test_front_matter_is_session_metadata(tmp_path: Path) -> None:
    plan = _inline(tmp_path, "---\ntitle: Llama on H100\ndate: 2026-03-01T10:00:00Z\nproject: llm-serving\n---\n\n## Goal\nServe it.\n")
    assert plan.session["title"] == "Llama on H100" and plan.session["repo"] == "llm-serving"
    assert plan.session["started"].isoformat() == "2026-03-01T10:00:00+00:00"
    assert _titles(plan) == ["Serve it."]


def test_decision_split_into_choice_alternative_and_rationale(tmp_path: Path) -> None:
    plan = _inline(
        tmp_path,
        "## Decisions\n- Chose FP8 KV cache over BF16 because it halves memory\n- TP 4 instead of TP 8: PCIe only between pairs\n"
        "- Decided to pin vLLM 0.8.4\n",
    )
    got = [(d.choice, [(a.option, a.why_not) for a in d.alternatives], d.rationale) for d in plan.records]  # type: ignore[attr-defined]
    assert got == [
        ("FP8 KV cache", [("BF16", "it halves memory")], "it halves memory"),
        ("TP 4", [("TP 8", "PCIe only between pairs")], "PCIe only between pairs"),
        ("pin vLLM 0.8.4", [], None),
    ]


def test_tables_by_their_columns(tmp_path: Path) -> None:
    plan = _inline(
        tmp_path,
        "## What we tried\n\n| Backend | GPU | Result | Notes |\n|---|---|---|---|\n| flashinfer | H100 | ✅ works | |\n"
        "| triton | H100 | ❌ crash | illegal memory access |\n\n"
        "## Llama-3-70B on 4x H100\n\n| Request rate | Output tok/s | median TTFT ms | Concurrency |\n|---|---|---|---|\n| 4 | 900 | 120 | 16 |\n\n"
        "## Notes\n\n| Host | Role |\n|---|---|\n| a | head |\n",
    )
    compat = [(c.option, c.target, c.status, c.symptom) for c in plan.records if c.kind == "compat"]  # type: ignore[attr-defined]
    assert compat == [("flashinfer", "H100", "works", None), ("triton", "H100", "fails", "illegal memory access")]
    (bench,) = [b for b in plan.records if b.kind == "benchmark"]
    assert bench.concurrency == 16 and bench.title == "request rate 4"  # type: ignore[attr-defined]
    assert [(m.name, m.value, m.unit) for m in bench.metrics] == [("output", 900.0, "tok/s"), ("median_ttft", 120.0, "ms")]  # type: ignore[attr-defined]
    assert bench.environment == {"gpu": "4x H100", "model": "Llama-3-70B"}  # type: ignore[attr-defined]
    (table,) = [d for d in plan.records if d.kind == "discovery"]
    assert "| a | head |" in (table.body or "")


def test_real_compat_and_benchmark_lines() -> None:
    rocm = _plan("rocmforge_SESSION_CONTEXT_after_reboot.md")
    assert any(c.kind == "compat" for c in rocm.records) or any(c.kind == "component" and "7.1.1" in c.title for c in rocm.records)
    vtt = _plan("vtt_hw_benchmarks_SESSION_SUMMARY.md")
    bench = _find(vtt, "benchmark", "1135 t/s")
    assert [(m.value, m.unit) for m in bench.metrics][:2] == [(1135.0, "t/s"), (508.0, "t/s")]  # type: ignore[attr-defined]


def test_headings_never_tasks_and_chit_chat_never_instructions(tmp_path: Path) -> None:
    plan = _inline(
        tmp_path,
        "1. Primary Request and Intent:\n   Deploy vLLM.\n2. All User Messages:\n   - thanks\n   - great work!\n   - now tune it\n"
        "3. Pending Tasks:\n   - Tune NCCL\n",
    )
    assert [(r.kind, r.title) for r in plan.records] == [("goal", "Deploy vLLM."), ("instruction", "now tune it"), ("task", "Tune NCCL")]


def test_our_own_handoff_report_imports_as_its_state_document(cli: Cli, store: Store, tmp_path: Path) -> None:
    from statedump.core.render import render_markdown
    from statedump.services.demo import load_example

    state = load_example()
    report = tmp_path / "handoff.md"
    doc = render_markdown(state)
    title, _, rest = doc.partition("\n")
    lines, fence = [], False
    for line in rest.split("\n"):
        fence = fence != line.startswith("```")
        lines.append("#" + line if not fence and line.startswith("##") else line)  # the report nests it a level down
    nested = "\n".join(lines)
    report.write_text(
        f"# Handoff: {title[2:]}\n\nSession `x` · generated now\n\n## What changed since dump/x/1\n\n- added `a`\n- changed `b`\n\n"
        f"## State document\n{nested}",
        encoding="utf-8",
    )
    plan = read_plan("markdown", report)
    assert len(plan.records) == len(state.records)
    assert not [t for t in _titles(plan) if t.lower().startswith(("added", "changed"))]


# Facts captured per file today (a floor: raise it when the reader keeps more, never lower it).
FLOORS = {
    "HANDOFF_template_placeholders_only.md": 3,
    "carrot_HANDOFF_sdxl_vastai.md": 7,
    "claude_code_apollo_deploy_hetzner.md": 11,
    "claude_code_apollo_docker_hardening.md": 5,
    "claude_code_apollo_latex_docker_debug.md": 5,
    "codex_HANDOFF_trr_app_postgres_workaround.md": 8,
    "gsd_STATE_slm_copilot_inference_engine.md": 6,
    "llamacpp_claude_code_PROGRESS_SUMMARY.md": 6,
    "mlx_openai_server_HANDOFFS.md": 8,
    "rerune_compacted_history_checkpoint.md": 8,
    "rocmforge_SESSION_CONTEXT_after_reboot.md": 8,
    "vtt_hw_benchmarks_SESSION_SUMMARY.md": 7,
    "xtuner_claude_progress.txt": 9,
}


def test_every_corpus_file_has_a_floor() -> None:
    assert sorted(FLOORS) == sorted(p.name for p in SUMMARIES.iterdir())


@pytest.mark.parametrize("name", sorted(FLOORS))
def test_corpus_file_captures_its_facts_without_junk(name: str) -> None:
    got, total, junk = _captured(name)
    assert junk == []
    assert got >= FLOORS[name], f"{name}: {got}/{total} facts, was {FLOORS[name]}"


def test_the_request_marked_current_is_the_goal_and_the_earlier_ones_were_met() -> None:
    plan = _plan("claude_code_apollo_docker_hardening.md")
    goals = [r for r in plan.records if r.kind == "goal"]
    assert [g.title[:30] for g in goals] == ["Request 3 (CURRENT/PENDING): C"]
    assert _find(plan, "task", "Request 1: Implement Phase 10: Docker Hardening").status == "done"
    assert _find(plan, "task", "Request 2: Clarify").status == "done"


def test_a_named_mechanism_with_its_reason_and_a_thing_left_out_on_purpose_are_decisions() -> None:
    plan = _plan("claude_code_apollo_docker_hardening.md")
    fallback = _find(plan, "decision", "Graceful seccomp fallback")
    assert fallback.status == "accepted" and "macOS" in (getattr(fallback, "rationale", "") or "")
    csp = _find(plan, "decision", "No CSP added")
    assert getattr(csp, "choice", "") == "No CSP added" and "would break Clerk" in (getattr(csp, "rationale", "") or "")


def test_options_set_side_by_side_with_verdicts_are_compat_cells() -> None:
    plan = _plan("llamacpp_claude_code_PROGRESS_SUMMARY.md")
    cells = {getattr(r, "option", ""): r.status for r in plan.records if r.kind == "compat"}
    assert cells.get("65K context") == "works" and cells.get("200K context") == "fails"
    # The finding keeps its sub-items as its body; a lone `Recommendation: …` is no cell.
    assert "Recommendation" not in cells
    assert "200K context" in (_find(plan, "discovery", "Context Size Performance Degradation").body or "")


def test_one_verdict_alone_is_no_comparison(tmp_path: Path) -> None:
    plan = _inline(tmp_path, "## Findings\n\n1. **Context size**\n   - 65K context: good performance\n   - Solution: use it\n")
    assert not [r for r in plan.records if r.kind == "compat"]
