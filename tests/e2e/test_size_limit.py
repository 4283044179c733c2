"""The size limit of one record file is kept when a record is written, at every entry point:
what is too large (a pasted log, a huge tool output, a long script, an MCP body) is cut with a
note saying so, and the session stays readable by every command afterwards."""

from __future__ import annotations

import json
import os
import sys
import tracemalloc
from pathlib import Path

import anyio
import pytest
from helpers import Cli, git
from mcp import ClientSession, StdioServerParameters, stdio_client

from statedump.core.codec import MAX_FILE_BYTES
from statedump.core.store.store import Store

READERS = [
    ("list",),
    ("render",),
    ("validate",),
    ("check",),
    ("handoff",),
    ("resume",),
    ("list", "--json"),
]


def _log(n: int) -> str:
    """`n` bytes of something like a pasted server log, many lines of it."""
    line = "2026-03-14T10:00:00Z INFO  scheduler: decode batch 64, 1234.5 tok/s, kv usage 0.42\n"
    return (line * (n // len(line) + 1))[:n]


def _readable(cli: Cli, session: str = "s1") -> None:
    for args in READERS:
        got = cli(*args, "-s", session)
        assert got.exit_code in (0, 1), (args, got.output[-400:])  # check exits 1 on findings, never 2
        assert "over the" not in got.output and "limit" not in (got.stderr_bytes or b"").decode(), args
    for path in (Path(cli.root) / "sessions" / session).rglob("*.yaml"):
        assert path.stat().st_size <= MAX_FILE_BYTES, path


def _cut_note_in(store: Store, session: str = "s1") -> int:
    return sum("[cut by statedump:" in p.read_text() for p in (store.root / "sessions" / session).rglob("*.yaml"))


def test_add_and_edit_cut_a_pasted_log_and_the_session_stays_readable(cli: Cli, store: Store) -> None:
    assert cli("add", "discovery", "--id", "big", "--title", "pasted log", "--body", _log(1_300_000)).exit_code == 0
    text = (store.root / "sessions/s1/discovery/big.yaml").read_text()
    assert "[cut by statedump:" in text and "1300000 bytes" in text
    assert text.count("decode batch 64") > 5_000  # the beginning of the log is kept
    assert cli("add", "command", "--id", "script", "--title", "deploy script", "--field", "text=" + _log(2_000_000)).exit_code == 0
    tags = [f"--tag={'t' * 120_000}{i}" for i in range(9)]
    assert cli("add", "task", "--id", "tagged", "--title", "many large tags", *tags).exit_code == 0
    assert cli("add", "discovery", "--id", "small", "--title", "small one").exit_code == 0
    assert cli("edit", "small", "--body", _log(2_000_000)).exit_code == 0
    assert _cut_note_in(store) >= 4
    _readable(cli)
    assert cli("show", "small").exit_code == 0


def test_an_import_of_a_huge_message_and_tool_output_stays_readable(cli: Cli, store: Store, tmp_path: Path) -> None:
    session = "5e0c2a7b-1f3d-4c1e-8a2b-6d9e4f0a7c11"
    base = {"sessionId": session, "cwd": "/srv", "version": "2.0.61", "isSidechain": False, "userType": "external"}
    lines = [
        {**base, "type": "user", "uuid": "u1", "parentUuid": None, "timestamp": "2026-03-14T10:00:00Z",
         "message": {"role": "user", "content": "Deploy the model. Here is the log:\n" + _log(1_300_000)}},
        {**base, "type": "assistant", "uuid": "a1", "parentUuid": "u1", "timestamp": "2026-03-14T10:00:01Z",
         "message": {"role": "assistant", "id": "m1", "model": "claude", "content": [
             {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "python -m sglang.launch_server --model m --port 30000"}}]}},
        {**base, "type": "user", "uuid": "u2", "parentUuid": "a1", "timestamp": "2026-03-14T10:00:02Z",
         "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": _log(3_000_000), "is_error": True}]}},
    ]  # fmt: skip
    transcript = tmp_path / "t.jsonl"
    transcript.write_text("".join(json.dumps(line) + "\n" for line in lines))
    got = cli("import", "claude-code", str(transcript), "-s", "imp")
    assert got.exit_code == 0, got.output
    assert _cut_note_in(store, "imp") >= 1
    _readable(cli, "imp")


def test_a_two_megabyte_script_in_a_transcript_stays_readable(cli: Cli, store: Store, tmp_path: Path) -> None:
    script = "cat > /srv/deploy.sh <<'EOF'\n" + _log(2_000_000) + "\nEOF\npython -m sglang.launch_server --model m --port 30000\n"
    base = {"sessionId": "s-script", "cwd": "/srv", "version": "2.0.61", "isSidechain": False, "userType": "external"}
    lines = [
        {**base, "type": "user", "uuid": "u1", "parentUuid": None, "timestamp": "2026-03-14T10:00:00Z",
         "message": {"role": "user", "content": "Write the deploy script and start the server."}},
        {**base, "type": "assistant", "uuid": "a1", "parentUuid": "u1", "timestamp": "2026-03-14T10:00:01Z",
         "message": {"role": "assistant", "id": "m1", "model": "claude", "content": [
             {"type": "tool_use", "id": "t1", "name": "Write", "input": {"file_path": "/srv/deploy.sh", "content": script}},
             {"type": "tool_use", "id": "t2", "name": "Bash", "input": {"command": script}}]}},
        {**base, "type": "user", "uuid": "u2", "parentUuid": "a1", "timestamp": "2026-03-14T10:00:02Z",
         "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t2", "content": "started"}]}},
    ]  # fmt: skip
    transcript = tmp_path / "t.jsonl"
    transcript.write_text("".join(json.dumps(line) + "\n" for line in lines))
    got = cli("import", "claude-code", str(transcript), "-s", "script")
    assert got.exit_code == 0, got.output
    _readable(cli, "script")


def test_a_three_megabyte_mcp_body_is_cut_and_the_session_stays_readable(cli: Cli, store: Store) -> None:
    keep = ("HOME", "PATH", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_NOSYSTEM", "STATEDUMP_NOW", "PYTHONPATH")
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "statedump", "mcp", "--store", str(store.root)],
        env={k: os.environ[k] for k in keep if k in os.environ},
        cwd=str(store.root),
    )

    async def session() -> str:
        with anyio.fail_after(60):
            async with stdio_client(params) as (read, write), ClientSession(read, write) as s:
                await s.initialize()
                names = {t.name for t in (await s.list_tools()).tools}
                fields = {"id": "via-mcp", "title": "huge body", "body": _log(3_000_000)}
                # One `add_record` tool taking a kind, or a tool per kind (older servers).
                if "add_record" in names:
                    got = await s.call_tool("add_record", {"kind": "discovery", **fields})
                else:
                    got = await s.call_tool("add_discovery", fields)
                return "".join(getattr(c, "text", "") for c in got.content) if got.is_error else ""

    assert anyio.run(session) == ""
    text = (store.root / "sessions/s1/discovery/via-mcp.yaml").read_text()
    assert "[cut by statedump:" in text
    assert "via-mcp" in git(store.root, "log", "-1", "--format=%s")
    _readable(cli)


def test_a_line_too_long_for_any_record_is_passed_over_unread(
    cli: Cli, store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The limit lowered from 64 MiB so that the file stays small; the reader is the same.
    from statedump.services.ingest import linescan

    monkeypatch.setattr(linescan, "MAX_LINE_BYTES", 8 << 20)
    base = {"sessionId": "s-long", "cwd": "/srv", "version": "2.0.61", "isSidechain": False, "userType": "external"}
    first = {**base, "type": "user", "uuid": "u1", "parentUuid": None, "timestamp": "2026-03-14T10:00:00Z",
             "message": {"role": "user", "content": "Deploy the model. Keep accuracy first."}}  # fmt: skip
    huge = {**base, "type": "user", "uuid": "u2", "parentUuid": "u1", "timestamp": "2026-03-14T10:00:01Z",
            "message": {"role": "user", "content": "x" * (40 << 20)}}  # fmt: skip
    transcript = tmp_path / "t.jsonl"
    transcript.write_text(json.dumps(first) + "\n" + json.dumps(huge) + "\n")
    del huge
    tracemalloc.start()
    try:
        got = cli("import", "claude-code", str(transcript), "-s", "long")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert got.exit_code == 0, got.output
    assert "over the 8388608-byte limit of one line" in got.output
    assert peak < 30 << 20, peak  # the 40 MB line was never held whole
    _readable(cli, "long")
