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


def test_shell_script_blocks() -> None:
    free, launch, bench = read_plan("shell", FIXTURES / "deploy.sh").records
    assert isinstance(launch, Command)
    assert [c.id for c in (free, launch, bench)] == ["deploy-1", "deploy-2", "deploy-3"]
    assert free.title == "Free the GPUs" and free.purpose == "Kill every process that holds a GPU device file."  # type: ignore[attr-defined]
    # The export block is the environment the later commands run with.
    assert launch.env == {"NCCL_P2P_LEVEL": "SYS", "NCCL_IB_DISABLE": "1"}
    assert launch.text.startswith("python -m sglang.launch_server \\\n  --model-path")
    assert "`--tp-size 8`" in (launch.body or "")
    assert bench.title == "Benchmark at concurrency 64"


def test_secrets_in_commands_are_redacted_on_import(cli: Cli, store: Store) -> None:
    assert cli("import", "shell", str(FIXTURES / "deploy.sh")).exit_code == 0
    assert cli("import", "systemd", str(FIXTURES / "sglang-qwen35.service")).exit_code == 0
    launch = store.get("s1", "deploy-2")
    assert "--api-key <redacted>" in launch.text  # type: ignore[attr-defined]
    unit = store.get("s1", "sglang-qwen35-service")
    assert 'Environment="HF_TOKEN=<redacted>"' in unit.text  # type: ignore[attr-defined]
    blob = b"".join(p.read_bytes() for p in store.root.rglob("*.yaml"))
    assert b"sk-local-test-key" not in blob and b"plain-secret-value" not in blob
