"""`statedump drift` against files and a loopback HTTP server (no other network), and
`check` agreeing with `handoff` about reviews and stale benchmarks. The process sources are
in tests/e2e/test_drift_processes.py."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from helpers import Cli, git, golden, snapshot

from statedump.services.drift.http import vllm_live

SESSION = "qwen35-397b-a17b-nvfp4"


def _text(cli: Cli, rid: str) -> str:
    text: str = json.loads(cli("show", rid, "--json").output)["text"]
    return text


@pytest.fixture
def unit(demo_root: Path, tmp_path: Path) -> Path:
    """The demo's systemd unit as installed: the text of command sglang-systemd-unit."""
    path = tmp_path / "sglang-qwen35.service"
    path.write_text(_text(Cli(demo_root), "sglang-systemd-unit"))
    return path


# -- systemd units ---------------------------------------------------------------------


def test_the_demo_unit_holds(demo_root: Path, unit: Path) -> None:
    before = snapshot(demo_root)
    r = Cli(demo_root)("drift", "--unit", str(unit))
    assert r.exit_code == 0, r.output
    golden("drift-demo-unit.txt", r.output.replace(str(unit), "/etc/systemd/system/sglang-qwen35.service"))
    assert snapshot(demo_root) == before


def test_a_drop_in_changing_nccl_is_reported_against_nccl_pcie_env(demo_root: Path, unit: Path) -> None:
    drop = Path(f"{unit}.d")
    drop.mkdir()
    (drop / "10-nccl.conf").write_text("[Service]\nEnvironment=NCCL_P2P_LEVEL=NVL NCCL_BUFFSIZE=4194304\n")
    r = Cli(demo_root)("drift", "--unit", str(unit))
    assert r.exit_code == 1
    assert "CONTRADICTED  nccl-pcie-env: decided NCCL_P2P_LEVEL=SYS (on sglang-systemd-unit), live NCCL_P2P_LEVEL=NVL" in r.output
    assert "CONTRADICTED  nccl-pcie-env: decided NCCL_BUFFSIZE=8388608 (on sglang-systemd-unit), live NCCL_BUFFSIZE=4194304" in r.output
    assert "CHANGED       command sglang-systemd-unit: recorded NCCL_P2P_LEVEL=SYS, live NCCL_P2P_LEVEL=NVL" in r.output
    assert "present       bf16-kv-cache: --kv-cache-dtype bf16" in r.output


def test_environment_files_win_and_an_empty_execstart_clears_the_unit_s(demo_root: Path, unit: Path, tmp_path: Path) -> None:
    env = tmp_path / "nccl.env"
    env.write_text("# tuned\nNCCL_PROTO=LL\n")
    drop = Path(f"{unit}.d")
    drop.mkdir()
    exec_start = _text(Cli(demo_root), "sglang-systemd-unit").split("ExecStart=", 1)[1].split("Restart=")[0]
    (drop / "override.conf").write_text(
        f"[Service]\nEnvironmentFile=-{tmp_path / 'missing.env'}\nEnvironmentFile={env}\nExecStart=\n"
        f"ExecStart={exec_start.replace('--tp-size 8', '--tp-size 4')}"
    )
    data = json.loads(Cli(demo_root)("drift", "--unit", str(unit), "--json").output)
    (live,) = data["live"]
    proto = next(s for s in live["settings"] if s["setting"] == "NCCL_PROTO=Simple")
    assert proto["holds"] == "contradicted" and proto["live"] == "NCCL_PROTO=LL"
    (cmd,) = live["commands"]
    # The flag changed once, not "added" a second time: the first ExecStart was cleared.
    assert {"name": "--tp-size", "change": "changed", "recorded": "--tp-size 8", "live": "--tp-size 4"} in cmd["diffs"]
    assert [d["name"] for d in cmd["diffs"]].count("--tp-size") == 1


def test_unreadable_sources_are_one_line_exit_2_and_change_nothing(demo_root: Path, tmp_path: Path) -> None:
    before = snapshot(demo_root)
    cases = [
        (("--unit", str(tmp_path / "nope.service")), "cannot read unit"),
        (("--pid", "999999999"), "cannot read process 999999999"),
        (("--compose", str(tmp_path / "nope.yaml")), "cannot read compose file"),
        ((), "nothing to compare"),
    ]
    for args, needle in cases:
        r = Cli(demo_root)("drift", *args)
        assert r.exit_code == 2, r.output
        assert r.stdout == "" and len(r.stderr.splitlines()) == 1 and needle in r.stderr, r.stderr
        assert "Traceback" not in r.output
    assert snapshot(demo_root) == before


# -- HTTP --------------------------------------------------------------------------------


def sglang_body(kv: str) -> dict[str, Any]:
    """A `GET /get_server_info` body as SGLang's http_server.py builds it (sgl-project/sglang,
    python/sglang/srt/entrypoints/http_server.py, commit 0025436e): `dataclasses.asdict(server_args)`,
    then the scheduler info, `internal_states` and `version`. Trimmed to the demo's arguments
    plus a few defaults."""
    return {
        "model_path": "nvidia/Qwen3.5-397B-A17B-NVFP4",
        "tokenizer_path": "nvidia/Qwen3.5-397B-A17B-NVFP4",
        "host": "0.0.0.0",
        "port": 30000,
        "tp_size": 8,
        "dp_size": 1,
        "quantization": "modelopt_fp4",
        "kv_cache_dtype": kv,
        "moe_runner_backend": "flashinfer_cutlass",
        "fp4_gemm_backend": "flashinfer_cudnn",
        "attention_backend": "triton",
        "reasoning_parser": "qwen3",
        "tool_call_parser": "qwen3_coder",
        "mem_fraction_static": 0.88,
        "trust_remote_code": False,
        "enable_metrics": True,
        "cuda_graph_bs": [1, 2, 4, 8],
        "max_total_num_tokens": 1572864,
        "max_req_input_len": 262136,
        "internal_states": [{"avg_spec_accept_length": None, "last_gen_throughput": 171.9}],
        "version": "0.5.6",
    }


@pytest.fixture
def http_server() -> Iterator[tuple[str, dict[str, Any]]]:
    """A loopback server; `routes` maps a path to (status, content type, body)."""
    routes: dict[str, Any] = {}

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            status, ctype, body = routes.get(self.path, (404, "text/plain", b"not found"))
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", routes
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def _json_route(body: Any) -> tuple[int, str, bytes]:
    return 200, "application/json", json.dumps(body).encode()


def test_sglang_server_info_over_http(demo_root: Path, http_server: tuple[str, dict[str, Any]]) -> None:
    url, routes = http_server
    routes["/get_server_info"] = _json_route(sglang_body("bf16"))  # an older server: no /server_info
    r = Cli(demo_root)("drift", "--url", url)
    assert r.exit_code == 0, r.output
    assert f"url {url} (sglang)" in r.output and "compared with command launch-server" in r.output
    assert "present       bf16-kv-cache: --kv-cache-dtype bf16 (on launch-server)" in r.output
    # An endpoint does not show the environment: the NCCL settings are unknown, not absent.
    assert "unknown       nccl-pcie-env: NCCL_P2P_LEVEL=SYS" in r.output

    routes["/server_info"] = _json_route(sglang_body("fp8_e4m3"))  # a newer server answers here first
    r = Cli(demo_root)("drift", "--url", url)
    assert r.exit_code == 1
    assert "CONTRADICTED  bf16-kv-cache: decided --kv-cache-dtype bf16 (on launch-server), live --kv-cache-dtype fp8_e4m3" in r.output
    assert "CHANGED       command launch-server: recorded --kv-cache-dtype bf16, live --kv-cache-dtype fp8_e4m3" in r.output
    # Every other server argument is a default the records do not set: not drift.
    assert "ADDED" not in r.output


def test_an_unreachable_url_is_one_line_exit_2(demo_root: Path, http_server: tuple[str, dict[str, Any]]) -> None:
    url, _ = http_server  # answers 404 everywhere: neither SGLang nor vLLM
    for target, needle in ((url, "neither SGLang's /server_info nor vLLM's /v1/models"), ("http://127.0.0.1:9", "cannot reach")):
        r = Cli(demo_root)("drift", "--url", target)
        assert r.exit_code == 2 and r.stdout == ""
        assert len(r.stderr.splitlines()) == 1 and needle in r.stderr and target in r.stderr


def test_vllm_models_and_cache_config_gauge(http_server: tuple[str, dict[str, Any]]) -> None:
    from statedump.services.drift.http import read_url

    url, routes = http_server
    routes["/v1/models"] = _json_route(
        {"object": "list", "data": [{"id": "qwen", "object": "model", "root": "Qwen/Qwen3-8B", "max_model_len": 32768}]}
    )
    metrics = (
        "# HELP vllm:cache_config_info Information of the LLMEngine CacheConfig\n"
        "# TYPE vllm:cache_config_info gauge\n"
        'vllm:cache_config_info{block_size="16",cache_dtype="fp8_e4m3",enable_prefix_caching="True",'
        'engine="0",gpu_memory_utilization="0.9",num_gpu_blocks="None"} 1.0\n'
    )
    routes["/metrics"] = (200, "text/plain; version=0.0.4", metrics.encode())
    live = read_url(url)
    assert live.server == "vllm" and live.all_flags and not live.env_known
    assert live.flags["--kv-cache-dtype"] == ["fp8_e4m3"]
    assert live.flags["--max-model-len"] == ["32768"] and live.flags["--model"] == ["Qwen/Qwen3-8B"]
    assert live.flags["--enable-prefix-caching"] == [None] and live.flags["--gpu-memory-utilization"] == ["0.9"]
    assert vllm_live(url, {}, None).flags == {}


# -- containers -------------------------------------------------------------------------------


def test_compose_and_docker_inspect_files(demo_root: Path, tmp_path: Path) -> None:
    compose = tmp_path / "compose.yaml"
    compose.write_text(
        "services:\n"
        "  sglang:\n"
        "    image: lmsysorg/sglang\n"
        "    command: python3 -m sglang.launch_server --model-path nvidia/Qwen3.5-397B-A17B-NVFP4 --kv-cache-dtype fp8_e4m3\n"
        "    environment:\n"
        "      NCCL_P2P_LEVEL: SYS\n"
        "  cache:\n"
        "    image: redis\n"
        "    command: redis-server\n"
    )
    data = json.loads(Cli(demo_root)("drift", "--compose", str(compose), "--json").output)
    (live,) = data["live"]  # only the service that runs a server
    assert live["source"] == f"compose {compose} service sglang"
    held = {s["setting"]: s["holds"] for s in live["settings"]}
    assert held["--kv-cache-dtype bf16"] == "contradicted" and held["NCCL_P2P_LEVEL=SYS"] == "present"
    assert held["NCCL_PROTO=Simple"] == "absent"

    inspect = tmp_path / "inspect.json"
    inspect.write_text(
        json.dumps(
            [
                {
                    "Id": "0123456789abcdef",
                    "Name": "/sglang",
                    "Config": {
                        "Entrypoint": ["python3", "-m", "sglang.launch_server"],
                        "Cmd": ["--model-path", "nvidia/Qwen3.5-397B-A17B-NVFP4", "--kv-cache-dtype", "bf16"],
                        "Env": ["PATH=/usr/bin", "NCCL_P2P_LEVEL=SYS"],
                    },
                }
            ]
        )
    )
    data = json.loads(Cli(demo_root)("drift", "--inspect", str(inspect), "--json").output)
    held = {s["setting"]: s["holds"] for s in data["live"][0]["settings"]}
    assert data["live"][0]["source"] == "container sglang" and held["--kv-cache-dtype bf16"] == "present"


# -- --record ------------------------------------------------------------------------------------


def test_record_stores_the_unit_once_and_again_when_it_changes(demo_copy: Path, unit: Path) -> None:
    cli = Cli(demo_copy)
    r = cli("drift", "--unit", str(unit), "--record")
    assert r.exit_code == 0 and "recorded: command/observed-unit-sglang-qwen35" in r.output
    rec = json.loads(cli("show", "observed-unit-sglang-qwen35", "--json").output)
    assert rec["form"] == "systemd" and rec["status"] == "current" and rec["links"]["relates_to"] == ["sglang-systemd-unit"]
    assert git(demo_copy, "status", "--porcelain") == ""
    count = git(demo_copy, "rev-list", "--count", "HEAD")
    cli("drift", "--unit", str(unit), "--record")
    assert git(demo_copy, "rev-list", "--count", "HEAD") == count  # unchanged: nothing committed
    # The observed record is never compared with itself: drift still looks at sglang-systemd-unit.
    assert "compared with command sglang-systemd-unit\n" in cli("drift", "--unit", str(unit)).output
    unit.write_text(unit.read_text().replace("--kv-cache-dtype bf16", "--kv-cache-dtype fp8_e4m3"))
    assert cli("drift", "--unit", str(unit), "--record").exit_code == 1
    log = cli("log", "observed-unit-sglang-qwen35").output
    assert log.count("command: observe observed-unit-sglang-qwen35") == 2, log
    assert cli("check").exit_code == 0  # an observation is not a decision's command


# -- check, render and handoff agree ------------------------------------------------------------


def test_check_reports_the_decision_that_needs_review(demo_root: Path) -> None:
    r = Cli(demo_root)("check")
    assert r.exit_code == 0
    assert "decision-needs-review: decision/disable-nextn: evidence bench-nextn-synthetic is now stale" in r.stdout
    assert "disable-nextn" in Cli(demo_root)("handoff").output
    strict = Cli(demo_root)("check", "--strict")
    assert strict.exit_code == 1 and "1 finding" in strict.stderr
    data = json.loads(Cli(demo_root)("check", "--json").output)
    assert data["ok"] is True and data["findings"][0]["advisory"] is True
    assert json.loads(Cli(demo_root)("check", "--json", "--strict").output)["ok"] is False


def _add_fresh_benchmark(cli: Cli) -> None:
    """A benchmark measured now with the demo's bench-serving-c1 command."""
    added = cli(
        "add", "benchmark", "--id", "bench-fresh-c8", "--title", "Fresh c8 run", "--field", "concurrency=8",
        "--field", "metrics=[{name: output_throughput, value: 900, unit: tok/s}]", "--link", "produced_by:bench-serving-c1",
    )  # fmt: skip
    assert added.exit_code == 0, added.output


def test_a_benchmark_is_stale_after_its_command_is_edited(demo_copy: Path) -> None:
    cli = Cli(demo_copy)
    _add_fresh_benchmark(cli)
    assert "benchmark-command-changed" not in cli("check").output
    text = _text(cli, "bench-serving-c1")
    assert cli("edit", "bench-serving-c1", "--field", f"text={text.replace('--num-prompts 16', '--num-prompts 64')}").exit_code == 0
    r = cli("check")
    line = next(x for x in r.stdout.splitlines() if x.startswith("benchmark-command-changed"))
    assert line.startswith("benchmark-command-changed: benchmark/bench-fresh-c8: produced_by command bench-serving-c1 changed since")
    assert ": text " in line  # what changed, as `why` words a change
    assert r.exit_code == 0 and cli("check", "--strict").exit_code == 1
    row = next(x for x in cli("render").output.splitlines() if "bench-fresh-c8" in x)
    assert "stale" in row and "valid" not in row
    handoff = cli("handoff").output
    assert any("bench-fresh-c8" in x and "stale" in x for x in handoff.splitlines())
    # The file is untouched: stale is what the faces show, not a status someone set.
    assert "status: valid" in (demo_copy / "sessions" / SESSION / "benchmark" / "bench-fresh-c8.yaml").read_text()


def test_a_benchmark_is_stale_after_its_command_is_edited_by_hand_and_not_committed(demo_copy: Path) -> None:
    cli = Cli(demo_copy)
    _add_fresh_benchmark(cli)
    path = demo_copy / "sessions" / SESSION / "command" / "bench-serving-c1.yaml"
    path.write_text(path.read_text().replace("--num-prompts 16", "--num-prompts 64"))  # no commit
    r = cli("check")
    assert "benchmark-command-changed: benchmark/bench-fresh-c8: produced_by command bench-serving-c1 changed since" in r.stdout
    path.write_text(path.read_text().replace("--num-prompts 64", "--num-prompts 16"))
    assert "benchmark/bench-fresh-c8" not in cli("check").stdout


def test_a_unit_by_name_is_read_through_systemctl_cat(demo_root: Path, unit: Path, tmp_path: Path) -> None:
    # A stand-in `systemctl` on PATH prints what `systemctl cat NAME` prints: each file after a `# path` line.
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    drop = tmp_path / "override.conf"
    drop.write_text("[Service]\nEnvironment=NCCL_IB_DISABLE=0\n")
    fake = bin_dir / "systemctl"
    fake.write_text(
        f'#!/bin/sh\n[ "$4" = sglang-qwen35.service ] || {{ echo "No files found for $4." >&2; exit 1; }}\n'
        f'echo "# {unit}"; cat "{unit}"; echo; echo "# {drop}"; cat "{drop}"\n'
    )
    fake.chmod(0o755)
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin"}
    r = Cli(demo_root)("drift", "--unit", "sglang-qwen35.service", env=env)
    assert r.exit_code == 1
    assert "unit sglang-qwen35.service (sglang)" in r.output
    assert "CONTRADICTED  nccl-pcie-env: decided NCCL_IB_DISABLE=1 (on sglang-systemd-unit), live NCCL_IB_DISABLE=0" in r.output
    missing = Cli(demo_root)("drift", "--unit", "other.service", env=env)
    assert (
        missing.exit_code == 2
        and missing.stderr == "statedump: --unit: cannot read unit other.service: No files found for other.service.\n"
    )
