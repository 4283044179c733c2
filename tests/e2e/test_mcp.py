"""The MCP server: `statedump mcp` driven over stdio by the SDK's client, and the
tools, resources and prompts checked in-process."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
import mcp
import pytest
from helpers import Cli, git, snapshot
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.shared.exceptions import MCPError

from statedump.core.store.store import Store
from statedump.mcpserver import build_server
from statedump.mcpserver.adding import input_schema
from statedump.models import KINDS

DISCOVERY = {
    "title": "FP8 KV cache runs with scale 1.0",
    "category": "risk",
    "source": "msg 6008",
    "body": "No scaling factors in the checkpoint; SGLang defaults them to 1.0.",
}
DECISION = {
    "id": "bf16-kv-cache",
    "title": "BF16 KV cache instead of FP8",
    "status": "accepted",
    "question": "Which KV cache dtype?",
    "choice": "--kv-cache-dtype bf16",
    "alternatives": [{"option": "FP8 KV cache", "why_not": "no calibrated scales"}],
    "tradeoffs": [{"aspect": "KV capacity", "before": "3.15M", "after": "1.57M", "unit": "tokens"}],
    "links": {"evidence": ["fp8-kv-cache-runs-with-scale-1-0"]},
}


def text(result: Any) -> str:
    return "".join(c.text for c in result.content)


def _server_env() -> dict[str, str]:
    keep = ("HOME", "PATH", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_NOSYSTEM", "STATEDUMP_NOW", "PYTHONPATH")
    return {k: os.environ[k] for k in keep if k in os.environ}


def test_statedump_mcp_over_stdio(store: Store) -> None:
    """The acceptance path: list tools, add a discovery and a decision linked to it, read them
    back as a tool and a resource, ask why, and have an invalid record refused with nothing written."""
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "statedump", "mcp", "--store", str(store.root)], env=_server_env(), cwd=str(store.root)
    )
    commits_before = int(git(store.root, "rev-list", "--count", "HEAD"))

    async def session() -> dict[str, Any]:
        out: dict[str, Any] = {}
        with anyio.fail_after(30):
            async with stdio_client(params) as (read, write), ClientSession(read, write) as s:
                init = await s.initialize()
                out["server"] = init.server_info.name
                out["tools"] = {t.name: t for t in (await s.list_tools()).tools}
                out["discovery"] = await s.call_tool("add_discovery", DISCOVERY)
                out["decision"] = await s.call_tool("add_decision", DECISION)
                out["show"] = await s.call_tool("show_record", {"id": "bf16-kv-cache"})
                out["resource"] = await s.read_resource("statedump://sessions/s1/records/fp8-kv-cache-runs-with-scale-1-0")
                out["state"] = await s.read_resource("statedump://sessions/s1/state")
                out["why"] = await s.call_tool("why", {"query": "kv-cache-dtype"})
                out["why_json"] = await s.call_tool("why", {"query": "bf16-kv-cache", "format": "json"})
                out["before_bad"] = snapshot(store.root)
                out["bad"] = await s.call_tool("add_decision", {"title": "No choice given", "status": "chosen"})
                out["after_bad"] = snapshot(store.root)
        return out

    got = anyio.run(session)
    assert got["server"] == "statedump"
    tools = got["tools"]
    assert {f"add_{k}" for k in KINDS} <= tools.keys()
    assert {"state_document", "list_records", "show_record", "set_status", "why", "check", "next_steps"} <= tools.keys()
    schema = tools["add_decision"].input_schema
    assert "choice" in schema["required"] and "kind" not in schema["properties"]
    assert schema["properties"]["status"]["enum"] == ["proposed", "accepted", "superseded", "rejected"]

    assert not got["discovery"].is_error, text(got["discovery"])
    assert json.loads(text(got["discovery"]))["record"]["id"] == "fp8-kv-cache-runs-with-scale-1-0"
    assert not got["decision"].is_error, text(got["decision"])
    shown = json.loads(text(got["show"]))
    assert shown["choice"] == "--kv-cache-dtype bf16"
    assert shown["links"]["evidence"] == ["fp8-kv-cache-runs-with-scale-1-0"]
    yaml_text = got["resource"].contents[0].text
    assert "id: fp8-kv-cache-runs-with-scale-1-0\n" in yaml_text and "category: risk" in yaml_text
    assert "BF16 KV cache instead of FP8" in got["state"].contents[0].text

    why = text(got["why"])
    assert not got["why"].is_error, why
    assert "bf16-kv-cache" in why and "fp8-kv-cache-runs-with-scale-1-0" in why and "1.57M" in why
    why_data = json.loads(text(got["why_json"]))
    assert why_data["decision"]["id"] == "bf16-kv-cache"
    assert [e["id"] for e in why_data["evidence"]] == ["fp8-kv-cache-runs-with-scale-1-0"]

    bad = text(got["bad"])
    assert got["bad"].is_error
    assert "field 'status'" in bad and "field 'choice'" in bad
    assert got["after_bad"] == got["before_bad"]
    # Two records, two commits, and the refused one wrote nothing.
    assert int(git(store.root, "rev-list", "--count", "HEAD")) == commits_before + 2
    assert (store.root / "sessions/s1/decision/bf16-kv-cache.yaml").is_file()


def test_mcp_without_a_store_fails_like_the_cli(cli: Cli, tmp_path: Any) -> None:
    r = cli("mcp", "--store", str(tmp_path / "nowhere"))
    assert r.exit_code == 2
    assert "not a statedump store" in r.stderr


# -- in-process: the same server object, no subprocess --------------------------------------


def call(store: Store, steps: Callable[[mcp.Client], Awaitable[Any]]) -> Any:
    async def run() -> Any:
        async with mcp.Client(build_server(store)) as client:
            return await steps(client)

    return anyio.run(run)


def test_a_bad_call_carries_the_cli_message_and_writes_nothing(store: Store, cli: Cli) -> None:
    before = snapshot(store.root)
    got = call(store, lambda c: c.call_tool("add_decision", {"title": "X", "choice": "y", "status": "bogus"}))
    assert got.is_error
    assert snapshot(store.root) == before
    r = cli("add", "decision", "--title", "X", "--field", "choice=y", "--status", "bogus")
    assert r.exit_code == 2
    cli_line = r.stderr.strip().removeprefix("statedump: ")
    assert text(got) == f"Error executing tool add_decision: {cli_line}"


REFUSALS: list[tuple[str, dict[str, Any], str]] = [
    ("add_decision", {"title": "Z", "choice": "c", "links": {"evidence": ["nope"]}}, "link evidence -> 'nope'"),
    ("add_task", {"title": "T", "priority": 0}, "field 'priority'"),
    ("add_goal", {"title": "G", "colour": "red"}, "field 'colour': unknown field"),
    ("add_discovery", {"title": "D", "session": "nope"}, "no session 'nope'"),
    ("show_record", {"id": "missing"}, "no record 'missing'"),
    ("set_status", {"id": "missing", "status": "done"}, "no record 'missing'"),
    ("why", {"query": "anything"}, "no decision matches 'anything'"),
    ("list_records", {"kind": ["nonsense"]}, "unknown kind 'nonsense'"),
]


def test_refusals_name_what_is_wrong(store: Store) -> None:
    before = snapshot(store.root)

    async def steps(c: mcp.Client) -> list[Any]:
        return [await c.call_tool(tool, args) for tool, args, _ in REFUSALS]

    for (tool, _, needle), got in zip(REFUSALS, call(store, steps), strict=True):
        assert got.is_error and needle in text(got), (tool, text(got))
    assert snapshot(store.root) == before


def test_records_status_lists_and_next_steps(store: Store) -> None:
    async def steps(c: mcp.Client) -> list[Any]:
        return [
            await c.call_tool("add_task", {"title": "Calibrate FP8 KV scales", "priority": 2, "status": "proposed"}),
            await c.call_tool("add_task", {"title": "Re-test NEXTN on real prompts", "priority": 1}),
            # Clients that send nested values as JSON text are understood too.
            await c.call_tool("add_benchmark", {"title": "c=1024", "metrics": '[{"name": "out", "value": 2100, "unit": "tok/s"}]'}),
            await c.call_tool("set_status", {"id": "re-test-nextn-on-real-prompts", "status": "done", "source": "msg 7000"}),
            await c.call_tool("set_status", {"id": "calibrate-fp8-kv-scales", "status": "finished"}),
            await c.call_tool("list_records", {"kind": ["task"], "grep": "fp8"}),
            await c.call_tool("next_steps", {}),
            await c.call_tool("list_sessions", {}),
            await c.call_tool("check", {}),
        ]

    added1, added2, bench, done, bad_status, listed, nxt, sessions, checked = call(store, steps)
    assert not (added1.is_error or added2.is_error or bench.is_error), text(bench)
    assert json.loads(text(bench))["record"]["metrics"][0]["value"] == 2100
    assert json.loads(text(done))["to"] == "done"
    assert "Statedump-Source: msg 7000" in git(store.root, "log", "-1", "--format=%B")
    assert text(bad_status).endswith("'finished' is not a task status (use one of: proposed, todo, in-progress, done, blocked, dropped)")
    assert [r["id"] for r in json.loads(text(listed))["records"]] == ["calibrate-fp8-kv-scales"]
    assert [t["id"] for t in json.loads(text(nxt))["tasks"]] == ["calibrate-fp8-kv-scales"]
    assert json.loads(text(sessions))["sessions"] == [{"id": "s1", "title": "Test session", "status": "active"}]
    assert json.loads(text(checked)) == {"session": "s1", "ok": True, "findings": []}


def test_secrets_are_redacted_before_the_commit(store: Store) -> None:
    token = "hf_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6"
    got = call(store, lambda c: c.call_tool("add_command", {"title": "Login", "text": f"huggingface-cli login --token {token}"}))
    assert not got.is_error, text(got)
    assert token not in (store.root / "sessions/s1/command/login.yaml").read_text()
    assert token not in git(store.root, "log", "-p", "-1")


def test_resources_and_prompts(store: Store) -> None:
    async def steps(c: mcp.Client) -> dict[str, Any]:
        await c.call_tool("add_goal", {"title": "Serve Qwen3.5 on SM120"})
        out: dict[str, Any] = {
            "resources": await c.list_resources(),
            "templates": await c.list_resource_templates(),
            "sessions": await c.read_resource("statedump://sessions"),
            "records": await c.read_resource("statedump://sessions/s1/records"),
            "prompts": await c.list_prompts(),
            "dump": await c.get_prompt("write-state-dump", {}),
        }
        with pytest.raises(MCPError) as missing:
            await c.read_resource("statedump://sessions/s1/records/nope")
        out["missing"] = missing.value
        with pytest.raises(MCPError) as bad_session:
            await c.get_prompt("write-state-dump", {"session": "nope"})
        out["bad_session"] = bad_session.value
        return out

    got = call(store, steps)
    assert [str(r.uri) for r in got["resources"].resources] == ["statedump://sessions"]
    assert {t.uri_template for t in got["templates"].resource_templates} == {
        "statedump://sessions/{session}/state",
        "statedump://sessions/{session}/records",
        "statedump://sessions/{session}/records/{record_id}",
    }
    assert json.loads(got["sessions"].contents[0].text)[0]["state"] == "statedump://sessions/s1/state"
    rows = json.loads(got["records"].contents[0].text)
    assert rows == [
        {
            "id": "serve-qwen3-5-on-sm120",
            "kind": "goal",
            "status": "active",
            "title": "Serve Qwen3.5 on SM120",
            "uri": "statedump://sessions/s1/records/serve-qwen3-5-on-sm120",
        }
    ]
    names = {p.name for p in got["prompts"].prompts}
    assert "write-state-dump" in names
    dump = got["dump"].messages[0].content.text
    assert "session `s1`" in dump and "verbatim" in dump and "add_decision" in dump and "alternatives" in dump
    assert "no record 'nope'" in got["missing"].message
    assert "no session 'nope'" in got["bad_session"].message


def test_every_kind_gets_its_own_schema() -> None:
    for kind, cls in KINDS.items():
        schema = input_schema(kind)
        fields = set(cls.model_fields) - {"kind"}
        assert set(schema["properties"]) == fields | {"session"}, kind
        assert "id" not in schema["required"] and "title" in schema["required"]
        assert "$ref" not in json.dumps(schema), kind  # self-contained, for clients that do not follow refs
    assert input_schema("instruction")["required"] == ["title", "quote"]
    alternative = input_schema("decision")["properties"]["alternatives"]["items"]
    assert alternative["required"] == ["option", "why_not"]


def test_resume_is_the_cli_prompt(store: Store, cli: Cli) -> None:
    assert cli("add", "goal", "--title", "Serve Qwen3.5 on SM120").exit_code == 0
    assert (
        cli("add", "instruction", "--title", "Accuracy", "--field", "quote=Are we reducing accuracy?", "--field", "standing=true").exit_code
        == 0
    )

    async def steps(c: mcp.Client) -> list[Any]:
        return [
            await c.call_tool("resume", {"agent": "claude"}),
            await c.get_prompt("resume-session", {"agent": "claude"}),
            await c.call_tool("resume", {"agent": "nobody"}),
        ]

    tool, prompt, bad = call(store, steps)
    expected = cli("resume", "--for", "claude").output
    assert text(tool) == expected and "Are we reducing accuracy?" in expected
    assert prompt.messages[0].content.text == expected
    assert bad.is_error
    assert text(bad) == "Error executing tool resume: --for: unknown agent 'nobody' (choose one of: plain, opencode, claude, codex)"


def test_the_check_tool_reports_what_check_json_reports(demo_copy: Any) -> None:
    # One service answers both: the advisory findings (a decision that needs review) included.
    store = Store.find(demo_copy)
    got = call(store, lambda c: c.call_tool("check", {}))
    r = Cli(demo_copy)("check", "--json")
    assert json.loads(text(got)) == json.loads(r.output)
    assert any(f["code"] == "decision-needs-review" for f in json.loads(r.output)["findings"])
