"""Importing a transcript again reads only what it gained (services/ingest/incremental.py).

Proofs that the old part is not read: the reported offset, and garbage written over the old
part (past the digest's window), which a whole read reports and a resumed one never sees.
Proof that a resumed read builds the plan a whole read builds: on real transcripts cut at
several points, importing the cut and then the whole file leaves the store a whole import
of both leaves.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers import CLAUDE_CODE_ENVELOPE, CORPUS_REAL, FIXTURES, Cli, git

from statedump.core.store.store import Store
from statedump.models import Session
from statedump.services.ingest import incremental
from statedump.services.ingest.incremental import TAIL, import_incremental, state_path

BENCH = """============ Serving Benchmark Result ============
Backend:                                 sglang
Traffic request rate:                    inf
Max request concurrency:                 {conc}
Successful requests:                     100
Benchmark duration (s):                  12.5
Output token throughput (tok/s):         {tput}
Mean TTFT (ms):                          35.2
==================================================
"""
LAUNCH = "python -m sglang.launch_server --model-path nvidia/Qwen3.5-397B-A17B-NVFP4 --tp 8"


class _Writer:
    """Claude Code lines in order: typed prompts, tool rounds (a call, its result)."""

    def __init__(self) -> None:
        self.n = 0

    def _env(self, kind: str, **more: Any) -> str:
        self.n += 1
        env = {
            **CLAUDE_CODE_ENVELOPE,
            "parentUuid": f"00000000-0000-4000-8000-{self.n - 1:012d}" if self.n > 1 else None,
            "type": kind,
            "uuid": f"00000000-0000-4000-8000-{self.n:012d}",
            "timestamp": f"2026-03-14T{7 + self.n // 3600:02d}:{self.n // 60 % 60:02d}:{self.n % 60:02d}.000Z",
            **more,
        }
        return json.dumps(env) + "\n"

    def prompt(self, text: str) -> str:
        return self._env("user", message={"role": "user", "content": text})

    def shell(self, command: str, output: str) -> str:
        call_id = f"toolu_{self.n:08d}"
        call = {"type": "tool_use", "id": call_id, "name": "Bash", "input": {"command": command}}
        message = {"model": "claude-sonnet-4-5", "role": "assistant", "content": [{"type": "text", "text": "Running it."}, call]}
        first = self._env("assistant", message=message)
        result = {"type": "tool_result", "tool_use_id": call_id, "content": output, "is_error": False}
        return first + self._env("user", message={"role": "user", "content": [result]})

    def chatter(self, rounds: int) -> str:
        # Everyday tool rounds with long outputs: most of a transcript's bytes, passed over unparsed.
        filler = "\n".join(f"line {i} of a long listing of the model folder" for i in range(120))
        return "".join(self.shell("ls -la /models", filler) for _ in range(rounds))


def _session_parts() -> tuple[str, str]:
    """A session in two parts: the first launches a server; the second (written after the
    first import) benchmarks it, so its benchmark is produced by a command of the first part."""
    w = _Writer()
    first = w.prompt("Deploy Qwen3.5 with SGLang on the 8 GPUs.") + w.chatter(40)
    first += w.shell(LAUNCH, "The server is fired up and ready to roll!") + w.chatter(20)
    second = w.prompt("Now measure throughput at concurrency 64.") + w.chatter(5)
    second += w.shell("python -m sglang.bench_serving --backend sglang --max-concurrency 64", BENCH.format(conc=64, tput=2100.5))
    return first, second


def _json(cli: Cli, *args: str) -> dict[str, Any]:
    r = cli("import", "claude-code", *args, "--json")
    assert r.exit_code == 0, r.output
    out: dict[str, Any] = json.loads(r.stdout)
    return out


def test_a_grown_transcript_is_read_from_where_the_last_import_stopped(cli: Cli, store: Store, tmp_path: Path) -> None:
    first, second = _session_parts()
    path = tmp_path / "session.jsonl"
    path.write_text(first)
    one = _json(cli, str(path))
    assert one["read"]["mode"] == "full" and one["read"]["end"] == len(first.encode())
    assert any(r.startswith("command/") for r in one["added"])
    with open(path, "a") as fh:
        fh.write(second)
    # Garbage over the old part (past the digest's window): a read of it would report it.
    old = len(first.encode())
    assert old > 2 * TAIL
    with open(path, "r+b") as fh:
        fh.seek(old // 3)
        fh.write(b"#" * 5000)
    two = _json(cli, str(path))
    assert two["read"] == {
        "mode": "incremental",
        "start": old,
        "end": path.stat().st_size,
        "size": path.stat().st_size,
        "why": two["read"]["why"],
    }
    assert "grown by" in two["read"]["why"]
    assert two["skipped"] == []
    benches = [r for r in two["added"] if r.startswith("benchmark/")]
    assert len(benches) == 1
    # The benchmark is linked to the server launched in the part read by the first import.
    shown = cli("show", benches[0].split("/", 1)[1], "--json")
    assert shown.exit_code == 0, shown.output
    links = json.loads(shown.stdout)["links"]
    launched = next(r for r in one["added"] if r.startswith("command/")).split("/", 1)[1]
    assert links["produced_by"] == [launched]
    # --full reads it all, and so meets the garbage.
    whole = _json(cli, str(path), "--full")
    assert whole["read"]["mode"] == "full" and whole["skipped"]


def test_an_unchanged_transcript_is_not_parsed(cli: Cli, store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "session.jsonl"
    path.write_text("".join(_session_parts()))
    first = _json(cli, str(path))
    assert first["added"]
    head = git(store.root, "rev-parse", "HEAD")

    def no_parse(*args: object, **kwargs: object) -> None:
        raise AssertionError("an unchanged transcript was parsed")

    monkeypatch.setattr("statedump.services.ingest.read_plan", no_parse)
    again = _json(cli, str(path))
    assert again["read"]["mode"] == "unchanged" and again["added"] == [] and again["changed"] == []
    assert git(store.root, "rev-parse", "HEAD") == head
    r = cli("import", "claude-code", str(path))
    assert r.stdout.startswith("imported claude-code session.jsonl into s1: 0 added, 0 changed (unchanged since its last import")


def test_a_rewritten_transcript_is_read_whole(cli: Cli, store: Store, tmp_path: Path) -> None:
    first, second = _session_parts()
    path = tmp_path / "session.jsonl"
    path.write_text(first + second)
    _json(cli, str(path))
    # The end of what was read changes (a rewind written over it), and the file grows.
    text = (first + second).replace("concurrency 64.", "concurrency 32.") + _Writer().prompt("and again")
    path.write_text(text)
    changed = _json(cli, str(path))
    assert changed["read"]["mode"] == "full" and "changed" in changed["read"]["why"]
    # A shorter file is rewritten too.
    path.write_text(first)
    shorter = _json(cli, str(path))
    assert shorter["read"]["mode"] == "full" and "shorter" in shorter["read"]["why"]
    assert shorter["added"] == []


def test_a_line_still_being_written_is_read_by_the_next_import(cli: Cli, store: Store, tmp_path: Path) -> None:
    first, second = _session_parts()
    path = tmp_path / "session.jsonl"
    cut = len(first) + len(second) // 2
    whole = first + second
    path.write_text(whole[:cut])
    one = _json(cli, str(path))
    assert one["read"]["end"] < cut  # the unfinished line is not counted as read
    path.write_text(whole)
    two = _json(cli, str(path))
    assert two["read"]["mode"] == "incremental" and two["read"]["start"] == one["read"]["end"]
    assert two["skipped"] == []
    # Nothing twice: the same records as one whole import into a fresh session.
    fresh = _json(cli, str(path), "-s", "fresh", "--full")
    assert sorted(one["added"] + two["added"]) == sorted(fresh["added"])


def _tree(root: Path, session: str) -> dict[str, bytes]:
    folder = root / "sessions" / session
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*.yaml"))}


CUTS = (0.3, 0.8)
REAL = [
    ("claude-code", CORPUS_REAL / "transcripts" / "claude-code" / "daaain-03eb5929-rewind-fork.jsonl"),
    ("claude-code", CORPUS_REAL / "transcripts" / "claude-code" / "entire-3e7e38433d1c-compaction-todos.jsonl"),
    ("claude-code", CORPUS_REAL / "transcripts" / "claude-code" / "ccviewer-5c0375b4-inline-sidechains.jsonl"),
    ("claude-code", CORPUS_REAL / "transcripts" / "claude-code" / "spotter-subagent-task.jsonl"),
    ("claude-code", FIXTURES / "claude_code.jsonl"),
    ("codex", CORPUS_REAL / "transcripts" / "codex" / "acidicsoil-legacy-example.jsonl"),
    ("codex", FIXTURES / "codex_rollout.jsonl"),
]


@pytest.mark.parametrize(("fmt", "source"), REAL, ids=[p.name for _, p in REAL])
def test_a_resumed_read_gives_what_a_whole_read_gives(fmt: str, source: Path, tmp_path: Path) -> None:
    data = source.read_bytes()
    for cut in CUTS:
        trees = []
        for name, full in (("resumed", False), ("whole", True)):
            root = tmp_path / f"{name}-{cut}"
            st = Store.init(root / "store")
            st.create_session(Session(id="s1", title="Test session"))
            path = root / source.name  # the same name: readers use it for titles
            path.write_bytes(data[: int(len(data) * cut)])
            import_incremental(st, path, fmt=fmt, session="s1", full=full)
            path.write_bytes(data)
            report = import_incremental(st, path, fmt=fmt, session="s1", full=full)
            assert report.read is not None and report.read.mode == ("full" if full else "incremental")
            tags = git(st.root, "tag", "--list", "dump/*").split()
            trees.append((_tree(st.root, "s1"), {t: git(st.root, "rev-parse", f"{t}^{{tree}}") for t in tags}))
        assert trees[0][0] == trees[1][0], f"cut at {cut:.0%}"
        assert trees[0][1] == trees[1][1], f"cut at {cut:.0%}: the checkpoints' states"


def test_a_broken_state_file_means_a_whole_read(cli: Cli, store: Store, tmp_path: Path) -> None:
    first, second = _session_parts()
    path = tmp_path / "session.jsonl"
    path.write_text(first)
    _json(cli, str(path))
    state = state_path(store, "claude-code", path, None)
    assert state.is_file()
    state.write_bytes(state.read_bytes()[:-40])  # the kept lines cut off
    with open(path, "a") as fh:
        fh.write(second)
    r = _json(cli, str(path))
    assert r["read"]["mode"] == "full" and any(x.startswith("benchmark/") for x in r["added"])
    state.write_bytes(b"not json\n")
    assert _json(cli, str(path))["read"]["mode"] == "full"


def test_dry_run_and_other_formats_keep_no_state(cli: Cli, store: Store, tmp_path: Path) -> None:
    path = tmp_path / "session.jsonl"
    path.write_text("".join(_session_parts()))
    assert _json(cli, str(path), "--dry-run")["read"]["mode"] == "full"
    assert not incremental.state_dir(store).exists() or not any(incremental.state_dir(store).iterdir())
    assert _json(cli, str(path), "--dry-run")["read"]["mode"] == "full"
    r = cli("import", "sglang-bench", str(FIXTURES / "sglang_bench_serving.jsonl"), "--json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["read"]["mode"] == "full"
    assert not incremental.state_dir(store).exists() or not any(incremental.state_dir(store).iterdir())


def test_a_zstd_rollout_is_unchanged_or_read_whole(cli: Cli, store: Store, tmp_path: Path) -> None:
    zstandard = pytest.importorskip("zstandard")
    path = tmp_path / "rollout.jsonl.zst"
    path.write_bytes(zstandard.ZstdCompressor().compress((FIXTURES / "codex_rollout.jsonl").read_bytes()))
    r = cli("import", "codex", str(path), "--json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["read"]["mode"] == "full"
    again = json.loads(cli("import", "codex", str(path), "--json").stdout)
    assert again["read"]["mode"] == "unchanged"


# The import, killed (SIGKILL, by itself) right after its commit and before its state is saved.
_KILLED_AFTER_COMMIT = """
import os, signal, sys
from statedump.services.ingest import incremental
incremental._save = lambda *a, **k: os.kill(os.getpid(), signal.SIGKILL)
from statedump.cli import main
sys.argv = ["statedump", *sys.argv[1:]]
main()
"""


def test_killed_between_commit_and_state_the_next_import_adds_nothing_twice(cli: Cli, store: Store, tmp_path: Path) -> None:
    first, second = _session_parts()
    path = tmp_path / "session.jsonl"
    path.write_text(first)
    _json(cli, str(path))
    with open(path, "a") as fh:
        fh.write(second)
    argv = [sys.executable, "-c", _KILLED_AFTER_COMMIT, "import", "claude-code", str(path), "--store", str(store.root)]
    done = subprocess.run(argv, capture_output=True, env=os.environ.copy(), timeout=120, check=False)
    assert done.returncode == -signal.SIGKILL, done.stderr.decode()
    assert "benchmark: add" in git(store.root, "log", "-1", "--format=%B")  # the commit was made
    head = git(store.root, "rev-parse", "HEAD")
    again = _json(cli, str(path))
    # The state still says where the first import stopped: the new part is read again, and
    # what it holds is already there.
    assert again["read"]["mode"] == "incremental" and again["read"]["start"] == len(first.encode())
    assert again["added"] == [] and again["changed"] == [] and again["commit"] is None
    assert git(store.root, "rev-parse", "HEAD") == head
    assert _json(cli, str(path))["read"]["mode"] == "unchanged"


# Killed (SIGKILL, by itself) in the middle of the commit: files written, no commit yet.
_KILLED_IN_COMMIT = """
import os, signal, sys
from statedump.core.git.gateway import Git
Git.commit = lambda *a, **k: os.kill(os.getpid(), signal.SIGKILL)
from statedump.cli import main
sys.argv = ["statedump", *sys.argv[1:]]
main()
"""


def test_killed_in_the_commit_doctor_and_the_next_import_make_it_whole(cli: Cli, store: Store, tmp_path: Path) -> None:
    first, second = _session_parts()
    path = tmp_path / "session.jsonl"
    path.write_text(first)
    one = _json(cli, str(path))
    with open(path, "a") as fh:
        fh.write(second)
    head = git(store.root, "rev-parse", "HEAD")
    argv = [sys.executable, "-c", _KILLED_IN_COMMIT, "import", "claude-code", str(path), "--store", str(store.root)]
    done = subprocess.run(argv, capture_output=True, env=os.environ.copy(), timeout=120, check=False)
    assert done.returncode == -signal.SIGKILL, done.stderr.decode()
    assert git(store.root, "rev-parse", "HEAD") == head
    assert cli("doctor", "--repair").exit_code == 0
    two = _json(cli, str(path))
    assert two["read"]["mode"] == "incremental" and two["read"]["start"] == len(first.encode())
    fresh = _json(cli, str(path), "-s", "fresh", "--full")
    assert sorted(one["added"] + two["added"]) == sorted(fresh["added"])


def test_a_subagent_transcript_that_grew_is_read_again(cli: Cli, store: Store, tmp_path: Path) -> None:
    # A real parent session and its subagent (tests/corpus_real/transcripts/SOURCES.md).
    source = CORPUS_REAL / "transcripts" / "claude-code" / "ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl"
    path = tmp_path / source.name
    path.write_bytes(source.read_bytes())
    folder = tmp_path / source.stem / "subagents"
    folder.mkdir(parents=True)
    for sub in (source.with_suffix("") / "subagents").iterdir():
        (folder / sub.name).write_bytes(sub.read_bytes())
    one = _json(cli, str(path))
    assert one["read"]["mode"] == "full"
    assert _json(cli, str(path))["read"]["mode"] == "unchanged"
    # The subagent goes on (its file grows; the parent's does not): it launches a server.
    agent = next(folder.glob("agent-*.jsonl"))
    last = json.loads(agent.read_text().splitlines()[-1])
    call = {"type": "tool_use", "id": "toolu_sub_launch", "name": "Bash", "input": {"command": LAUNCH}}
    result = {"type": "tool_result", "tool_use_id": "toolu_sub_launch", "content": "The server is fired up and ready to roll!"}
    lines = [
        {**last, "uuid": "sub-launch-1", "parentUuid": last["uuid"], "message": {**last["message"], "content": [call]}},
        {**last, "type": "user", "uuid": "sub-launch-2", "parentUuid": "sub-launch-1", "message": {"role": "user", "content": [result]}},
    ]
    with open(agent, "a") as fh:
        fh.write("".join(json.dumps(x) + "\n" for x in lines))
    two = _json(cli, str(path))
    assert two["read"]["mode"] == "incremental" and "subagent" in two["read"]["why"]
    assert any(r.startswith("command/") for r in two["added"])
    fresh = _json(cli, str(path), "-s", "fresh", "--full")
    assert sorted(one["added"] + two["added"]) == sorted(fresh["added"])
