"""Codex and opencode capture, on the real corpus files where one shows the behaviour and on
small fixtures built here from the real shapes otherwise: compressed rollouts, mid-2026
compactions, newer line types, user messages kept once, plans -> tasks, patches -> files,
opencode's pre-1.2 storage folder (no public sample exists: the fixture follows the
documented layout and the real export's message and part shapes), todo and task parts,
acknowledgements, and bad input (one line, exit 2)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from helpers import CORPUS_REAL, Cli

from statedump.core.store.store import Store
from statedump.services.ingest import read_plan

zstandard = pytest.importorskip("zstandard")

CODEX = CORPUS_REAL / "transcripts" / "codex"
OPENCODE = CORPUS_REAL / "transcripts" / "opencode"
LMSTUDIO = CODEX / "acidicsoil-rollout-2025-11-17-lmstudio.jsonl"
LEGACY = CODEX / "acidicsoil-legacy-example.jsonl"
QUIET = OPENCODE / "darkfactory-quiet-meadow-agents-md.json"
SUMMARY = "## Goal\nServe Qwen3 with vLLM on the H100.\n\n## Decisions\n- Use tensor parallel 2 for the 32B model.\n\n## Next Steps\n- Run the benchmark again.\n"


def _titles(plan: Any, kind: str) -> list[tuple[str, str]]:
    return [(r.title, r.status) for r in plan.records if r.kind == kind]


def _rollout(path: Path, lines: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    return path


_META = {
    "timestamp": "2026-07-01T10:00:00Z",
    "type": "session_meta",
    "payload": {"id": "0199aaaa-bbbb-cccc-dddd-eeee12345678", "cwd": "/srv", "cli_version": "0.150.0", "originator": "codex_cli_rs"},
}


def _user_item(text: str, ts: str) -> dict[str, Any]:
    return {
        "timestamp": ts,
        "type": "response_item",
        "payload": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]},
    }


def _user_event(text: str, ts: str) -> dict[str, Any]:
    return {"timestamp": ts, "type": "event_msg", "payload": {"type": "user_message", "message": text}}


# -- Codex ------------------------------------------------------------------------------------


def test_a_compressed_rollout_reads_as_the_plain_one(tmp_path: Path) -> None:
    packed = tmp_path / "rollout-2025-11-17.jsonl.zst"
    packed.write_bytes(zstandard.ZstdCompressor().compress(LMSTUDIO.read_bytes()))
    plain, compressed = read_plan("codex", LMSTUDIO), read_plan("codex", packed)
    assert [(r.id, r.title, r.status) for r in compressed.records] == [(r.id, r.title, r.status) for r in plain.records]
    assert compressed.session == plain.session and compressed.records


def test_a_damaged_or_cut_compressed_rollout_is_one_line_exit_2(tmp_path: Path, cli: Cli, store: Store) -> None:
    data = zstandard.ZstdCompressor().compress(LMSTUDIO.read_bytes())
    cut = tmp_path / "cut.jsonl.zst"
    cut.write_bytes(data[: len(data) // 2])
    plan = read_plan("codex", cut)  # what could be decompressed is read; the cut-off line is reported
    assert plan.records and plan.skipped
    bad = tmp_path / "bad.jsonl.zst"
    bad.write_bytes(data[:4] + b"not a zstd frame at all" * 4)
    r = cli("import", "codex", str(bad))
    assert r.exit_code == 2 and "Traceback" not in r.output and str(bad) in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_a_mid_2026_compaction_takes_its_summary_from_replacement_history(tmp_path: Path) -> None:
    history = [
        {"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "You are Codex."}]},
        {
            "type": "message",
            "role": "user",
            "content": [{"type": "input_text", "text": "<environment_context>\n<cwd>/srv</cwd>\n</environment_context>"}],
        },
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": SUMMARY}]},
    ]
    path = _rollout(
        tmp_path / "r.jsonl",
        [_META, {"timestamp": "2026-07-01T11:00:00Z", "type": "compacted", "payload": {"message": "", "replacement_history": history}}],
    )
    plan = read_plan("codex", path)
    assert any("tensor parallel 2" in r.title for r in plan.records), [r.title for r in plan.records]
    assert [c.message for c in plan.checkpoints] == ["compaction summary"]


def test_an_encrypted_compaction_is_a_checkpoint_without_text(tmp_path: Path) -> None:
    path = _rollout(
        tmp_path / "r.jsonl",
        [
            _META,
            _user_event("Deploy Qwen3 32B with vLLM on two GPUs.", "2026-07-01T10:01:00Z"),
            {
                "timestamp": "2026-07-01T11:00:00Z",
                "type": "response_item",
                "payload": {"type": "compaction", "encrypted_content": "gAAAAB..."},
            },
            {
                "timestamp": "2026-07-01T11:00:01Z",
                "type": "compacted",
                "payload": {"message": "", "replacement_history": [{"type": "compaction", "encrypted_content": "gAAAAB..."}]},
            },
        ],
    )
    plan = read_plan("codex", path)
    assert [c.message for c in plan.checkpoints] == ["compaction (summary encrypted)"] * 2
    assert [r.kind for r in plan.records] == ["instruction", "file", "goal"]


def test_newer_line_types_are_counted_and_passed_over(tmp_path: Path) -> None:
    odd = [
        {"timestamp": f"2026-07-01T10:00:0{i}Z", "type": t, "payload": {"full": True}}
        for i, t in enumerate(["world_state", "rollout_reference", "inter_agent_communication", "world_state"])
    ]
    path = _rollout(tmp_path / "r.jsonl", [_META, *odd, _user_event("Run the vLLM benchmark at concurrency 8.", "2026-07-01T10:02:00Z")])
    plan = read_plan("codex", path)
    assert plan.skipped == [] and [r.kind for r in plan.records] == ["instruction", "file", "goal"]
    assert any("passed over 4 lines" in n and "world_state (2)" in n and "rollout_reference (1)" in n for n in plan.notes), plan.notes


def test_a_user_message_is_kept_once_whether_or_not_it_has_an_event_twin(tmp_path: Path) -> None:
    path = _rollout(
        tmp_path / "r.jsonl",
        [
            _META,
            _user_item("Start SGLang with TP 4.", "2026-07-01T10:01:00Z"),
            _user_event("Start SGLang with TP 4.", "2026-07-01T10:01:00Z"),
            {"timestamp": "2026-07-01T10:01:01Z", "type": "turn_context", "payload": {"model": "gpt-5.3-codex"}},
            _user_item("Only the response item says this: keep the KV cache at fp8.", "2026-07-01T10:05:00Z"),
            {"timestamp": "2026-07-01T10:05:01Z", "type": "turn_context", "payload": {"model": "gpt-5.3-codex"}},
            _user_event("Now run the benchmark.", "2026-07-01T10:09:00Z"),
            _user_item("Now run the benchmark.", "2026-07-01T10:09:00Z"),
        ],
    )
    plan = read_plan("codex", path)
    assert [r.quote for r in plan.records if r.kind == "instruction"] == [  # type: ignore[attr-defined]
        "Start SGLang with TP 4.",
        "Only the response item says this: keep the KV cache at fp8.",
        "Now run the benchmark.",
    ]


def test_the_real_enveloped_rollout_keeps_its_prompt_once_and_its_plan_and_patches() -> None:
    plan = read_plan("codex", LMSTUDIO)
    assert len([r for r in plan.records if r.kind == "instruction"]) == 1
    tasks = [(title.split(" (")[0], status) for title, status in _titles(plan, "task")]
    assert tasks == [
        ("Inspect existing LM Studio integration points", "done"),
        ("Implement necessary code updates so handleLocalChat issues OpenAI-compatible LM Studio requests", "in-progress"),
        ("Run targeted checks", "todo"),
    ]
    assert "components/chat/chat-helpers/index.ts" in [r.path for r in plan.records if r.kind == "file"]  # type: ignore[attr-defined]


def test_the_legacy_layout_still_reads_with_its_plan_and_fetched_pages() -> None:
    plan = read_plan("codex", LEGACY)
    assert any("proceed with task 60" in r.quote for r in plan.records if r.kind == "instruction")  # type: ignore[attr-defined]
    assert dict(_titles(plan, "task"))["Preflight: fetch latest docs"] == "done"
    assert any(r.title.startswith("https://developer.mozilla.org/") for r in plan.records if r.kind == "reference")


def test_a_shell_launch_goes_to_the_shared_shell_handling(tmp_path: Path) -> None:
    call = {
        "type": "function_call",
        "name": "exec_command",
        "call_id": "c1",
        "arguments": json.dumps({"cmd": ["bash", "-lc", "vllm serve Qwen/Qwen3-32B --tensor-parallel-size 2"]}),
    }
    out = {"type": "function_call_output", "call_id": "c1", "output": "INFO: Started server process"}
    path = _rollout(
        tmp_path / "r.jsonl",
        [
            _META,
            {"timestamp": "2026-07-01T10:01:00Z", "type": "response_item", "payload": call},
            {"timestamp": "2026-07-01T10:02:00Z", "type": "response_item", "payload": out},
        ],
    )
    plan = read_plan("codex", path)
    commands = [r for r in plan.records if r.kind == "command"]
    assert [c.text for c in commands] == ["vllm serve Qwen/Qwen3-32B --tensor-parallel-size 2"]  # type: ignore[attr-defined]


def test_codex_acknowledgements_are_no_instructions(tmp_path: Path) -> None:
    path = _rollout(
        tmp_path / "r.jsonl",
        [
            _META,
            *(_user_event(t, f"2026-07-01T10:0{i}:00Z") for i, t in enumerate(["Serve Llama 3 70B with SGLang.", "thanks", "great", "ok"])),
        ],
    )
    assert [r.quote for r in read_plan("codex", path).records if r.kind == "instruction"] == ["Serve Llama 3 70B with SGLang."]  # type: ignore[attr-defined]


@pytest.mark.parametrize("fmt", ["codex", "opencode"])
def test_huge_nesting_is_one_line_exit_2(tmp_path: Path, cli: Cli, store: Store, fmt: str) -> None:
    path = tmp_path / ("deep.jsonl" if fmt == "codex" else "deep.json")
    path.write_text('{"type": ' + "[" * 200_000 + "]" * 200_000 + "}\n")
    r = cli("import", fmt, str(path))
    assert r.exit_code == 2 and "Traceback" not in r.output and len(r.stderr.strip().splitlines()) == 1, r.output


# -- opencode ---------------------------------------------------------------------------------


def _storage(tmp: Path, export: dict[str, Any], layout: str = "project") -> Path:
    """A pre-1.2 storage folder holding the export's session, one object per file."""
    root = tmp / "storage"
    info = export["info"]
    folder = root / "session" / ("info" if layout == "info" else str(info.get("projectID") or "global"))
    folder.mkdir(parents=True)
    (folder / f"{info['id']}.json").write_text(json.dumps(info))
    for entry in export["messages"]:
        m = entry["info"]
        (root / "message" / info["id"]).mkdir(parents=True, exist_ok=True)
        (root / "message" / info["id"] / f"{m['id']}.json").write_text(json.dumps(m))
        for n, part in enumerate(entry["parts"]):
            pid = part.get("id") or f"prt_{n:04d}"
            (root / "part" / m["id"]).mkdir(parents=True, exist_ok=True)
            (root / "part" / m["id"] / f"{pid}.json").write_text(json.dumps({**part, "id": pid}))
    # An older child session, which is not the one read.
    (folder / "ses_child.json").write_text(
        json.dumps({"id": "ses_child", "parentID": info["id"], "title": "child", "time": {"created": 1, "updated": 9e15}})
    )
    return root


@pytest.mark.parametrize("layout", ["project", "info"])
def test_the_pre_1_2_storage_folder_reads_as_the_export(tmp_path: Path, layout: str) -> None:
    export = json.loads(QUIET.read_text())
    root = _storage(tmp_path, export, layout)
    from_export = read_plan("opencode", QUIET)
    for given in (root, next((root / "session").glob(f"*/{export['info']['id']}.json"))):
        plan = read_plan("opencode", given)
        assert [(r.id, r.status) for r in plan.records] == [(r.id, r.status) for r in from_export.records]
        assert plan.session == from_export.session
    assert any("of 2 in the storage folder" in n for n in read_plan("opencode", root).notes)


def test_an_empty_storage_folder_is_refused(tmp_path: Path, cli: Cli, store: Store) -> None:
    (tmp_path / "storage" / "session").mkdir(parents=True)
    (tmp_path / "storage" / "message").mkdir()
    r = cli("import", "opencode", str(tmp_path / "storage"))
    assert r.exit_code == 2 and "no session" in r.stderr and "Traceback" not in r.output


def test_todowrite_parts_become_tasks_and_the_last_list_wins() -> None:
    tasks = dict(_titles(read_plan("opencode", QUIET), "task"))
    assert tasks["Update .gitignore for Rust + NodeJS/BunJS"] == "done"
    assert tasks["Simplify AGENTS.md to current validated context only"] == "done"


def test_task_parts_name_their_child_sessions() -> None:
    plan = read_plan("opencode", QUIET)
    assert any("ses_39c0477d8ffefxjYEkrcCD049r" in n for n in plan.notes), plan.notes
    linked = [r for r in plan.records if r.kind == "task" and "ses_39c0477d8ffefxjYEkrcCD049r" in (r.body or "")]
    assert linked and linked[0].status == "done"


def test_patched_files_become_file_records() -> None:
    paths = {r.path for r in read_plan("opencode", QUIET).records if r.kind == "file"}  # type: ignore[attr-defined]
    assert {"/home/user/repos/vfp/dark-factory/AGENTS.md", "/home/user/repos/vfp/dark-factory/.gitignore"} <= paths


def test_bash_parts_go_to_the_shared_shell_handling(tmp_path: Path) -> None:
    export = json.loads(QUIET.read_text())
    assistant = next(e for e in export["messages"] if e["info"]["role"] == "assistant")
    assistant["parts"] = [
        {
            "type": "tool",
            "callID": "c1",
            "tool": "bash",
            "state": {
                "status": "completed",
                "input": {"command": "python -m sglang.launch_server --model-path Qwen/Qwen3-8B --tp 2"},
                "output": "server started",
                "metadata": {"exit": 0},
            },
        }
    ]
    path = tmp_path / "e.json"
    path.write_text(json.dumps(export))
    texts = [r.text for r in read_plan("opencode", path).records if r.kind == "command"]  # type: ignore[attr-defined]
    assert texts == ["python -m sglang.launch_server --model-path Qwen/Qwen3-8B --tp 2"]


def test_requests_the_agent_worked_on_and_moved_past_are_done_and_the_first_is_the_goal() -> None:
    plan = read_plan("codex", LEGACY)
    statuses = [(r.title[:20], r.status) for r in plan.records if r.kind == "instruction"]
    assert statuses == [
        ("What's the next task", "done"),
        ("check codebase to se", "done"),
        ("instructions/devin.m", "done"),
        ("prime context for th", "active"),
    ]
    assert [r.title for r in plan.records if r.kind == "goal"] == [statuses and plan.records[0].title]
    # The last request stays active until the agent closes its turn; a standing rule stays active.
    pocket = read_plan("opencode", OPENCODE / "pocketcoder-ses-n8n-mcp.json")
    last = [r for r in pocket.records if r.kind == "instruction"][-1]
    assert last.status == "active"


def test_opencode_acknowledgements_are_no_instructions() -> None:
    quotes = [r.quote for r in read_plan("opencode", OPENCODE / "pocketcoder-ses-n8n-mcp.json").records if r.kind == "instruction"]  # type: ignore[attr-defined]
    assert quotes and not any(q.strip().lower() == "ok proceed" for q in quotes)


def test_a_subagents_report_is_a_discovery() -> None:
    plan = read_plan("opencode", OPENCODE / "darkfactory-jolly-eagle-gitter-commit.json")
    reports = [r for r in plan.records if r.kind == "discovery" and "subagent" in r.tags]
    assert reports and "`b934703`" in (reports[0].body or "") and reports[0].status == "confirmed"


def test_a_call_handing_work_on_that_never_returned_is_that_work_in_progress() -> None:
    plan = read_plan("opencode", OPENCODE / "pocketcoder-ses-n8n-mcp.json")
    assert [r.status for r in plan.records if r.kind == "task" and "Hackathon Success" in r.title] == ["in-progress"]


def test_a_plans_explanation_is_what_the_agent_learned() -> None:
    plan = read_plan("codex", LEGACY)
    notes = [r for r in plan.records if r.kind == "discovery" and "plan" in r.tags]
    assert [r.status for r in notes] == ["confirmed"] and "Memory server unavailable" in notes[0].title


def test_the_working_directory_and_the_files_a_subagent_reports_are_file_records() -> None:
    simonw = read_plan("codex", CODEX / "simonw-homelab-migration.jsonl")
    assert [r.path for r in simonw.records if r.kind == "file"] == ["/home/user/Code/homelab-migration"]  # type: ignore[attr-defined]
    jolly = read_plan("opencode", OPENCODE / "darkfactory-jolly-eagle-gitter-commit.json")
    assert ".opencode/skills/docs-scraping/SKILL.md" in [r.path for r in jolly.records if r.kind == "file"]  # type: ignore[attr-defined]
