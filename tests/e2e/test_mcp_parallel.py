"""Parallel MCP calls on one real `statedump mcp` process, through the SDK's client over stdio.

The SDK runs each call in a worker thread; before the server took one store access at a
time, 10 parallel `why` calls shared GitPython's `cat-file` pipes and gave wrong trees,
errors and calls that never returned, and the hung server kept the store's lock. Here every
tool gets 10 calls at once (reads and writes), then all of them together: each must answer,
and answer what the same call answers alone; afterwards the server stops when its stdin
closes, and the lock and the journal are free for the next writer.
"""

from __future__ import annotations

import fcntl
import json
import os
from pathlib import Path
from typing import Any

import anyio
from helpers import Cli, git
from mcp import ClientSession, stdio_client
from test_mcp import stdio_params, text

from statedump.core.store.store import Store
from statedump.models import KINDS

N = 10
SESSION = "qwen35-397b-a17b-nvfp4"


async def together(s: ClientSession, calls: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    """Every call at once; their results in the order given."""
    results: list[Any] = [None] * len(calls)

    async def one(i: int, name: str, arguments: dict[str, Any]) -> None:
        results[i] = await s.call_tool(name, arguments)

    async with anyio.create_task_group() as tg:
        for i, (name, arguments) in enumerate(calls):
            tg.start_soon(one, i, name, arguments)
    return results


def lock_is_free(store: Store) -> bool:
    fd = os.open(store.git.git_dir / "statedump.lock", os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        fcntl.flock(fd, fcntl.LOCK_UN)
        return True
    except BlockingIOError:
        return False
    finally:
        os.close(fd)


def test_ten_parallel_calls_of_every_tool(demo_copy: Path) -> None:
    store = Store.find(demo_copy)
    ids = [f"parallel-{i}" for i in range(N)]
    reads: list[tuple[str, dict[str, Any]]] = [
        ("why", {"query": "kv-cache-dtype", "format": "json"}),
        ("state_document", {}),
        ("list_sessions", {}),
        ("list_records", {"kind": ["decision"]}),
        ("show_record", {"id": "bf16-kv-cache"}),
        ("describe_kind", {"kind": "decision"}),
        ("next_steps", {}),
        ("check", {}),
        ("resume", {"agent": "claude", "budget": 2000}),
    ]

    async def session() -> dict[str, Any]:
        out: dict[str, Any] = {}
        with anyio.fail_after(240):
            async with stdio_client(stdio_params(store)) as (read, write), ClientSession(read, write) as s:
                await s.initialize()
                # What each read answers alone, then ten of it at once.
                out["alone"] = [await s.call_tool(name, args) for name, args in reads]
                out["reads"] = [await together(s, [(name, args)] * N) for name, args in reads]
                out["kinds"] = await together(s, [("describe_kind", {"kind": k}) for k in KINDS])
                out["add"] = await together(
                    s,
                    [
                        ("add_record", {"kind": "task", "id": rid, "title": f"Parallel task {i}", "priority": 3})
                        for i, rid in enumerate(ids)
                    ],
                )
                out["update"] = await together(s, [("update_record", {"id": rid, "fields": {"body": f"body of {rid}"}}) for rid in ids])
                out["status"] = await together(s, [("set_status", {"id": rid, "status": "done", "source": "parallel"}) for rid in ids])
                out["dump"] = await together(s, [("dump", {"message": f"parallel dump {i}"}) for i in range(N)])
                out["remove"] = await together(s, [("remove_record", {"id": rid}) for rid in ids[: N // 2]])
                # Everything at once: reads beside writes.
                adds = [("add_record", {"kind": "discovery", "title": f"Mixed finding {i}"}) for i in range(2 * N)]
                out["mixed"] = await together(s, [*reads, *adds[:N], *reads, *adds[N:]])
                out["after"] = await s.call_tool("list_records", {"kind": ["task", "discovery"], "grep": "parallel"})
        return out

    got = anyio.run(session)

    for (name, _), alone, batch in zip(reads, got["alone"], got["reads"], strict=True):
        assert not alone.is_error, (name, text(alone))
        for result in batch:
            assert not result.is_error, (name, text(result))
            assert text(result) == text(alone), name
    why = json.loads(text(got["alone"][0]))
    assert why["decision"]["id"] == "bf16-kv-cache"
    assert json.loads(Cli(demo_copy)("why", "kv-cache-dtype", "--json").output)["decision"] == why["decision"]
    assert [r.structured_content["kind"] for r in got["kinds"]] == list(KINDS)

    for key in ("add", "update", "status", "remove"):
        assert not any(r.is_error for r in got[key]), [text(r) for r in got[key] if r.is_error]
    assert sorted(r.structured_content["record"]["id"] for r in got["add"]) == ids
    assert all(r.structured_content["changed"] == ["body"] for r in got["update"])
    # One dump was due; the other nine were told there is nothing new to tag.
    made = [r for r in got["dump"] if not r.is_error]
    assert len(made) == 1, [text(r) for r in got["dump"]]
    assert all("nothing changed since" in text(r) for r in got["dump"] if r.is_error)

    mixed = got["mixed"]
    assert not any(r.is_error for r in mixed), [text(r) for r in mixed if r.is_error]
    width = len(reads) + N
    for round_ in range(2):
        for i, (name, _) in enumerate(reads):
            if name in ("why", "describe_kind", "list_sessions"):  # reads whose answer the adds do not change
                assert text(mixed[round_ * width + i]) == text(got["alone"][i]), name
    finding_ids = [r.structured_content["record"]["id"] for k in range(2) for r in mixed[k * width + len(reads) : (k + 1) * width]]
    assert len(set(finding_ids)) == 2 * N  # every add its own record, none lost

    # The store afterwards: every write committed, nothing half-done, the lock free.
    folder = demo_copy / "sessions" / SESSION
    assert sorted(p.stem for p in (folder / "task").glob("parallel-*.yaml")) == ids[N // 2 :]
    for rid in ids[N // 2 :]:
        assert "body of " + rid in (folder / "task" / f"{rid}.yaml").read_text()
        assert "status: done" in (folder / "task" / f"{rid}.yaml").read_text()
    assert len(list((folder / "discovery").glob("mixed-finding-*.yaml"))) == 2 * N
    assert git(demo_copy, "status", "--porcelain") == ""
    assert not store.journal_path.exists()
    assert lock_is_free(store)
    r = Cli(demo_copy)("add", "task", "--title", "After the parallel calls")
    assert r.exit_code == 0, r.output
