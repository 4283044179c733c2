"""Importers: files from outside (state dumps, transcripts, benchmark results, unit files)
turned into an `ImportPlan` of records, then written by `apply_plan` in one commit.

Each format is one module with a `read(path, progress)` function; they are imported
only when used.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from statedump.core.errors import StatedumpError

if TYPE_CHECKING:
    # Types only: `ingest.launch` is imported by the agents' guard, before every shell command,
    # which must not pay for the plan's models (pydantic) to read a command line.
    from statedump.services.ingest.jsonl import Progress
    from statedump.services.ingest.plan import ImportPlan

FORMATS: dict[str, tuple[str, str]] = {
    "markdown": ("statedump.services.ingest.markdown", "a state document or a compaction / handoff summary (.md)"),
    "claude-code": ("statedump.services.ingest.claude_code", "a Claude Code transcript (~/.claude/projects/<project>/<session>.jsonl)"),
    "opencode": ("statedump.services.ingest.opencode", "`opencode export` JSON, or opencode.db (SQLite)"),
    "codex": ("statedump.services.ingest.codex", "a Codex CLI rollout (~/.codex/sessions/.../rollout-*.jsonl)"),
    "sglang-bench": ("statedump.services.ingest.sglang_bench", "sglang.bench_serving or bench_one_batch_server results (JSONL)"),
    "vllm-bench": ("statedump.services.ingest.vllm_bench", "`vllm bench serve --save-result` JSON, `vllm bench sweep` summary.json"),
    "genai-perf": ("statedump.services.ingest.genai_perf", "genai-perf (or AIPerf) profile_export_*.json"),
    "aiperf": ("statedump.services.ingest.aiperf", "AIPerf profile_export_aiperf.json"),
    "guidellm": ("statedump.services.ingest.guidellm", "a GuideLLM benchmarks report (JSON)"),
    "systemd": ("statedump.services.ingest.systemd", "a systemd unit file"),
    "shell": ("statedump.services.ingest.shell", "a shell script or command lines"),
    "compose": ("statedump.services.ingest.compose", "a docker compose file running vLLM or SGLang"),
}
"""Format name -> (module, what it reads)."""

LINE_FEATURES = {"claude-code": "statedump.services.ingest.claude_bytes"}
"""Formats whose lines' bytes tell the reader which it may pass over: the module with their
`features`, found by a child process for a big file (see linescan.py)."""


class _Reader(Protocol):
    def __call__(self, path: Path, progress: Progress | None = None) -> ImportPlan: ...


def read_plan(fmt: str, path: Path, progress: Progress | None = None, *, every_line: bool = False) -> ImportPlan:
    """Read `path` as `fmt` into a plan; nothing is written.

    `every_line` (what `--strict` asks for): a reader that passes over lines it does not need
    (Claude Code's tool rounds) parses them all, so that a damaged one is reported too.
    """
    if fmt not in FORMATS:
        raise StatedumpError(f"unknown import format {fmt!r}", where="FORMAT", hint=f"use one of: {', '.join(FORMATS)}")
    early = _start_scan(fmt, path) if not every_line and fmt in LINE_FEATURES else None
    try:
        module = importlib.import_module(FORMATS[fmt][0])
        reader: _Reader = module.read
        if every_line and "parse_all" in module.read.__code__.co_varnames:
            full: ImportPlan = module.read(path, progress, parse_all=True)
            return full
        return reader(path, progress)
    finally:
        if early is not None:
            from statedump.services.ingest import linescan

            linescan.stop(early)


def _start_scan(fmt: str, path: Path) -> tuple[str, int] | None:
    # Before the reader's modules are imported (a tenth of a second): the child scanning the
    # file's lines is at work meanwhile. Only an import that resumes a file (all of them, from
    # incremental.py) reads it with a scan.
    from statedump.services.ingest import jsonl, linescan

    offset = jsonl.resume_offset(path)
    if offset is None:
        return None
    return linescan.start(path, offset, importlib.import_module(LINE_FEATURES[fmt]).features)
