"""actions.py: tool calls of any agent become tasks, commands, benchmarks, findings, files, references."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from statedump.models import Benchmark, Command, Compat, Discovery, File, Reference, Task
from statedump.services.ingest.actions import Actions
from statedump.services.ingest.plan import ImportPlan
from statedump.services.ingest.tool_output import failed_result, result_metrics

RESULT = """
============ Serving Benchmark Result ============
Backend:                                 sglang
Traffic request rate:                    inf
Max request concurrency:                 {conc}
Successful requests:                     100
Benchmark duration (s):                  12.5
Total input tokens:                      10000
Output token throughput (tok/s):         {tput}
Mean TTFT (ms):                          35.2
Median ITL (ms):                         5.1
==================================================
"""
LAUNCH = "python -m sglang.launch_server --model-path m/M --tp 8"
NAN_OUT = "Server up\nWARNING: Using FP8 KV cache but no scaling factors provided. Defaulting to 1.0\nanswer: !!!!!!!!!!!!!!!!"


def plan() -> ImportPlan:
    return ImportPlan("test", Path("t.jsonl"))


def of(p: ImportPlan, kind: type) -> list[Any]:
    return [r for r in p.records if isinstance(r, kind)]


def test_todo_items_one_task_per_item_latest_status_wins() -> None:
    p = plan()
    a = Actions(p)
    a.tool("TodoWrite", {"todos": [{"content": "A", "status": "pending"}, {"content": "B", "status": "in_progress"}]})
    a.tool("TodoWrite", {"todos": [{"content": "A", "status": "completed", "activeForm": "Doing A"}]})
    tasks = {t.title: t.status for t in of(p, Task)}
    assert tasks == {"A": "done", "B": "in-progress"}


def test_task_create_and_update() -> None:
    p = plan()
    a = Actions(p)
    a.tool("TaskCreate", {"subject": "Port the reader", "description": "x"}, "Task #3 created successfully: Port the reader")
    a.tool("TaskUpdate", {"taskId": "3", "status": "completed"})
    assert [(t.title, t.status) for t in of(p, Task)] == [("Port the reader", "done")]


def test_launches_benchmarks_findings_and_compat() -> None:
    p = plan()
    a = Actions(p, hardware="8x B200")
    a.tool("Bash", {"command": LAUNCH}, NAN_OUT, source="u1")
    a.tool(
        "Bash", {"command": LAUNCH + " --moe-runner-backend flashinfer_cutlass"}, "The server is fired up and ready to roll!", source="u2"
    )
    bench = "python -m sglang.bench_serving --backend sglang --max-concurrency {c} --num-prompts 100"
    a.tool("Bash", {"command": bench.format(c=1)}, RESULT.format(conc=1, tput="172.0"), source="u3")
    a.tool("Bash", {"command": bench.format(c=1024)}, RESULT.format(conc=1024, tput="2,100.5"), source="u4")
    commands = of(p, Command)
    assert [c.status for c in commands] == ["failed", "current"]
    assert commands[1].text.endswith("flashinfer_cutlass")
    benches = of(p, Benchmark)
    assert sorted(b.concurrency or 0 for b in benches) == [1, 1024]
    assert all(b.links.produced_by == [commands[1].id] for b in benches)
    tput = {b.concurrency: next(m for m in b.metrics if m.name == "output_token_throughput") for b in benches}
    assert tput[1].value == 172.0 and tput[1].unit == "tok/s" and tput[1024].value == 2100.5
    assert any(m.name == "mean_ttft" and m.unit == "ms" for m in benches[0].metrics)
    found = {d.category: d for d in of(p, Discovery)}
    assert "garbage" in found["risk"].title and found["risk"].links.relates_to == [commands[0].id]
    assert "FP8 KV cache" in found["finding"].title
    cells = {c.option: c.status for c in of(p, Compat)}
    assert cells == {"--moe-runner-backend (default)": "fails", "--moe-runner-backend flashinfer_cutlass": "works"}
    assert all(c.target == "8x B200" for c in of(p, Compat))


def test_earlier_working_launch_becomes_previous() -> None:
    p = plan()
    a = Actions(p)
    a.shell("vllm serve m --port 8000", "ok")
    a.shell("vllm serve m --port 8001", "ok")
    assert [c.status for c in of(p, Command)] == ["previous", "current"]


def test_failed_results() -> None:
    assert failed_result("Traceback (most recent call last):\n  File x\nValueError: bad")
    assert failed_result("boom\nExit code 2")
    assert not failed_result("all fine")
    assert result_metrics("no block") == []


def test_failed_plain_command_once_and_files_and_references() -> None:
    p = plan()
    a = Actions(p)
    a.tool("Bash", {"command": "tree /x -L 3"}, "Exit code 127\ntree: command not found", is_error=True)
    a.tool("Bash", {"command": "tree /x -L 3"}, "Exit code 127", is_error=True)
    a.tool("Bash", {"command": "ls"}, "a b")
    a.tool("Write", {"file_path": "/p/CLAUDE.md", "content": "x"})
    a.tool("Edit", {"file_path": "/p/CLAUDE.md", "old_string": "x", "new_string": "y"})
    a.tool("WebFetch", {"url": "https://docs.sglang.ai/x", "prompt": "flags"})
    a.user_urls("see https://github.com/sgl-project/sglang/issues/1 please")
    assert [(c.status, c.text) for c in of(p, Command)] == [("failed", "tree /x -L 3")]
    files = of(p, File)
    assert len(files) == 1 and files[0].body == "written, edited"
    assert sorted(r.url for r in of(p, Reference)) == ["https://docs.sglang.ai/x", "https://github.com/sgl-project/sglang/issues/1"]


def test_apply_patch_and_odd_input_never_raise() -> None:
    p = plan()
    a = Actions(p)
    a.tool("apply_patch", {"input": "*** Begin Patch\n*** Update File: src/a.py\n@@\n"})
    a.tool("Bash", {"command": 5})
    a.tool("TodoWrite", {"todos": "nope"})
    a.tool("TodoWrite", {"todos": [None, {"content": ""}, {"content": "x", "status": 3}]})
    a.tool("TaskUpdate", {"taskId": "9", "status": "completed"})
    assert [f.path for f in of(p, File)] == ["src/a.py"]


def test_url_credentials_never_reach_a_reference() -> None:
    p = plan()
    Actions(p).user_urls("git remote add origin https://ann:p4ssw0rd@example.com/repo.git")
    refs = of(p, Reference)
    assert len(refs) == 1 and "p4ssw0rd" not in refs[0].model_dump_json()


def test_subagent_call_is_a_task() -> None:
    p = plan()
    a = Actions(p)
    a.tool("Task", {"description": "Search TypeScript 5.6 features", "prompt": "search the web"}, "TypeScript 5.6 adds…")
    a.tool("Task", {"description": "Broken one"}, "The required parameter `prompt` is missing", is_error=True)
    assert [(t.title, t.status) for t in of(p, Task)] == [("Search TypeScript 5.6 features", "done"), ("Broken one", "blocked")]


def test_compat_target_is_the_gpu_named_later_and_checks_are_commands() -> None:
    p = plan()
    a = Actions(p)
    a.tool("Bash", {"command": LAUNCH}, NAN_OUT, source="u1")
    a.tool("Bash", {"command": LAUNCH + " --moe-runner-backend flashinfer_cutlass"}, "ready", source="u2")
    assert {c.target for c in of(p, Compat)} == {"this session's hardware"}
    a.tool("Bash", {"command": "nvidia-smi -L"}, "GPU 0: NVIDIA RTX PRO 6000 Blackwell Workstation Edition (UUID: GPU-1)", source="u3")
    a.tool("Bash", {"command": "cd /src && uv run pytest -q"}, "12 passed", source="u4")
    a.tool("Bash", {"command": "git status && pytest"}, "clean", source="u5")  # a check only where a command starts
    a.finish()
    assert {(c.target, c.status) for c in of(p, Compat)} == {("RTX PRO 6000 Blackwell", "fails"), ("RTX PRO 6000 Blackwell", "works")}
    assert not p.guessed
    checks = [c for c in of(p, Command) if "check" in c.tags]
    assert [(c.text, c.status) for c in checks] == [("cd /src && uv run pytest -q", "current")]


def test_a_refused_write_keeps_the_file_and_the_reason() -> None:
    p = plan()
    a = Actions(p)
    a.tool("Write", {"file_path": "/repo/CLAUDE.md", "content": "x"}, "<tool_use_error>Permission denied</tool_use_error>", True, "u1")
    (f,) = of(p, File)
    assert f.path == "/repo/CLAUDE.md" and f.body == "not written: the call failed"
    (d,) = of(p, Discovery)
    assert d.title == "Permission denied" and d.category == "risk" and d.links.relates_to == [f.id]


def test_a_report_is_kept_whole_but_a_pleasantry_or_a_remark_is_none() -> None:
    from statedump.services.ingest.reports import report

    p = plan()
    assert report(p, "You're welcome! Let me know if you need anything else.\nHappy to help.", "u1", None, tags=["t"]) is None
    assert report(p, "Done.", "u2", None, tags=["t"]) is None
    long = "Round 2 done.\n\n**Commit SHA:** `9877e045709794be3d0377907b64ad8d16ce7a5e` on branch `alice/research-plan-mode`."
    kept = report(p, long, "u3", None, tags=["t"])
    assert kept is not None and kept.title == "Round 2 done." and kept.body == long and "report" in kept.tags
