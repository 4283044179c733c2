"""`statedump check` and the command-line reader it stands on: drift between decisions and
commands, dangling links, instruction conflicts, superseded decisions, lost benchmark commands."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from helpers import Cli, golden, snapshot

from statedump.models import Benchmark, Command, Decision, Instruction, RecordBase, Session
from statedump.models.state import SessionState
from statedump.services.check import CODES, check, decision_findings, instruction_settings
from statedump.services.flags import parse_command

# -- reading commands ------------------------------------------------------------


def test_shell_continuations_env_prefixes_and_both_flag_forms() -> None:
    text = "NCCL_P2P_LEVEL=SYS \\\n  NCCL_IB_DISABLE=1 \\\n  python -m sglang.launch_server \\\n    --tp-size=8 \\\n    --kv-cache-dtype bf16 --trust-remote-code\n"
    p = parse_command(text)
    assert p.env == {"NCCL_P2P_LEVEL": "SYS", "NCCL_IB_DISABLE": "1"}
    assert p.flags["--tp-size"] == ["8"]
    assert p.value("kv-cache-dtype") == "bf16"
    assert p.values("--trust-remote-code") == [None]
    assert p.programs[0][:3] == ["python", "-m", "sglang.launch_server"]


def test_export_lines_operators_quotes_comments_and_redirects() -> None:
    text = (
        "# start the server\n"
        "export CUDA_VISIBLE_DEVICES='0,1' HF_HOME=/data/hf\n"
        'cd /srv && env TOKENIZERS_PARALLELISM=false python serve.py --name "my model" --port 8000 > log.txt 2>&1 &\n'
        "curl http://h/#frag --max-time 5 | jq . ; echo done  # trailing comment --ignored yes\n"
    )
    p = parse_command(text)
    assert p.env == {"CUDA_VISIBLE_DEVICES": "0,1", "HF_HOME": "/data/hf", "TOKENIZERS_PARALLELISM": "false"}
    assert p.flags["--name"] == ["my model"]
    assert p.flags["--port"] == ["8000"]
    assert p.flags["--max-time"] == ["5"]
    assert "--ignored" not in p.flags
    assert ["curl", "http://h/#frag", "--max-time", "5"] in p.programs


def test_last_value_wins_negative_numbers_and_double_dash() -> None:
    p = parse_command("run --seed -1 --dtype fp8 --dtype bf16 -- --not-a-flag x")
    assert p.flags["--seed"] == ["-1"]
    assert p.values("--dtype") == ["fp8", "bf16"]
    assert p.value("--dtype") == "bf16"
    assert "--not-a-flag" not in p.flags


def test_open_quote_across_lines_and_unbalanced_text_do_not_raise() -> None:
    p = parse_command("python -c 'import x\nprint(1)' --flag v\n")
    assert p.flags["--flag"] == ["v"]
    assert parse_command("echo 'never closed --x 1").flags.get("--x") == ["1"]


def test_systemd_environment_and_execstart_continuations() -> None:
    unit = (
        "[Service]\n"
        'Environment="NCCL_PROTO=Simple" NCCL_BUFFSIZE=8388608\n'
        "Environment=NCCL_P2P_LEVEL=SYS\n"
        "EnvironmentFile=-/etc/default/sglang\n"
        "ExecStartPre=/bin/sleep 5 --pre-flag x\n"
        "ExecStart=-/opt/venv/bin/python -m sglang.launch_server \\\n"
        "    --kv-cache-dtype bf16 \\\n"
        "    --port=30000\n"
        "Restart=on-failure\n"
    )
    p = parse_command(unit, "systemd", {"NCCL_PROTO": "LL"})
    assert p.env == {"NCCL_PROTO": "Simple", "NCCL_BUFFSIZE": "8388608", "NCCL_P2P_LEVEL": "SYS"}
    assert p.value("--kv-cache-dtype") == "bf16"
    assert p.value("--port") == "30000"
    assert "--pre-flag" not in p.flags
    assert "Restart" not in p.env


def test_env_form_and_the_records_env_mapping() -> None:
    p = parse_command("A=1\nexport B=two\n# C=3\n", "env", {"A": "0", "D": "4"})
    assert p.env == {"A": "1", "B": "two", "D": "4"}
    assert p.flags == {}


def test_instruction_settings_from_prose() -> None:
    said = "Always use --kv-cache-dtype fp8_e4m3 and keep NCCL_P2P_LEVEL=PIX, plus --tp-size=8; --verbose --quiet"
    assert instruction_settings(said) == {"--kv-cache-dtype": "fp8_e4m3", "--tp-size": "8", "NCCL_P2P_LEVEL": "PIX"}


# -- findings, on small states ---------------------------------------------------------


def _state(*records: RecordBase) -> SessionState:
    return SessionState(Session(id="s1", title="t"), list(records))


def _cmd(cid: str, text: str, status: str = "current", **extra: Any) -> Command:
    return Command.model_validate({"id": cid, "title": cid, "text": text, "status": status, **extra})


def _decision(did: str, status: str = "accepted", enforces: list[dict[str, str]] | None = None, **extra: Any) -> Decision:
    return Decision.model_validate({"id": did, "title": did, "choice": "x", "status": status, "enforces": enforces or [], **extra})


def test_missing_contradicted_and_not_current_enforcements() -> None:
    state = _state(
        _cmd("launch", "NCCL_PROTO=LL python serve.py --dtype fp8"),
        _cmd("old", "python serve.py --cache on", status="previous"),
        _decision(
            "d1",
            enforces=[
                {"command": "launch", "flag": "--dtype", "value": "bf16"},
                {"command": "launch", "env": "NCCL_PROTO", "value": "Simple"},
                {"command": "launch", "flag": "--quiet"},
                {"command": "old", "flag": "--cache", "value": "on"},
            ],
        ),
        _decision("d2", status="proposed", enforces=[{"command": "launch", "flag": "--other", "value": "1"}]),
    )
    lines = [f.line() for f in check(state)]
    assert lines == [
        "enforcement-missing: decision/d1: enforces --quiet on command launch, but the command does not set flag --quiet",
        "enforcement-contradicted: decision/d1: enforces --dtype bf16 on command launch, but the command has --dtype fp8",
        "enforcement-contradicted: decision/d1: enforces NCCL_PROTO=Simple on command launch, but the command has NCCL_PROTO=LL",
        "enforcement-not-current: decision/d1: enforces --cache on on command old, which is previous, not current",
    ]


def test_dangling_links_and_enforcement_of_a_non_command() -> None:
    state = _state(
        Instruction(id="i1", title="t", quote="q", links={"relates_to": ["ghost"]}),  # type: ignore[arg-type]
        _decision("d1", enforces=[{"command": "i1", "flag": "--x"}, {"command": "gone", "flag": "--y"}]),
    )
    lines = [f.line() for f in check(state)]
    assert "dangling-link: instruction/i1: link relates_to -> ghost: no such record" in lines
    assert "dangling-link: decision/d1: link enforces -> gone: no such record" in lines
    assert "dangling-link: decision/d1: enforces names i1, which is an instruction, not a command" in lines
    assert len(lines) == 3


def test_standing_instruction_contradicted_by_value_or_supersede_link() -> None:
    ask = Instruction(id="ask", title="t", quote="Keep --kv-cache-dtype fp8_e4m3 for capacity", standing=True, source="msg 1")
    cmd = _cmd("launch", "serve --kv-cache-dtype bf16")
    d = _decision("bf16", enforces=[{"command": "launch", "flag": "--kv-cache-dtype", "value": "bf16"}])
    assert [f.line() for f in check(_state(ask, cmd, d))] == [
        "instruction-contradicted: instruction/ask: the user asked for --kv-cache-dtype fp8_e4m3 (msg 1)"
        " but accepted decision bf16 enforces --kv-cache-dtype bf16"
    ]
    # A one-off or finished instruction binds nothing any more.
    done = ask.model_copy(update={"status": "done"})
    assert check(_state(done, cmd, d)) == []
    # A decision that says it supersedes a standing instruction that is still active.
    plain = Instruction(id="plain", title="t", quote="Use the checkpoint defaults", standing=True)
    d2 = _decision("d2", links={"supersedes": ["plain"]})
    found = check(_state(plain, d2))
    assert [f.code for f in found] == ["instruction-contradicted"]
    assert "d2 supersedes this standing instruction" in found[0].message


def test_superseded_decision_still_enforced() -> None:
    cmd = _cmd("launch", "serve --kv-cache-dtype fp8_e4m3 --tp-size 8")
    old = _decision(
        "fp8",
        status="superseded",
        enforces=[
            {"command": "launch", "flag": "--kv-cache-dtype", "value": "fp8_e4m3"},
            {"command": "launch", "flag": "--tp-size", "value": "8"},
        ],
    )
    new = _decision("tp8", enforces=[{"command": "launch", "flag": "--tp-size", "value": "8"}], links={"supersedes": ["fp8"]})
    assert [f.line() for f in check(_state(cmd, old, new))] == [
        "superseded-still-enforced: decision/fp8: superseded, but current command launch still sets --kv-cache-dtype fp8_e4m3"
    ]


def test_one_decisions_findings_are_those_check_reports_for_it() -> None:
    cmd = _cmd("launch", "NCCL_PROTO=LL serve --kv-cache-dtype fp8_e4m3 --tp-size 8")
    old = _cmd("old", "serve --cache on", status="previous")
    fp8 = _decision("fp8", status="superseded", enforces=[{"command": "launch", "flag": "--kv-cache-dtype", "value": "fp8_e4m3"}])
    tp8 = _decision(
        "tp8",
        enforces=[
            {"command": "launch", "flag": "--tp-size", "value": "8"},
            {"command": "launch", "env": "NCCL_PROTO", "value": "Simple"},
            {"command": "old", "flag": "--cache", "value": "on"},
            {"command": "launch", "flag": "--quiet"},
            {"command": "gone", "flag": "--y"},
        ],
    )
    proposed = _decision("maybe", status="proposed", enforces=[{"command": "launch", "flag": "--other", "value": "1"}])
    state = _state(cmd, old, fp8, tp8, proposed)
    everything = check(state)
    for d in (fp8, tp8, proposed):
        own = [f for f in everything if f.where == f"decision/{d.id}" and f.code.startswith(("enforcement-", "superseded-"))]
        assert decision_findings(state, d) == own
    assert [f.code for f in decision_findings(state, tp8)] == ["enforcement-missing", "enforcement-contradicted", "enforcement-not-current"]
    assert [f.code for f in decision_findings(state, fp8)] == ["superseded-still-enforced"]
    assert decision_findings(state, proposed) == []


def test_benchmark_whose_command_is_gone() -> None:
    b = Benchmark(id="b1", title="t", links={"produced_by": ["bench-cmd"]})  # type: ignore[arg-type]
    found = check(_state(b))
    assert [f.line() for f in found] == ["benchmark-command-missing: benchmark/b1: produced_by command bench-cmd no longer exists"]
    assert all(f.code in CODES for f in found)


# -- the CLI on the demo ---------------------------------------------------------------


def test_check_passes_on_the_demo(demo_root: Path) -> None:
    r = Cli(demo_root)("check")
    assert r.exit_code == 0, r.output
    golden("check-demo.txt", r.output, mask_shas=True)
    data = json.loads(Cli(demo_root)("check", "--json").output)
    # The one finding is advisory (the decision handoff lists for review): it does not fail.
    assert data["ok"] is True and [f["code"] for f in data["findings"]] == ["decision-needs-review"]


def test_check_fails_after_the_launch_command_is_edited_to_fp8(demo_copy: Path) -> None:
    cli = Cli(demo_copy)
    text = json.loads(cli("show", "launch-server", "--json").output)["text"]
    assert (
        cli("edit", "launch-server", "--field", f"text={text.replace('--kv-cache-dtype bf16', '--kv-cache-dtype fp8_e4m3')}").exit_code == 0
    )
    r = cli("check")
    assert r.exit_code == 1
    golden("check-fp8.txt", r.stdout, mask_shas=True)
    line = r.stdout.splitlines()[0]
    for needle in ("bf16-kv-cache", "launch-server", "--kv-cache-dtype", "bf16", "fp8_e4m3"):
        assert needle in line
    # The edit also puts the decisions enforced on the command up for review, as handoff says
    # (advisory: not what fails).
    assert "5 findings" in r.stderr
    data = json.loads(cli("check", "--json").output)
    assert data["ok"] is False and data["findings"][0]["code"] == "enforcement-contradicted"
    # The state before the edit still passes.
    assert cli("check", "--at", "HEAD~1").exit_code == 0


def test_check_bad_revision_is_one_line_and_changes_nothing(demo_copy: Path) -> None:
    before = snapshot(demo_copy)
    r = Cli(demo_copy)("check", "--at", "dump/7")
    assert r.exit_code == 2
    assert r.output.startswith("statedump: dump/7: no dump 7") and r.output.count("\n") == 1
    assert snapshot(demo_copy) == before
