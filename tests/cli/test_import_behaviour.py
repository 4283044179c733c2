"""How every import behaves: dry runs write nothing, bad lines are reported (or refused with
--strict), bad files give one line and exit 2, secrets never reach the history, and a large
transcript is read in bounded memory."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from helpers import FIXTURES, SECRETS, Cli, corpus_text, find_secrets, git, secrets, snapshot

from statedump.core.store.store import Store
from statedump.services.ingest import FORMATS


def test_dry_run_prints_and_writes_nothing(cli: Cli, store: Store) -> None:
    before = snapshot(store.root)
    r = cli("import", "claude-code", str(FIXTURES / "claude_code.jsonl"), "--dry-run")
    assert r.exit_code == 0, r.output
    assert r.stdout.startswith("would import claude-code claude_code.jsonl into s1:")
    assert "  + instruction/msg-try-up-to-1024-e759d0b1  try up to 1024" in r.stdout
    assert "checkpoint claude-code a1c3e5f7-0000-4000-8000-000000000014: compaction summary" in r.stdout
    assert snapshot(store.root) == before
    assert git(store.root, "tag") == ""


def _damaged(tmp_path: Path) -> Path:
    lines = (FIXTURES / "claude_code.jsonl").read_text().splitlines(keepends=True)
    lines.insert(3, "{this is not json\n")
    lines[-1] = lines[-1][: len(lines[-1]) // 2]  # cut off mid-line, as a live file can be
    out = tmp_path / "damaged.jsonl"
    out.write_text("".join(lines))
    return out


def test_bad_lines_are_reported_and_the_rest_imports(cli: Cli, store: Store, tmp_path: Path) -> None:
    damaged = _damaged(tmp_path)
    r = cli("import", "claude-code", str(damaged))
    assert r.exit_code == 0, r.output
    assert "skipped 2 unreadable line(s):" in r.stderr
    assert f"{damaged}:4: not JSON" in r.stderr
    assert f"{damaged}:18: not JSON" in r.stderr and "(cut off?)" in r.stderr
    # Everything else is there; the cut-off last message is not.
    assert "try up to 1024" in cli("list", "--kind", "instruction").stdout
    assert "reducing model accuracy" not in "".join(
        p.read_text() for p in (store.root / "sessions" / "s1" / "instruction").glob("msg-are-*.yaml")
    )


def test_strict_imports_nothing(cli: Cli, store: Store, tmp_path: Path) -> None:
    damaged = _damaged(tmp_path)
    before = snapshot(store.root)
    r = cli("import", "claude-code", str(damaged), "--strict")
    assert r.exit_code == 2
    assert r.stderr.count("\n") == 1
    assert r.stderr.startswith(f"statedump: {damaged}: line 4: not JSON")
    assert snapshot(store.root) == before


JSON_FORMATS = ["claude-code", "codex", "opencode", "sglang-bench", "vllm-bench"]


def _bad_inputs(tmp_path: Path) -> dict[str, Path]:
    text = tmp_path / "notes.txt"
    text.write_text("this is plain text\nnot json at all\n")
    binary = tmp_path / "blob.bin"
    binary.write_bytes(b"\x7fELF\x00\x01\x02" * 100)
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    folder = tmp_path / "folder"
    folder.mkdir()
    return {"not-json": text, "binary": binary, "empty": empty, "directory": folder, "missing": tmp_path / "nope.jsonl"}


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_bad_input_is_one_line_exit_2_store_untouched(cli: Cli, store: Store, tmp_path: Path, fmt: str) -> None:
    before = snapshot(store.root)
    for name, path in _bad_inputs(tmp_path).items():
        if name == "not-json" and fmt not in JSON_FORMATS and fmt != "systemd":
            continue  # Markdown and shell read any text
        r = cli("import", fmt, str(path))
        assert r.exit_code == 2, (fmt, name, r.output)
        assert r.stdout == ""
        assert r.stderr.startswith("statedump: ") and r.stderr.count("\n") == 1, (fmt, name, r.stderr)
        assert str(path) in r.stderr
    assert snapshot(store.root) == before


def _corpus_files(tmp_path: Path) -> dict[str, Path]:
    md = tmp_path / "dump.md"
    single = [text.format(s=s) for _, text, s in SECRETS if "\n" not in text]
    md.write_text(
        "## Discoveries\n\n"
        + "\n".join(f"- {line}" for line in single)
        + "\n\n## Deployment commands\n\n```bash\n"
        + corpus_text()
        + "\n```\n"
    )
    transcript = tmp_path / "t.jsonl"
    with open(transcript, "w") as fh:
        for i, (_, text, s) in enumerate(SECRETS):
            line = {
                "type": "user",
                "uuid": f"u-{i}",
                "sessionId": "x",
                "timestamp": "2026-03-14T10:00:00Z",
                "message": {"role": "user", "content": text.format(s=s)},
            }
            fh.write(json.dumps(line) + "\n")
    script = tmp_path / "run.sh"
    script.write_text("\n\n".join(text.format(s=s) for _, text, s in SECRETS if "\n" not in text) + "\n")
    return {"markdown": md, "claude-code": transcript, "shell": script}


def test_secrets_never_reach_files_or_history(cli: Cli, store: Store, tmp_path: Path) -> None:
    corpus = corpus_text()
    assert cli("add", "discovery", "--title", "creds " + SECRETS[0][1].format(s=SECRETS[0][2]), "--body", corpus).exit_code == 0
    assert cli("add", "task", "--id", "t1", "--title", "later").exit_code == 0
    assert cli("edit", "t1", "--body", corpus, "--field", "impact=" + SECRETS[4][1].format(s=SECRETS[4][2])).exit_code == 0
    for fmt, path in _corpus_files(tmp_path).items():
        r = cli("import", fmt, str(path), "-s", f"sec-{fmt}")
        assert r.exit_code == 0, r.output
        assert not any(s in r.stdout for s in secrets())
    history = git(store.root, "log", "-p", "--all", "--format=%H%n%B")
    tags = git(store.root, "for-each-ref", "--format=%(contents)", "refs/tags")
    files = {str(p): p.read_text(errors="replace") for p in store.root.rglob("*") if p.is_file() and ".git" not in p.parts}
    assert len(files) > 30
    for where, text in [("history", history), ("tags", tags), *files.items()]:
        assert find_secrets(text) == [], where
        leaked = [s for s in secrets() if s in text]
        assert leaked == [], (where, leaked)
    assert "<redacted>" in history


def test_large_transcript_reads_in_bounded_memory(tmp_path: Path) -> None:
    big = tmp_path / "big.jsonl"
    filler = "x" * 2000
    with open(big, "w") as fh:
        n = 0
        while fh.tell() < 20 * 1024 * 1024:
            n += 1
            kind = "user" if n % 50 == 0 else "assistant"
            content = f"request {n}" if kind == "user" else [{"type": "text", "text": filler}]
            fh.write(
                json.dumps(
                    {
                        "type": kind,
                        "uuid": f"u{n}",
                        "sessionId": "s",
                        "timestamp": "2026-03-14T10:00:00Z",
                        "message": {"role": kind, "content": content},
                    }
                )
                + "\n"
            )
    code = textwrap.dedent(
        f"""
        import resource, sys
        from pathlib import Path
        from statedump.services.ingest import read_plan
        import statedump.services.ingest.claude_code
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        plan = read_plan("claude-code", Path({str(big)!r}))
        after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        print(len(plan.records), (after - before) // 1024)
        """
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    records, grown_mb = int(out[0]), int(out[1])
    assert records > 100
    assert grown_mb < 12, f"peak memory grew by {grown_mb} MB reading a 20 MB transcript"


def test_json_report(cli: Cli, store: Store) -> None:
    r = cli("import", "sglang-bench", str(FIXTURES / "sglang_one_batch.jsonl"), "--json")
    assert r.exit_code == 0, r.output
    report = json.loads(r.stdout)
    assert report["session"] == "s1" and report["dry_run"] is False
    assert report["added"] == ["benchmark/sglang-one-batch-4da960ab58", "benchmark/sglang-one-batch-3af2e6a7f4"]
    assert report["commit"] == git(store.root, "rev-parse", "HEAD").strip()
    assert report["skipped"] == [] and report["tags"] == []


def test_help_lists_the_formats(cli: Cli) -> None:
    r = cli("import", "--help")
    assert r.exit_code == 0
    for fmt in FORMATS:
        assert fmt in r.stdout
    r = cli("import", "pdf", "x")
    assert (
        r.exit_code == 2
        and r.stderr.startswith("statedump import: FORMAT 'pdf' is not valid: use one of: ")
        and len(r.stderr.splitlines()) == 1
    )


def _run_import(store: Store, stderr_tty: bool) -> str:
    import os
    import pty

    exe = Path(sys.executable).parent / "statedump"
    args = [str(exe), "import", "claude-code", str(FIXTURES / "claude_code.jsonl"), "--dry-run"]
    env = {**os.environ, "STATEDUMP_STORE": str(store.root), "COLUMNS": "100"}
    if not stderr_tty:
        return subprocess.run(args, capture_output=True, text=True, env=env, check=True).stderr
    leader, follower = pty.openpty()
    proc = subprocess.run(args, stdout=subprocess.DEVNULL, stderr=follower, env=env, check=True)
    os.close(follower)
    chunks = []
    while True:
        try:
            data = os.read(leader, 65536)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    os.close(leader)
    assert proc.returncode == 0
    return b"".join(chunks).decode(errors="replace")


def test_progress_bar_only_on_a_terminal(store: Store) -> None:
    assert _run_import(store, stderr_tty=False) == ""
    shown = _run_import(store, stderr_tty=True)
    assert "reading claude_code.jsonl" in shown and " kB" in shown


def test_a_failed_commit_leaves_the_store_as_it_was(cli: Cli, store: Store) -> None:
    lock = store.root / ".git" / "index.lock"
    lock.write_text("")  # another git process holds the index
    before = snapshot(store.root)
    r = cli("import", "claude-code", str(FIXTURES / "claude_code.jsonl"), "-s", "new-session")
    assert r.exit_code == 1
    assert r.stderr.startswith("statedump: ") and r.stderr.count("\n") == 1
    lock.unlink()
    assert snapshot(store.root) == before
    assert not (store.root / "sessions" / "new-session").exists()
    assert git(store.root, "tag") == ""


ODD_LINES = [
    {"type": "user", "message": [1, 2], "uuid": 7, "timestamp": 1e30},
    {"type": "user", "message": {"role": "user", "content": [None, {"type": "text"}, "x"]}, "timestamp": "yesterday"},
    {"type": "assistant", "message": {"model": None, "content": {"a": 1}}},
    {"type": "session_meta", "payload": {"id": 5, "timestamp": 99999999999999999999, "git": "main"}},
    {"type": "event_msg", "payload": {"type": "user_message", "message": None}},
    {"type": "compacted", "payload": {"message": ["not", "text"]}},
    {"timestamp": [], "type": "response_item", "payload": {"type": "message", "role": "user", "content": "plain"}},
    {"duration": "abc", "request_rate": {}, "max_concurrency": -5, "completed": None, "mean_ttft_ms": "fast"},
    {"batch_size": "x", "latency": None, "input_len": [], "output_len": {}},
    {"duration": 1.0, "request_rate": "sometimes", "max_concurrency": 2.5, "date": "tomorrow", "p99_ttft_ms": float("nan")},
]


@pytest.mark.parametrize("fmt", ["claude-code", "codex", "sglang-bench", "vllm-bench"])
def test_odd_but_valid_json_never_crashes(fmt: str, tmp_path: Path) -> None:
    from statedump.core.errors import StatedumpError
    from statedump.services.ingest import read_plan

    odd = tmp_path / "odd.jsonl"
    odd.write_text("\n".join(json.dumps(line) for line in ODD_LINES) + "\n")
    try:
        plan = read_plan(fmt, odd)
    except StatedumpError:
        return
    assert all(r.id for r in plan.records)


def test_odd_opencode_export_never_crashes(tmp_path: Path) -> None:
    from statedump.services.ingest import read_plan

    odd = tmp_path / "odd.json"
    odd.write_text(
        json.dumps(
            {
                "info": {"id": 5, "title": None, "time": "x", "version": 2},
                "messages": [
                    {"info": {"role": "user", "time": {"created": "x"}, "model": "m"}, "parts": [{"type": "text", "text": 5}]},
                    3,
                    {"info": {"role": "assistant", "summary": True, "time": None}, "parts": "zz"},
                ],
            }
        )
    )
    plan = read_plan("opencode", odd)
    assert [r.quote for r in plan.records] == ["5"]  # type: ignore[attr-defined]
    assert plan.skipped[0].line == 2
    assert plan.checkpoints == []  # an empty summary is no checkpoint
