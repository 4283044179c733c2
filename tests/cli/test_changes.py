"""Fields as typed, and changing everything (rm, mv, supersede, session edit/close, edit and
status sources): golden transcripts of the real commands on a fixed clock."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

from helpers import Cli, git, golden


def _transcript(cli: Cli, commands: list[str]) -> str:
    out = []
    for line in commands:
        args = shlex.split(line)
        result = cli.runner.invoke(__import__("statedump.cli", fromlist=["main"]).main, args, env={"STATEDUMP_STORE": str(cli.root)})
        out.append(f"$ statedump {line}\n{result.output}[exit {result.exit_code}]\n")
    return "\n".join(out)


def _history(cli: Cli, n: int) -> str:
    return git(cli.root, "log", f"-{n}", "--format=%s%n%(trailers:only)", "--name-status")


FIELDS = [
    "add instruction --title 'comment sign' --field 'quote=use tp=2 # not 4'",
    "add instruction --title 'leading hash' --field 'quote=#1 priority is latency'",
    "add instruction --title 'a yes' --field quote=yes --field standing=true",
    "add instruction --title 'a date' --field quote=2026-03-14",
    "add benchmark --id b1 --title 'TP 8 run' --field environment.tp=8 --field concurrency=64 --field request_rate=inf"
    " --field 'metrics=[{name: output_throughput, value: 1520.5, unit: tok/s}]'",
    "add compat --id c1 --title 'CUDA 12.8 cell' --field component=CUDA --field option=12.8 --field target=SM120"
    ' --field versions.cuda=12.8 --field \'versions={"torch": 2.9, "cuda": 12.10}\'',
    "show comment-sign",
    "show leading-hash",
    "show a-yes",
    "show a-date",
    "show b1",
    "show c1",
]


def test_fields_as_typed(cli: Cli) -> None:
    golden("cli-fields-as-typed.txt", _transcript(cli, FIELDS), mask_shas=True)


def test_yaml_and_json_numbers_where_text_is_expected_keep_their_text(cli: Cli, tmp_path: Path) -> None:
    f = tmp_path / "cell.yaml"
    f.write_text("title: cell\ncomponent: CUDA\noption: yes\ntarget: 2026-03-14\nversions:\n  cuda: 12.10\n  tp: 2\n")
    assert cli("add", "compat", "--from", str(f)).exit_code == 0
    shown = json.loads(cli("show", "cell", "--json").output)
    assert (shown["option"], shown["target"], shown["versions"]) == ("yes", "2026-03-14", {"cuda": "12.10", "tp": "2"})
    # The same rule serves MCP: JSON numbers given to build() for text fields become their text.
    from statedump.services.records import build

    record, _ = build("benchmark", base={"title": "j", "environment": {"tp": 2, "cuda": 12.8}, "concurrency": "8"})
    assert record.environment == {"tp": "2", "cuda": "12.8"} and record.concurrency == 8  # type: ignore[attr-defined]
    metrics = tmp_path / "metrics.json"
    metrics.write_text('[{"name": "ttft", "value": 41.5, "unit": "ms"}]')
    assert cli("add", "benchmark", "--id", "b2", "--title", "from file", "--field", f"metrics=@{metrics}").exit_code == 0
    assert json.loads(cli("show", "b2", "--json").output)["metrics"][0]["value"] == 41.5


CHANGES = [
    "add command --id launch --title 'Launch the server' --field 'text=python -m sglang.launch_server --tp 2' --source 'msg 10'",
    "add benchmark --id bench --title 'Throughput at 64' --source 'msg 11' --link produced_by:launch",
    "add decision --id fp8-kv --title 'FP8 KV cache' --field 'choice=--kv-cache-dtype fp8_e4m3' --status accepted"
    " --field 'enforces=[{command: launch, flag: --kv-cache-dtype, value: fp8_e4m3}]' --link evidence:bench",
    "add decision --id bf16-kv --title 'BF16 KV cache' --field 'choice=--kv-cache-dtype bf16'",
    "edit launch --field 'text=python -m sglang.launch_server --tp 2 --kv-cache-dtype bf16' --source 'msg 44'",
    "status bench stale --source 'msg 45'",
    "supersede fp8-kv bf16-kv --source 'msg 46'",
    "mv launch launch-server",
    "rm launch-server",
    "rm bench --force --source 'msg 47'",
    "add task --title 'Re-run at 1024' --link relates_to:bf16-kv",
    "add task --title 're-run  at 1024'",
    "list",
    "session edit --title 'Qwen3.5 on SM120' --hardware 'RTX PRO 6000' --source 'msg 48'",
    "session close",
    "sessions",
]


def test_change_everything_one_commit_each(cli: Cli) -> None:
    before = int(git(cli.root, "rev-list", "--count", "HEAD"))
    text = _transcript(cli, CHANGES)
    # 5 adds, edit, status, supersede, mv, rm --force, session edit, session close: one commit each.
    assert int(git(cli.root, "rev-list", "--count", "HEAD")) == before + 12, git(cli.root, "log", "--format=%s")
    golden("cli-changes.txt", text + "\n$ git log\n" + _history(cli, 8), mask_shas=True)
    assert git(cli.root, "status", "--porcelain") == ""


def test_edit_and_status_commits_carry_the_source_of_the_change(cli: Cli) -> None:
    cli("add", "task", "--id", "t", "--title", "Calibrate", "--source", "msg 6")
    cli("edit", "t", "--title", "Calibrate FP8 scales", "--source", "msg 44")
    cli("status", "t", "done")
    trailers = git(cli.root, "log", "-3", "--format=%(trailers:key=Statedump-Source,valueonly)|").split("|")
    assert [t.strip() for t in trailers[:3]] == ["", "msg 44", "msg 6"]


def test_schema_shows_the_nested_types(cli: Cli) -> None:
    shown = [cli("schema", "--show", name) for name in ("metric", "alternative", "tradeoff", "enforcement")]
    assert all(r.exit_code == 0 for r in shown)
    golden("schema-show-nested.txt", "\n".join(r.output for r in shown))
    assert "`statedump schema --show metric`" in cli("schema", "--show", "benchmark").output
