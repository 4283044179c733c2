"""`statedump drift --pid` and `--process auto` against real processes whose command lines are
the demo's launch command. The "server" is a stand-in package `sglang.launch_server` that
sleeps, so /proc/PID/cmdline reads `python -m sglang.launch_server --model-path ...` exactly
as a real launch would; its environment carries the NCCL values of the launch command."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import Cli, snapshot

from statedump.core.store.store import Store
from statedump.services.flags import parse_command

LIFETIME = 60  # seconds a stand-in server lives if a test dies before killing it

pytestmark = pytest.mark.skipif(not Path("/proc/self/cmdline").exists(), reason="needs /proc")


def _launch_words(demo: Path, kv: str) -> tuple[list[str], dict[str, str]]:
    cmd = Store.find(demo).get("qwen35-397b-a17b-nvfp4", "launch-server")
    parsed = parse_command(cmd.text, "shell")  # type: ignore[attr-defined]
    words = parsed.programs[0][1:]  # what follows `python`: `-m sglang.launch_server --model-path ...`
    words = [kv if w == "bf16" and words[i - 1] == "--kv-cache-dtype" else w for i, w in enumerate(words)]
    return words, parsed.env


@pytest.fixture
def fake_sglang(tmp_path: Path) -> Path:
    pkg = tmp_path / "fake" / "sglang"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "launch_server.py").write_text(f"import time\ntime.sleep({LIFETIME})\n")
    return pkg.parent


@pytest.fixture
def start(fake_sglang: Path, demo_root: Path) -> Iterator[object]:
    started: list[subprocess.Popen[bytes]] = []

    def run(kv: str = "bf16", nccl_proto: str | None = None) -> int:
        words, env = _launch_words(demo_root, kv)
        if nccl_proto:
            env = {**env, "NCCL_PROTO": nccl_proto}
        proc = subprocess.Popen(
            [sys.executable, *words],
            env={**os.environ, **env, "PYTHONPATH": str(fake_sglang)},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        started.append(proc)
        # The interpreter has replaced nothing: argv is what we passed from the first instant.
        deadline = time.monotonic() + 5
        while b"sglang.launch_server" not in Path(f"/proc/{proc.pid}/cmdline").read_bytes():
            assert time.monotonic() < deadline
            time.sleep(0.01)
        return proc.pid

    yield run
    for proc in started:
        proc.kill()
        proc.wait(timeout=5)


def test_drift_passes_on_the_launch_command_through_pid(demo_root: Path, start) -> None:  # type: ignore[no-untyped-def]
    pid = start("bf16")
    before = snapshot(demo_root)
    r = Cli(demo_root)("drift", "--pid", str(pid))
    assert r.exit_code == 0, r.output
    assert f"pid {pid} (sglang)" in r.output and "compared with command launch-server" in r.output
    assert "present       bf16-kv-cache: --kv-cache-dtype bf16 (on launch-server)" in r.output
    # The environment is readable (our own process): the NCCL decision holds there too.
    assert "present       nccl-pcie-env: NCCL_P2P_LEVEL=SYS (on launch-server)" in r.output
    assert r.output.rstrip().endswith("ok: every decided setting holds in 1 live configuration")
    assert snapshot(demo_root) == before


def test_drift_names_bf16_kv_cache_with_the_live_value_through_pid_and_auto(demo_root: Path, start) -> None:  # type: ignore[no-untyped-def]
    pid = start("fp8_e4m3")
    for args in (("--pid", str(pid)), ("--process", "auto")):
        r = Cli(demo_root)("drift", *args)
        assert r.exit_code == 1, r.output
        assert "CONTRADICTED  bf16-kv-cache: decided --kv-cache-dtype bf16 (on launch-server), live --kv-cache-dtype fp8_e4m3" in r.output
        assert "prompted by “Are we doing anything that could be reducing model accuracy?” (msg 6007)" in r.output
        assert "CHANGED       command launch-server: recorded --kv-cache-dtype bf16, live --kv-cache-dtype fp8_e4m3" in r.output
    data = json.loads(Cli(demo_root)("drift", "--pid", str(pid), "--json").output)
    kv = next(s for s in data["live"][0]["settings"] if s["decision"] == "bf16-kv-cache")
    assert kv == {
        "decision": "bf16-kv-cache",
        "setting": "--kv-cache-dtype bf16",
        "commands": ["launch-server"],
        "holds": "contradicted",
        "live": "--kv-cache-dtype fp8_e4m3",
        "prompted_by": ["“Are we doing anything that could be reducing model accuracy?” (msg 6007)"],
    }


def test_process_auto_finds_every_server_and_reads_their_environment(demo_root: Path, start) -> None:  # type: ignore[no-untyped-def]
    good, bad = start("bf16"), start("bf16", nccl_proto="LL")
    r = Cli(demo_root)("drift", "--process", "auto", "--json")
    assert r.exit_code == 1
    lives = {d["source"]: d for d in json.loads(r.output)["live"]}
    assert lives[f"pid {good}"]["ok"] is True
    proto = next(s for s in lives[f"pid {bad}"]["settings"] if s["setting"] == "NCCL_PROTO=Simple")
    assert proto["holds"] == "contradicted" and proto["live"] == "NCCL_PROTO=LL"


def test_record_stores_the_live_process_in_one_commit(demo_copy: Path, start) -> None:  # type: ignore[no-untyped-def]
    pid = start("fp8_e4m3")
    cli = Cli(demo_copy)
    head = snapshot(demo_copy)[0]
    r = cli("drift", "--pid", str(pid), "--record")
    assert r.exit_code == 1 and "recorded: command/observed-sglang-launch-server" in r.output
    log = subprocess.run(["git", "-C", str(demo_copy), "log", "--format=%s", f"{head}..HEAD"], capture_output=True, text=True).stdout
    assert log.splitlines() == ["command: observe observed-sglang-launch-server"]
    rec = json.loads(cli("show", "observed-sglang-launch-server", "--json").output)
    assert rec["status"] == "current" and rec["form"] == "shell" and "observed" in rec["tags"]
    assert "--kv-cache-dtype fp8_e4m3" in rec["text"] and rec["text"].startswith(shlex.quote(sys.executable))
    # Only the variables the records name are kept, never the whole environment.
    assert set(rec["env"]) == {
        "NCCL_P2P_LEVEL",
        "NCCL_IB_DISABLE",
        "NCCL_PROTO",
        "NCCL_MIN_NCHANNELS",
        "NCCL_MAX_NCHANNELS",
        "NCCL_BUFFSIZE",
    }
    # The same process again: nothing new to record.
    again = snapshot(demo_copy)
    cli("drift", "--pid", str(pid), "--record")
    assert snapshot(demo_copy) == again
