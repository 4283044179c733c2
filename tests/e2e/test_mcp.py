"""The MCP server: `statedump mcp` driven over stdio by the SDK's client, and the tools,
resources and prompts checked in-process through the same SDK client."""

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

from statedump import __version__
from statedump.core.store.store import Store
from statedump.mcpserver import build_server
from statedump.mcpserver.kinds import kind_schema
from statedump.models import KINDS
from statedump.services.report.tokens import estimate_tokens

DISCOVERY = {
    "kind": "discovery",
    "title": "FP8 KV cache runs with scale 1.0",
    "category": "risk",
    "source": "msg 6008",
    "body": "No scaling factors in the checkpoint; SGLang defaults them to 1.0.",
}
DECISION = {
    "kind": "decision",
    "id": "bf16-kv-cache",
    "title": "BF16 KV cache instead of FP8",
    "status": "accepted",
    "question": "Which KV cache dtype?",
    "choice": "--kv-cache-dtype bf16",
    "alternatives": [{"option": "FP8 KV cache", "why_not": "no calibrated scales"}],
    "tradeoffs": [{"aspect": "KV capacity", "before": "3.15M", "after": "1.57M", "unit": "tokens"}],
    "links": {"evidence": ["fp8-kv-cache-runs-with-scale-1-0"]},
}
READS = {"state_document", "list_sessions", "list_records", "show_record", "describe_kind", "next_steps", "why", "check", "resume"}
WRITES = {"add_record", "update_record", "remove_record", "set_status", "dump"}
TOOL_BUDGET = 4000


def text(result: Any) -> str:
    return "".join(c.text for c in result.content)


def server_env() -> dict[str, str]:
    keep = ("HOME", "PATH", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_NOSYSTEM", "STATEDUMP_NOW", "PYTHONPATH")
    return {k: os.environ[k] for k in keep if k in os.environ}


def stdio_params(store: Store) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable, args=["-m", "statedump", "mcp", "--store", str(store.root)], env=server_env(), cwd=str(store.root)
    )


def commits(store: Store) -> int:
    return int(git(store.root, "rev-list", "--count", "HEAD"))


def test_statedump_mcp_over_stdio(store: Store) -> None:
    """The acceptance path with the real client on a real server process: the tool list fits
    its budget, records go in, `update_record` changes one field in one commit, results carry
    structuredContent, an invalid record is refused with nothing written."""
    before = commits(store)

    async def session() -> dict[str, Any]:
        out: dict[str, Any] = {}
        with anyio.fail_after(60):
            async with stdio_client(stdio_params(store)) as (read, write), ClientSession(read, write) as s:
                init = await s.initialize()
                out["server"] = init.server_info
                listed = await s.list_tools()
                out["listed"] = listed
                out["discovery"] = await s.call_tool("add_record", DISCOVERY)
                out["decision"] = await s.call_tool("add_record", DECISION)
                out["commits_before_update"] = commits(store)
                out["update"] = await s.call_tool(
                    "update_record", {"id": "bf16-kv-cache", "fields": {"rationale": "Accuracy first (msg 6007)."}, "source": "msg 6040"}
                )
                out["commits_after_update"] = commits(store)
                out["show"] = await s.call_tool("show_record", {"id": "bf16-kv-cache"})
                out["resource"] = await s.read_resource("statedump://sessions/s1/records/fp8-kv-cache-runs-with-scale-1-0")
                out["schema"] = await s.read_resource("statedump://schema/decision")
                out["why"] = await s.call_tool("why", {"query": "kv-cache-dtype"})
                out["dump"] = await s.call_tool("dump", {"message": "after the KV cache decision"})
                out["before_bad"] = snapshot(store.root)
                out["bad"] = await s.call_tool("add_record", {"kind": "decision", "title": "No choice given", "status": "chosen"})
                out["after_bad"] = snapshot(store.root)
        return out

    got = anyio.run(session)
    assert got["server"].name == "statedump" and got["server"].version == __version__
    tools = {t.name: t for t in got["listed"].tools}
    assert tools.keys() == READS | WRITES
    serialized = got["listed"].model_dump_json(by_alias=True, exclude_none=True)
    assert estimate_tokens(serialized) < TOOL_BUDGET, estimate_tokens(serialized)
    for name in READS:
        assert tools[name].annotations.read_only_hint is True, name
    for name in WRITES:
        assert tools[name].annotations.read_only_hint is False, name
    assert tools["remove_record"].annotations.destructive_hint is True
    add_schema = tools["add_record"].input_schema
    assert add_schema["required"] == ["kind", "title"] and add_schema["properties"]["kind"]["enum"] == list(KINDS)
    # Every kind's own required fields are named in the one tool's description.
    assert "decision (proposed|accepted|superseded|rejected): question, choice*" in tools["add_record"].description

    for key in ("discovery", "decision", "update", "show", "dump"):
        assert not got[key].is_error, text(got[key])
        # The same data twice: as JSON text for older clients, as structuredContent.
        assert got[key].structured_content == json.loads(text(got[key])), key
    assert got["discovery"].structured_content["record"]["id"] == "fp8-kv-cache-runs-with-scale-1-0"

    update = got["update"].structured_content
    assert update["changed"] == ["rationale"] and update["record"]["rationale"] == "Accuracy first (msg 6007)."
    assert got["commits_after_update"] == got["commits_before_update"] + 1
    assert git(store.root, "show", "--name-only", "--format=", update["commit"]).split() == ["sessions/s1/decision/bf16-kv-cache.yaml"]
    assert "Statedump-Source: msg 6040" in git(store.root, "log", "-1", "--format=%B", update["commit"])
    shown = got["show"].structured_content
    assert shown["choice"] == "--kv-cache-dtype bf16" and shown["rationale"] == "Accuracy first (msg 6007)."
    assert shown["links"]["evidence"] == ["fp8-kv-cache-runs-with-scale-1-0"]

    assert "category: risk" in got["resource"].contents[0].text
    schema = json.loads(got["schema"].contents[0].text)
    assert schema["schema"]["properties"]["alternatives"]["items"]["required"] == ["option", "why_not"]
    why = text(got["why"])
    assert "bf16-kv-cache" in why and "1.57M" in why and got["why"].structured_content is None  # Markdown stays text
    assert got["dump"].structured_content["tag"] == "dump/s1/1"
    assert git(store.root, "tag", "-l", "dump/s1/*").split() == ["dump/s1/1"]

    bad = text(got["bad"])
    assert got["bad"].is_error and "field 'status'" in bad and "field 'choice'" in bad
    assert got["after_bad"] == got["before_bad"]
    assert commits(store) == before + 3  # two adds and one update; the refused add wrote nothing


def test_mcp_without_a_store_fails_like_the_cli(cli: Cli, tmp_path: Any) -> None:
    r = cli("mcp", "--store", str(tmp_path / "nowhere"))
    assert r.exit_code == 2
    assert "no such folder" in r.stderr  # a --store that is not there at all


# -- in-process: the same server object and the SDK's client, no subprocess ----------------


def call(store: Store, steps: Callable[[mcp.Client], Awaitable[Any]]) -> Any:
    async def run() -> Any:
        async with mcp.Client(build_server(store)) as client:
            return await steps(client)

    return anyio.run(run)


def test_a_bad_record_carries_the_cli_message_and_writes_nothing(store: Store, cli: Cli) -> None:
    before = snapshot(store.root)
    got = call(store, lambda c: c.call_tool("add_record", {"kind": "decision", "title": "X", "choice": "y", "status": "bogus"}))
    assert got.is_error
    assert snapshot(store.root) == before
    r = cli("add", "decision", "--title", "X", "--field", "choice=y", "--status", "bogus")
    assert r.exit_code == 2
    # The same reason, without the CLI's advice about its own flags.
    reason = r.stderr.strip().removeprefix("statedump: ").split(" (", 1)[0]
    assert text(got).startswith(f"Error executing tool add_record: {reason}")


REFUSALS: list[tuple[str, dict[str, Any], str]] = [
    ("add_record", {"kind": "decision", "title": "Z", "choice": "c", "links": {"evidence": ["nope"]}}, "link evidence -> 'nope'"),
    ("add_record", {"kind": "task", "title": "T", "priority": 0}, "field 'priority'"),
    ("add_record", {"kind": "goal", "title": "G", "colour": "red"}, "field 'colour': unknown field"),
    ("add_record", {"kind": "discovery", "title": "D", "session": "nope"}, "session: no session 'nope' (`list_sessions` lists them)"),
    ("add_record", {"kind": "discovery", "title": "D", "session": 5}, "session: must be a session id (text), not 5"),
    ("add_record", {"kind": "widget", "title": "W"}, 'kind: "widget" is not a kind (use one of: goal, '),
    ("add_record", {"title": "W"}, "kind: missing (use one of: goal, "),
    ("add_record", {"kind": "decision", "title": "No choice"}, "field 'choice': is required (give choice)"),
    ("show_record", {"id": "missing"}, "no record 'missing'"),
    ("show_record", {}, "arguments: field 'id': is required (show_record takes: id, session)"),
    ("show_record", {"id": "x", "session": 5}, "arguments: field 'session': must be text"),
    ("set_status", {"id": "missing", "status": "done"}, "no record 'missing'"),
    ("update_record", {"id": "missing", "fields": {"body": "b"}}, "no record 'missing'"),
    ("update_record", {"id": "missing", "fields": {}}, "fields: give the fields to change"),
    ("remove_record", {"id": "missing"}, "no record 'missing'"),
    ("why", {"query": "anything"}, "no decision matches 'anything'"),
    ("list_records", {"kind": ["nonsense"]}, "kind: unknown kind 'nonsense'"),
    ("describe_kind", {"kind": "nonsense"}, "kind: unknown kind 'nonsense'"),
    ("dump", {"message": "  "}, "message: the dump message is empty"),
]


def test_refusals_name_what_is_wrong_in_the_servers_words(store: Store) -> None:
    before = snapshot(store.root)

    async def steps(c: mcp.Client) -> list[Any]:
        return [await c.call_tool(tool, args) for tool, args, _ in REFUSALS]

    for (tool, args, needle), got in zip(REFUSALS, call(store, steps), strict=True):
        message = text(got)
        assert got.is_error and needle in message, (tool, args, message)
        # Written for an agent: no pydantic dump, no command-line flag to type.
        assert "validation error for" not in message and "Arguments" not in message, message
        assert " --" not in message and "`statedump " not in message and " -s" not in message, message
        assert message.count("\n") == 0, message
    assert snapshot(store.root) == before


def test_update_and_remove(store: Store) -> None:
    async def steps(c: mcp.Client) -> dict[str, Any]:
        out = {}
        out["bench"] = await c.call_tool(
            "add_record", {"kind": "benchmark", "title": "c=1024", "metrics": '[{"name": "out", "value": 2100, "unit": "tok/s"}]'}
        )
        out["task"] = await c.call_tool("add_record", {"kind": "task", "title": "Re-run at c=1024", "links": {"relates_to": ["c-1024"]}})
        out["same"] = await c.call_tool("update_record", {"id": "c-1024", "fields": {"title": "c=1024"}})
        out["cleared"] = await c.call_tool("update_record", {"id": "c-1024", "fields": {"concurrency": 1024, "workload": None}})
        out["bad"] = await c.call_tool("update_record", {"id": "c-1024", "fields": {"concurrency": "many"}})
        out["id"] = await c.call_tool("update_record", {"id": "c-1024", "fields": {"id": "other"}})
        out["linked"] = await c.call_tool("remove_record", {"id": "c-1024"})
        out["gone"] = await c.call_tool("remove_record", {"id": "c-1024", "force": True})
        out["gone_task"] = await c.call_tool("remove_record", {"id": "re-run-at-c-1024", "source": "added twice"})
        return out

    got = call(store, steps)
    assert not got["bench"].is_error, text(got["bench"])
    assert got["bench"].structured_content["record"]["metrics"][0]["value"] == 2100  # JSON text read as JSON
    assert got["same"].structured_content["commit"] is None and got["same"].structured_content["changed"] == []
    assert got["cleared"].structured_content["changed"] == ["concurrency"]
    assert got["bad"].is_error and "field 'concurrency'" in text(got["bad"])
    assert got["id"].is_error and "an edit cannot change the id" in text(got["id"])
    linked = text(got["linked"])
    assert got["linked"].is_error and "re-run-at-c-1024 (relates_to)" in linked and "give `force: true`" in linked
    assert not got["gone"].is_error and not got["gone_task"].is_error, text(got["gone"])
    assert got["gone"].structured_content["unlinked"] == ["re-run-at-c-1024"]
    assert not (store.root / "sessions/s1/benchmark/c-1024.yaml").exists()
    # One commit removed the benchmark and the task's link to it.
    removed = got["gone"].structured_content["commit"]
    assert sorted(git(store.root, "show", "--name-status", "--format=", removed).split()) == sorted(
        ["D", "sessions/s1/benchmark/c-1024.yaml", "M", "sessions/s1/task/re-run-at-c-1024.yaml"]
    )
    assert "Statedump-Source: added twice" in git(store.root, "log", "-1", "--format=%B", got["gone_task"].structured_content["commit"])
    assert not (store.root / "sessions/s1/task/re-run-at-c-1024.yaml").exists()


def test_records_status_lists_and_next_steps(store: Store) -> None:
    async def steps(c: mcp.Client) -> list[Any]:
        return [
            await c.call_tool("add_record", {"kind": "task", "title": "Calibrate FP8 KV scales", "priority": 2, "status": "proposed"}),
            await c.call_tool("add_record", {"kind": "task", "title": "Re-test NEXTN on real prompts", "priority": 1}),
            await c.call_tool("set_status", {"id": "re-test-nextn-on-real-prompts", "status": "done", "source": "msg 7000"}),
            await c.call_tool("set_status", {"id": "calibrate-fp8-kv-scales", "status": "finished"}),
            await c.call_tool("list_records", {"kind": ["task"], "grep": "fp8"}),
            await c.call_tool("next_steps", {}),
            await c.call_tool("list_sessions", {}),
            await c.call_tool("check", {}),
        ]

    added1, added2, done, bad_status, listed, nxt, sessions, checked = call(store, steps)
    assert not (added1.is_error or added2.is_error)
    assert done.structured_content["to"] == "done"
    assert "Statedump-Source: msg 7000" in git(store.root, "log", "-1", "--format=%B")
    assert text(bad_status).endswith("'finished' is not a task status (use one of: proposed, todo, in-progress, done, blocked, dropped)")
    assert [r["id"] for r in listed.structured_content["records"]] == ["calibrate-fp8-kv-scales"]
    assert [t["id"] for t in nxt.structured_content["tasks"]] == ["calibrate-fp8-kv-scales"]
    assert sessions.structured_content["sessions"] == [{"id": "s1", "title": "Test session", "status": "active"}]
    assert checked.structured_content == {"session": "s1", "ok": True, "findings": []}


def test_secrets_are_redacted_before_the_commit(store: Store) -> None:
    token = "hf_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6"
    got = call(
        store, lambda c: c.call_tool("add_record", {"kind": "command", "title": "Login", "text": f"huggingface-cli login --token {token}"})
    )
    assert not got.is_error, text(got)
    assert token not in (store.root / "sessions/s1/command/login.yaml").read_text()
    assert token not in git(store.root, "log", "-p", "-1")


def test_resources_and_prompts(store: Store) -> None:
    async def steps(c: mcp.Client) -> dict[str, Any]:
        await c.call_tool("add_record", {"kind": "goal", "title": "Serve Qwen3.5 on SM120"})
        out: dict[str, Any] = {
            "resources": await c.list_resources(),
            "templates": await c.list_resource_templates(),
            "sessions": await c.read_resource("statedump://sessions"),
            "records": await c.read_resource("statedump://sessions/s1/records"),
            "schema": await c.read_resource("statedump://schema/instruction"),
            "prompts": await c.list_prompts(),
            "dump": await c.get_prompt("write-state-dump", {}),
        }
        for key, uri in (("missing", "statedump://sessions/s1/records/nope"), ("no_kind", "statedump://schema/widget")):
            with pytest.raises(MCPError) as err:
                await c.read_resource(uri)
            out[key] = err.value
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
        "statedump://schema/{kind}",
    }
    assert json.loads(got["sessions"].contents[0].text)[0]["state"] == "statedump://sessions/s1/state"
    rows = json.loads(got["records"].contents[0].text)
    assert [(r["id"], r["uri"]) for r in rows] == [("serve-qwen3-5-on-sm120", "statedump://sessions/s1/records/serve-qwen3-5-on-sm120")]
    instruction = json.loads(got["schema"].contents[0].text)
    assert instruction["schema"]["required"] == ["title", "quote"] and "quote" in instruction["schema"]["properties"]
    assert {p.name for p in got["prompts"].prompts} == {"write-state-dump", "resume-session"}
    dump = got["dump"].messages[0].content.text
    assert "session `s1`" in dump and "verbatim" in dump and "add_record" in dump and "update_record" in dump and "alternatives" in dump
    assert "no record 'nope'" in got["missing"].message
    assert "unknown kind 'widget'" in got["no_kind"].message
    assert "no session 'nope'" in got["bad_session"].message


def test_every_kind_has_its_whole_schema() -> None:
    for kind, cls in KINDS.items():
        schema = kind_schema(kind)
        fields = set(cls.model_fields) - {"kind"}
        assert set(schema["properties"]) == fields | {"session"}, kind
        assert "id" not in schema["required"] and "title" in schema["required"]
        assert "$ref" not in json.dumps(schema), kind  # self-contained, for clients that do not follow refs
    assert kind_schema("decision")["properties"]["status"]["enum"] == ["proposed", "accepted", "superseded", "rejected"]


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
    assert text(bad) == "Error executing tool resume: agent: unknown agent 'nobody' (choose one of: plain, opencode, claude, codex)"


def test_the_check_tool_reports_what_check_json_reports(demo_copy: Any) -> None:
    # One service answers both: the advisory findings (a decision that needs review) included.
    store = Store.find(demo_copy)
    got = call(store, lambda c: c.call_tool("check", {}))
    r = Cli(demo_copy)("check", "--json")
    assert got.structured_content == json.loads(r.output)
    assert any(f["code"] == "decision-needs-review" for f in json.loads(r.output)["findings"])


def test_a_full_disk_is_one_line_for_the_agent(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    import errno

    import statedump.core.store.store as store_module

    def full(path: Any, data: bytes, **_: Any) -> None:
        raise OSError(errno.ENOSPC, "No space left on device", str(path))

    before = snapshot(store.root)
    monkeypatch.setattr(store_module, "write_atomic", full)
    got = call(store, lambda c: c.call_tool("add_record", {"kind": "task", "title": "Never written"}))
    assert got.is_error
    assert "No space left on device (the disk is full: free some space and run it again)" in text(got), text(got)
    assert text(got).count("\n") == 0
    monkeypatch.undo()
    assert snapshot(store.root) == before


def test_a_dotted_update_reports_its_change_and_filters_read_as_the_cli_does(store: Store) -> None:
    async def steps(c: mcp.Client) -> dict[str, Any]:
        out = {}
        out["bench"] = await c.call_tool("add_record", {"kind": "benchmark", "title": "pp bench", "environment": {"tp": "8"}})
        out["dotted"] = await c.call_tool("update_record", {"id": "pp-bench", "fields": {"environment.pp": 4}})
        out["one_kind"] = await c.call_tool("list_records", {"kind": "benchmark"})
        out["no_such"] = await c.call_tool("list_records", {"kind": "decision", "status": "todo"})
        out["nested"] = await c.call_tool("update_record", {"id": "pp-bench", "fields": {"concurrency.x": 4}})
        return out

    got = call(store, steps)
    assert got["dotted"].structured_content["changed"] == ["environment.pp"]
    assert [r["id"] for r in got["one_kind"].structured_content["records"]] == ["pp-bench"]  # one kind as a plain string
    assert got["no_such"].is_error and "no decision has status 'todo'" in text(got["no_such"])  # as `list --kind decision --status todo`
    assert got["nested"].is_error and "--field" not in text(got["nested"])
