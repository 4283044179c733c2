"""Claude Code transcripts shaped like the real ones: tool calls become records."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from statedump.services.ingest import claude_code

ENV = {
    "isSidechain": False,
    "userType": "external",
    "cwd": "/home/ann/deploy",
    "sessionId": "5c0375b4-57a5-4f26-b12d-d022ee4e51b7",
    "version": "2.0.61",
    "gitBranch": "main",
}
LAUNCH = "python -m sglang.launch_server --model-path nvidia/DeepSeek-R1-FP4 --tp 8 --kv-cache-dtype fp8_e4m3"
RESULT = """============ Serving Benchmark Result ============
Backend:                                 sglang
Max request concurrency:                 {conc}
Successful requests:                     200
Benchmark duration (s):                  50.1
Output token throughput (tok/s):         {tput}
Mean TTFT (ms):                          41.7
==================================================
"""


class Builder:
    def __init__(self) -> None:
        self.rows: list[dict[str, Any]] = []
        self.n = 0

    def _line(self, kind: str, message: dict[str, Any], **extra: Any) -> str:
        self.n += 1
        uuid = f"00000000-0000-4000-8000-{self.n:012d}"
        parent = self.rows[-1]["uuid"] if self.rows else None
        row = {
            "parentUuid": parent,
            **ENV,
            "type": kind,
            "message": message,
            "uuid": uuid,
            "timestamp": f"2026-03-14T10:00:{self.n:02d}.000Z",
            **extra,
        }
        self.rows.append(row)
        return uuid

    def user(self, text: str) -> None:
        self._line("user", {"role": "user", "content": text})

    def call(self, name: str, args: dict[str, Any], result: str, is_error: bool = False) -> None:
        tid = f"toolu_{self.n:04d}"
        content = [{"type": "tool_use", "id": tid, "name": name, "input": args}]
        self._line(
            "assistant", {"id": f"msg_{self.n}", "type": "message", "role": "assistant", "model": "claude-opus-4-5", "content": content}
        )
        block = {"tool_use_id": tid, "type": "tool_result", "content": result, "is_error": is_error}
        self._line("user", {"role": "user", "content": [block]}, toolUseResult={"stdout": result, "stderr": "", "interrupted": False})

    def write(self, path: Path) -> Path:
        path.write_text("".join(json.dumps(r) + "\n" for r in self.rows))
        return path


def test_reference_session_shape(tmp_path: Path) -> None:
    b = Builder()
    b.user("Deploy DeepSeek-R1 FP4 with SGLang on this 8x B200 box and benchmark it")
    b.call(
        "TodoWrite",
        {"todos": [{"content": "Launch server", "status": "in_progress", "activeForm": "Launching"}]},
        "Todos have been modified successfully.",
    )
    b.call(
        "Bash",
        {"command": LAUNCH, "run_in_background": True},
        "Using FP8 KV cache but no scaling factors provided. Defaulting to scaling factors of 1.0\nready",
    )
    b.call("Bash", {"command": "curl -s localhost:30000/v1/completions -d '{}'"}, '{"text": "!!!!!!!!!!!!!!!!!!!!!!!!"}')
    b.call("Bash", {"command": LAUNCH}, 'Output: "!!!!!!!!!!!!!!!!" logits NaN')
    b.call("Bash", {"command": LAUNCH + " --moe-runner-backend flashinfer_cutlass"}, "The server is fired up and ready to roll!")
    for conc, tput in ((1, "172.00"), (1024, "2100.00")):
        cmd = f"python3 -m sglang.bench_serving --backend sglang --dataset-name random --max-concurrency {conc} --num-prompts 200"
        b.call("Bash", {"command": cmd}, RESULT.format(conc=conc, tput=tput))
    b.call(
        "TodoWrite",
        {"todos": [{"content": "Launch server", "status": "completed", "activeForm": "Launching"}]},
        "Todos have been modified successfully.",
    )
    b.call(
        "Write", {"file_path": "/home/ann/deploy/launch.sh", "content": LAUNCH}, "File created successfully at: /home/ann/deploy/launch.sh"
    )
    path = b.write(tmp_path / "session.jsonl")
    for plan in (claude_code.read(path), claude_code.read(path, parse_all=True)):
        by: dict[str, list[Any]] = {}
        for r in plan.records:
            by.setdefault(r.kind, []).append(r)
        current = [c for c in by["command"] if c.status == "current"]
        assert len(current) == 1 and current[0].text.endswith("flashinfer_cutlass")
        assert {c.status for c in by["command"]} >= {"failed"}
        benches = sorted(by["benchmark"], key=lambda x: x.concurrency)
        assert [x.concurrency for x in benches] == [1, 1024]
        assert [next(m.value for m in x.metrics if m.name == "output_token_throughput") for x in benches] == [172.0, 2100.0]
        assert all(x.links.produced_by == [current[0].id] for x in benches)
        assert any(d.category == "risk" and "garbage" in d.title for d in by["discovery"])
        assert any(d.category == "finding" and "FP8 KV cache" in d.title for d in by["discovery"])
        cells = {c.option: c.status for c in by["compat"]}
        assert cells.get("--moe-runner-backend flashinfer_cutlass") == "works"
        assert cells.get("--moe-runner-backend (default)") == "fails"
        # The GPU the person named ("this 8x B200 box") is the cells' target.
        assert {c.target for c in by["compat"]} == {"B200"}
        assert [(t.title, t.status) for t in by["task"]] == [("Launch server", "done")]
        assert [f.path for f in by["file"]] == ["/home/ann/deploy/launch.sh"]


def test_rewound_branch_is_superseded(tmp_path: Path) -> None:
    b = Builder()
    b.user("Start with the first idea")
    fork = b.rows[-1]["uuid"]
    b.user("I very much like this idea")
    b.user("and expand it")
    b.rows.append(
        {**b.rows[1], "uuid": "99999999-0000-4000-8000-000000000001", "message": {"role": "user", "content": "I don't like this idea"}}
    )
    b.rows[-1]["parentUuid"] = fork
    path = b.write(tmp_path / "rewind.jsonl")
    status = {r.quote: r.status for r in claude_code.read(path).records if r.kind == "instruction"}  # type: ignore[attr-defined]
    assert status == {
        "Start with the first idea": "active",
        "I very much like this idea": "superseded",
        "and expand it": "superseded",
        "I don't like this idea": "active",
    }


def test_summary_lines_of_other_sessions_are_not_the_title(tmp_path: Path) -> None:
    b = Builder()
    b.user("hello there, fix the build")
    b.rows.insert(0, {"type": "summary", "summary": "Another session's title", "leafUuid": "not-in-this-file"})
    b.rows.insert(1, {"type": "summary", "summary": "This session", "leafUuid": b.rows[-1]["uuid"]})
    assert claude_code.read(b.write(tmp_path / "s.jsonl")).session["title"] == "This session"


def test_subagent_file_imports_alone(tmp_path: Path) -> None:
    b = Builder()
    b.user("You are alice. Write the comparison section")
    b.call("Write", {"file_path": "work/research.md", "content": "x"}, "File created successfully")
    for row in b.rows:
        row.update(isSidechain=True, agentId="a36efb2a")
    plan = claude_code.read(b.write(tmp_path / "agent-a36efb2a.jsonl"))
    # Its prompt is its goal too (the first request of a conversation is, issue 14).
    assert {r.kind for r in plan.records} == {"instruction", "file", "goal"}


def test_compaction_subagent_gives_its_summary_not_its_prompt(tmp_path: Path) -> None:
    b = Builder()
    b.user("Your task is to create a detailed summary of the conversation so far")
    summary = "<analysis>x</analysis><summary>\\n1. Primary Request and Intent:\\n   Build the viewer\\n\\n2. Pending Tasks:\\n   - Port the renderer\\n</summary>"
    b._line(
        "assistant",
        {"role": "assistant", "model": "claude-opus-4-5", "content": [{"type": "text", "text": summary.replace("\\\\n", "\\n")}]},
    )
    for row in b.rows:
        row.update(isSidechain=True, agentId="acompact-e1f845")
    plan = claude_code.read(b.write(tmp_path / "agent-acompact-e1f845.jsonl"))
    assert not [r for r in plan.records if r.kind == "instruction" and "detailed summary" in r.quote]  # type: ignore[attr-defined]
    assert plan.checkpoints and plan.records


def test_inline_sidechain_tool_calls_count_but_its_prompt_is_no_instruction(tmp_path: Path) -> None:
    b = Builder()
    b.user("Update CLAUDE.md")
    b.user("Analyze the project structure")
    b.rows[-1].update(isSidechain=True, parentUuid=None)
    b.call("Bash", {"command": "tree /p -L 3"}, "Exit code 127\ntree: command not found", is_error=True)
    b.rows[-1]["isSidechain"] = b.rows[-2]["isSidechain"] = True
    plan = claude_code.read(b.write(tmp_path / "inline.jsonl"))
    assert [r.quote for r in plan.records if r.kind == "instruction"] == ["Update CLAUDE.md"]  # type: ignore[attr-defined]
    assert [(r.status, r.text) for r in plan.records if r.kind == "command"] == [("failed", "tree /p -L 3")]  # type: ignore[attr-defined]


def test_saved_result_file_beside_the_transcript_is_read(tmp_path: Path) -> None:
    # A real bench_serving --output-file (tests/corpus_real/files/bench, see its SOURCES.md).
    saved = Path(__file__).resolve().parent.parent / "corpus_real" / "files" / "bench" / "sglang_h200_llama405b_online.jsonl"
    (tmp_path / "res.jsonl").write_bytes(saved.read_bytes())
    b = Builder()
    b.user("Benchmark the server and keep the results")
    b.call("Bash", {"command": LAUNCH}, "The server is fired up and ready to roll!")
    cmd = "python3 -m sglang.bench_serving --backend sglang --dataset-name random --request-rate 1 --output-file /data/runs/res.jsonl"
    b.call("Bash", {"command": cmd}, RESULT.format(conc=1, tput="504.96"))
    plan = claude_code.read(b.write(tmp_path / "session.jsonl"))
    launch = next(r for r in plan.records if r.kind == "command" and r.status == "current")
    benches = [r for r in plan.records if r.kind == "benchmark"]
    # Every run the file holds (six lines), not only the printed block, each produced by the server.
    assert len(benches) == len(saved.read_text().splitlines()) == 6
    assert all(x.links.produced_by == [launch.id] for x in benches)
    assert any(abs(next(m.value for m in x.metrics if m.name == "output_throughput") - 504.955) < 0.01 for x in benches)
    # Without the file, the printed block is read.
    (tmp_path / "res.jsonl").unlink()
    assert len([r for r in claude_code.read(tmp_path / "session.jsonl").records if r.kind == "benchmark"]) == 1
