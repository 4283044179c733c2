"""The protocol at its edges, on a real `statedump mcp` process fed raw lines: what JSON-RPC 2.0
and MCP say a server answers to a line that is not JSON, a request whose id is an object or
null, an unknown prompt, and an argument of the wrong type. The SDK's client cannot send
most of these, so the lines are written by hand."""

from __future__ import annotations

import json
import os
import selectors
import subprocess
import sys
import time
from typing import IO, Any

from helpers import git, snapshot
from test_mcp import server_env

from statedump.core.store.store import Store

INIT = {
    "jsonrpc": "2.0",
    "id": "init",
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw-test", "version": "1"}},
}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
PARSE_ERROR, INVALID_REQUEST, INVALID_PARAMS = -32700, -32600, -32602


def _start(store: Store) -> subprocess.Popen[bytes]:
    """`statedump mcp` on the store, its three streams piped, as an agent's client starts it."""
    return subprocess.Popen(
        [sys.executable, "-m", "statedump", "mcp", "--store", str(store.root)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=server_env(),
        cwd=store.root,
    )


def converse(store: Store, *lines: str | dict[str, Any], expect: int) -> list[dict[str, Any]]:
    """Initialize, send `lines` (text as it is, mappings as JSON), wait for `expect` messages
    after the initialize result, then close stdin and return them. The server must answer
    within the deadline and stop when stdin closes, and write nothing else."""
    raw = [json.dumps(INIT), json.dumps(INITIALIZED), *(line if isinstance(line, str) else json.dumps(line) for line in lines)]
    proc = _start(store)
    assert proc.stdin is not None and proc.stdout is not None
    try:
        proc.stdin.write(("\n".join(raw) + "\n").encode())
        proc.stdin.flush()
        got = read_messages(proc.stdout, expect + 1, deadline=time.monotonic() + 60)
        proc.stdin.close()
        assert proc.wait(timeout=30) == 0
        rest = proc.stdout.read()
    finally:
        proc.kill()
        proc.wait()
    stderr = proc.stderr.read().decode() if proc.stderr else ""
    assert "Traceback" not in stderr, stderr
    assert not rest.strip(), rest  # nothing beyond the answers expected
    assert got[0]["id"] == "init" and "result" in got[0], got[0]
    return got[1:]


def read_messages(stream: IO[bytes], count: int, deadline: float) -> list[dict[str, Any]]:
    """`count` JSON lines from `stream`, failing at `deadline` instead of waiting for ever."""
    buffer, out = b"", []
    with selectors.DefaultSelector() as sel:
        sel.register(stream, selectors.EVENT_READ)
        while len(out) < count:
            left = deadline - time.monotonic()
            assert left > 0 and sel.select(left), f"no answer in time; got {out}"
            chunk = os.read(stream.fileno(), 65536)
            assert chunk, f"the server closed stdout; got {out}"
            buffer += chunk
            *lines, buffer = buffer.split(b"\n")
            out += [json.loads(line) for line in lines if line.strip()]
    assert not buffer.strip()
    return out


def by_id(messages: list[dict[str, Any]]) -> dict[Any, dict[str, Any]]:
    return {m.get("id"): m for m in messages}


BAD_LINES = [
    ("{this is not json", PARSE_ERROR),
    ('{"jsonrpc": "2.0", "id": 1, "method": "ping"', PARSE_ERROR),  # cut short
    ('{"jsonrpc": "2.0", "id": {"a": 1}, "method": "ping"}', INVALID_REQUEST),
    ('{"jsonrpc": "2.0", "id": null, "method": "ping"}', INVALID_REQUEST),
    ('{"jsonrpc": "2.0", "id": true, "method": "ping"}', INVALID_REQUEST),
    ('{"jsonrpc": "2.0", "id": [1], "method": "tools/list"}', INVALID_REQUEST),
    ("[1, 2]", INVALID_REQUEST),
    ('"just a string"', INVALID_REQUEST),
]


def test_every_line_that_is_no_request_is_answered(store: Store) -> None:
    got = converse(
        store,
        *(line for line, _ in BAD_LINES),
        "",  # a blank line, and a malformed response: JSON-RPC answers neither
        '{"jsonrpc": "2.0", "id": 99, "result": 5}',
        # `method` must be text: the id can be read, so the answer carries it.
        '{"jsonrpc": "2.0", "id": 12, "method": 5}',
        # The server read on past every bad line: each cost only its own answer.
        {"jsonrpc": "2.0", "id": 7, "method": "ping"},
        expect=len(BAD_LINES) + 2,
    )
    nulls = [m for m in got if m["id"] is None]
    assert [m["error"]["code"] for m in nulls] == [code for _, code in BAD_LINES], nulls
    assert all(m["jsonrpc"] == "2.0" and m["error"]["message"] for m in nulls)
    answered = by_id([m for m in got if m["id"] is not None])
    assert answered.keys() == {12, 7}
    assert answered[12]["error"]["code"] == INVALID_REQUEST
    assert answered[7] == {"jsonrpc": "2.0", "id": 7, "result": {}}


def test_an_unknown_prompt_is_invalid_params(store: Store) -> None:
    got = by_id(
        converse(
            store,
            {"jsonrpc": "2.0", "id": 1, "method": "prompts/get", "params": {"name": "no-such-prompt"}},
            {"jsonrpc": "2.0", "id": 2, "method": "prompts/get", "params": {"name": "write-state-dump", "arguments": {"session": "nope"}}},
            expect=2,
        )
    )
    assert got[1]["error"]["code"] == INVALID_PARAMS
    assert "no prompt named 'no-such-prompt'" in got[1]["error"]["message"] and "write-state-dump" in got[1]["error"]["message"]
    assert got[2]["error"]["code"] == INVALID_PARAMS and "no session 'nope'" in got[2]["error"]["message"]


def test_a_session_of_the_wrong_type_is_refused_and_nothing_is_written(store: Store) -> None:
    before = snapshot(store.root)
    commits = git(store.root, "rev-list", "--count", "HEAD")

    def call(n: int, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        return {"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": {"name": tool, "arguments": arguments}}

    got = by_id(
        converse(
            store,
            call(1, "add_record", {"kind": "task", "title": "Written to the default session?", "session": 5}),
            call(2, "update_record", {"id": "x", "fields": {"body": "b"}, "session": 5}),
            call(3, "show_record", {"id": "x", "session": ["s1"]}),
            call(4, "set_status", {"id": "x", "status": "done", "session": 5}),
            call(5, "dump", {"session": 5}),
            expect=5,
        )
    )
    for n in range(1, 6):
        result = got[n]["result"]
        message = result["content"][0]["text"]
        assert result["isError"] is True, got[n]
        assert "session" in message and "validation error" not in message, message
    assert "session: must be a session id (text), not 5" in got[1]["result"]["content"][0]["text"]
    assert snapshot(store.root) == before
    assert git(store.root, "rev-list", "--count", "HEAD") == commits


def test_a_client_that_stops_reading_ends_the_server_quietly(store: Store) -> None:
    # The agent's client died: its end of our stdout is closed while answers are due.
    proc = _start(store)
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()
    calls = [json.dumps({"jsonrpc": "2.0", "id": n, "method": "tools/list"}) for n in range(50)]
    proc.stdin.write(("\n".join([json.dumps(INIT), json.dumps(INITIALIZED), *calls]) + "\n").encode())
    proc.stdin.flush()
    try:
        assert proc.wait(timeout=60) == 0  # it stops by itself, before stdin closes
    finally:
        proc.kill()
        proc.stdin.close()
    stderr = proc.stderr.read().decode()
    assert "Traceback" not in stderr and "BrokenPipe" not in stderr, stderr
