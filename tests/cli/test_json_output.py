"""Every `--json` output and every MCP result parses as JSON, for real benchmark files whose
request rate is infinite: SGLang's JSONL writes a bare `Infinity`, vLLM the string "inf".
The one encoder writes non-finite numbers as "inf", "-inf" and "nan"."""

from __future__ import annotations

import json
import math
from typing import Any

import anyio
import mcp
import pytest
from helpers import CORPUS_REAL, Cli

from statedump.core.render.json import plain, to_json
from statedump.core.store.store import Store
from statedump.mcpserver import build_server

BENCH = CORPUS_REAL / "files" / "bench"
SGLANG = BENCH / "sglang_h200_llama33_70b_offline.jsonl"
VLLM = BENCH / "vllm_bench_serve_opt125m_c2.json"


def _strict(text: str) -> Any:
    """JSON as a strict reader takes it: `Infinity` and `NaN` are not JSON."""

    def refuse(token: str) -> None:
        raise ValueError(f"not JSON: {token}")

    return json.loads(text, parse_constant=refuse)


def test_the_encoder_writes_non_finite_numbers_as_vllm_does() -> None:
    data = {"rate": math.inf, "low": -math.inf, "odd": math.nan, "nested": [{"r": math.inf}], "t": (1.5, 2)}
    assert _strict(to_json(data)) == {"rate": "inf", "low": "-inf", "odd": "nan", "nested": [{"r": "inf"}], "t": [1.5, 2]}
    assert to_json([math.inf], indent=None) == '["inf"]'
    assert plain({"n": 1, "ok": True, "none": None}) == {"n": 1, "ok": True, "none": None}


@pytest.fixture
def benched(store: Store, cli: Cli) -> Cli:
    """The real files imported, a decision resting on one of them, a dump, and a benchmark whose
    rate went from 4 to infinite since."""
    for fmt, path in (("sglang-bench", SGLANG), ("vllm-bench", VLLM)):
        r = cli("import", fmt, str(path), "--json")
        assert r.exit_code == 0, r.output
        _strict(r.stdout)
    ids = [rec["id"] for rec in _strict(cli("list", "--json").stdout)]
    decision = ("--id", "rate-inf", "--title", "Unbounded rate", "--status", "accepted", "--field", "choice=--request-rate inf")
    steps = [
        ("add", "decision", *decision, "--link", f"evidence:{ids[0]}"),
        ("add", "benchmark", "--id", "probe", "--title", "probe", "--field", "request_rate=4"),
        ("dump", "-m", "before"),
        ("edit", "probe", "--field", "request_rate=.inf"),
    ]
    for args in steps:
        r = cli(*args)
        assert r.exit_code == 0, (args, r.output)
    return cli


def test_every_read_command_prints_json_with_infinite_rates(benched: Cli) -> None:
    cli = benched
    records = _strict(cli("list", "--json").stdout)
    rates = {r["id"]: r.get("request_rate") for r in records if r["kind"] == "benchmark"}
    assert len(rates) == 9 and set(rates.values()) == {"inf"}
    for rid in rates:
        shown = _strict(cli("show", rid, "--json").stdout)
        assert shown["request_rate"] == "inf", rid
    assert _strict(cli("show", "probe", "--at", "1", "--json").stdout)["request_rate"] == 4
    changed = _strict(cli("diff", "1", "--json").stdout)["changes"]
    assert [(c["id"], c["fields"]) for c in changed] == [("probe", [{"field": "request_rate", "old": 4, "new": "inf"}])]
    assert "    request_rate: 4.0 -> inf" in cli("diff", "1").stdout.splitlines()
    for args in (("log",), ("log", "probe"), ("dumps",), ("sessions",), ("why", "rate-inf"), ("resume",), ("validate",), ("doctor",)):
        r = cli(*args, "--json")
        assert r.exit_code == 0, (args, r.output)
        _strict(r.stdout)
    r = cli("check", "--json")
    assert set(_strict(r.stdout)) == {"session", "ok", "findings"}
    bench = [rid for rid in rates if rid.startswith("sglang")][:2]
    r = cli("bench", "compare", *bench, "--json")
    assert r.exit_code in (0, 1), r.output
    _strict(r.stdout)


def test_every_mcp_result_is_json_with_infinite_rates(benched: Cli, store: Store) -> None:
    async def run() -> list[Any]:
        async with mcp.Client(build_server(store)) as c:
            listed = await c.call_tool("list_records", {"kind": ["benchmark"]})
            ids = [r["id"] for r in _strict("".join(x.text for x in listed.content))["records"]]
            calls = [listed]
            calls += [await c.call_tool("show_record", {"id": rid}) for rid in ids]
            calls.append(await c.call_tool("why", {"query": "rate-inf", "format": "json"}))
            calls.append(await c.call_tool("check", {}))
            calls.append(await c.call_tool("list_sessions", {}))
            calls.append(await c.call_tool("next_steps", {}))
            calls.append(await c.call_tool("set_status", {"id": "probe", "status": "stale"}))
            resources = [await c.read_resource(uri) for uri in ("statedump://sessions", "statedump://sessions/s1/records")]
            return [calls, resources]

    calls, resources = anyio.run(run)
    shown = []
    for result in calls:
        assert not result.is_error, result
        data = _strict("".join(c.text for c in result.content))
        # Structured content is the same data for clients that read it instead of the text.
        json.dumps(result.structured_content, allow_nan=False)
        shown.append(data)
    assert {d.get("request_rate") for d in shown[1:10]} == {"inf"}
    for res in resources:
        _strict("".join(c.text for c in res.contents))


def test_check_has_one_shape_for_the_cli_and_mcp(benched: Cli, store: Store) -> None:
    async def run() -> Any:
        async with mcp.Client(build_server(store)) as c:
            return await c.call_tool("check", {})

    result = anyio.run(run)
    assert _strict("".join(c.text for c in result.content)) == _strict(benched("check", "--json").stdout)
