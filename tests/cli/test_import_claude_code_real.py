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
        assert [(t.title, t.status) for t in by["task"]] == [("Launch server", "done")]
        assert [f.path for f in by["file"]] == ["/home/ann/deploy/launch.sh"]
