"""systemd units and shell scripts become command records with flags and environment read out."""

from __future__ import annotations

from helpers import FIXTURES, Cli

from statedump.core.store.store import Store
from statedump.models import Command
from statedump.services.flags import parse_command
from statedump.services.ingest import read_plan


def test_systemd_unit() -> None:
    (cmd,) = read_plan("systemd", FIXTURES / "sglang-qwen35.service").records
    assert isinstance(cmd, Command)
    assert cmd.id == "sglang-qwen35-service" and cmd.form == "systemd"
    assert cmd.text == (FIXTURES / "sglang-qwen35.service").read_text()
    assert cmd.purpose == "SGLang server for nvidia/Qwen3.5-397B-A17B-NVFP4 (TP8)"
    assert cmd.title == "systemd unit sglang-qwen35.service: python -m sglang.launch_server"
    assert "`--kv-cache-dtype bf16`" in (cmd.body or "") and "`NCCL_PROTO=Simple`" in (cmd.body or "")
    parsed = parse_command(cmd.text, cmd.form)
    assert parsed.value("--tp-size") == "8" and parsed.env["NCCL_IB_DISABLE"] == "1"


def test_shell_script_launches() -> None:
    # One record per launch and per benchmark (was: one per blank-line block, so `fuser -k`
    # was a record of its own and the comment above a block was its title; real scripts
    # gave section headings as titles). The step before the launch is in its body.
    launch, bench = read_plan("shell", FIXTURES / "deploy.sh").records
    assert isinstance(launch, Command) and isinstance(bench, Command)
    assert [c.id for c in (launch, bench)] == ["deploy-1", "deploy-2"]
    assert launch.title == "python -m sglang.launch_server nvidia/Qwen3.5-397B-A17B-NVFP4 (deploy.sh)"
    assert launch.purpose == "Launch the server" and bench.purpose == "Benchmark at concurrency 64"
    # The exported variables are the environment the later commands run with.
    assert launch.env == {"NCCL_P2P_LEVEL": "SYS", "NCCL_IB_DISABLE": "1"}
    assert launch.text.startswith("python -m sglang.launch_server \\\n  --model-path")
    assert "`--tp-size 8`" in (launch.body or "") and "`fuser -k /dev/nvidia* || true`" in (launch.body or "")
    assert bench.tags == ["shell", "benchmark"]


def test_secrets_in_commands_are_redacted_on_import(cli: Cli, store: Store) -> None:
    assert cli("import", "shell", str(FIXTURES / "deploy.sh")).exit_code == 0
    assert cli("import", "systemd", str(FIXTURES / "sglang-qwen35.service")).exit_code == 0
    launch = store.get("s1", "deploy-1")
    assert "--api-key <redacted>" in launch.text  # type: ignore[attr-defined]
    unit = store.get("s1", "sglang-qwen35-service")
    assert 'Environment="HF_TOKEN=<redacted>"' in unit.text  # type: ignore[attr-defined]
    blob = b"".join(p.read_bytes() for p in store.root.rglob("*.yaml"))
    assert b"sk-local-test-key" not in blob and b"plain-secret-value" not in blob
