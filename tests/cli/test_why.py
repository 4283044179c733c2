"""`statedump why`: finding the decision, the evidence chain, enforcing commands, commits, review."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers import Cli, git, golden, snapshot
from rich.console import Console
from rich.markdown import Markdown

from statedump.cli import main
from statedump.core.errors import StatedumpError
from statedump.core.render.why import why_markdown
from statedump.core.store.store import Store
from statedump.models import Decision, Discovery, Instruction, Session, Task
from statedump.models.state import SessionState
from statedump.services.demo import load_example
from statedump.services.why import build_report, find_decisions, why

SID = "qwen35-397b-a17b-nvfp4"


def test_why_kv_cache_dtype_tells_the_whole_story(demo_root: Path) -> None:
    r = Cli(demo_root)("why", "kv-cache-dtype")
    assert r.exit_code == 0, r.output
    golden("why-kv-cache-dtype.md", r.output, mask_shas=True)
    out = r.output
    assert "“Are we doing anything that could be reducing model accuracy?” — the user (msg 6007)" in out
    assert (
        "discovery `fp8-kv-cache-unscaled` (resolved): SGLang enabled the checkpoint's FP8 KV cache with no scaling factors (scale 1.0)"
        in out
    )
    assert "| KV cache capacity  | 3.15M              | 1.57M | tokens |" in out
    assert "- `launch-server` (current): `--kv-cache-dtype bf16` — present" in out
    sha = git(demo_root, "log", "-1", "--format=%h", "--abbrev=10", "--", f"sessions/{SID}/decision/bf16-kv-cache.yaml").strip()
    assert f"Added on 2026-03-14 17:40 UTC in commit `{sha}`: decision: add bf16-kv-cache" in out
    assert "No review needed" in out
    for heading in ("## Question", "## Choice", "## Alternatives", "## Rationale", "## Trade-offs", "## Evidence", "## Enforced by"):
        assert heading in out


def test_words_flags_and_env_names_find_the_right_decision(demo_root: Path) -> None:
    cli = Cli(demo_root)
    first = cli("why", "kv-cache-dtype").output
    assert cli("why", "BF16 KV").output == first
    assert cli("why", "--", "--kv-cache-dtype").output == first
    assert cli("why", "bf16-kv-cache").output == first
    data = json.loads(cli("why", "NCCL_P2P_LEVEL", "--json").output)
    assert data["decision"]["id"] == "nccl-pcie-env"
    assert data["enforced_by"][0] == {
        "command": "launch-server",
        "flag": None,
        "env": "NCCL_P2P_LEVEL",
        "value": "SYS",
        "command_status": "current",
        "present": True,
        "actual": ["SYS"],
    }
    data = json.loads(cli("why", "kv-cache-dtype", "--json").output)
    assert data["prompted_by"][0] == {
        "id": "msg-6007-accuracy-question",
        "quote": "Are we doing anything that could be reducing model accuracy?",
        "source": "msg 6007",
        "standing": True,
        "status": "active",
    }
    assert [e["id"] for e in data["evidence"]] == ["fp8-kv-cache-unscaled", "kv-capacity-fp8-vs-bf16", "smoke-test-bf16-kv-pass"]
    assert data["recorded"]["action"] == "add" and data["needs_review"] is False
    # Several matches: the most recent accepted one is reported, the others listed.
    data = json.loads(cli("why", "launch", "--json").output)
    assert (data["decision"]["id"], data["also_matching"]) == ("disable-nextn", ["deploy-systemd-service"])
    assert "## Also matching\n\n- `deploy-systemd-service` (accepted): Run the server as a systemd service\n" in cli("why", "launch").output


def test_a_stale_benchmark_makes_a_decision_need_review(demo_root: Path) -> None:
    r = Cli(demo_root)("why", "disable-nextn")
    golden("why-disable-nextn.md", r.output, mask_shas=True)
    assert "- evidence bench-nextn-synthetic is now stale" in r.output


def test_no_match_is_one_line_exit_2_and_changes_nothing(demo_root: Path) -> None:
    before = snapshot(demo_root)
    r = Cli(demo_root)("why", "quantum entanglement")
    assert r.exit_code == 2 and r.output.count("\n") == 1
    assert "no decision matches 'quantum entanglement'" in r.output and "bf16-kv-cache" in r.output
    assert snapshot(demo_root) == before


def test_no_match_in_a_large_session_names_the_nearest_few(store: Store) -> None:
    # 800 decisions in one hint would flood a terminal line and an agent's context.
    decisions = [Decision(id=f"choice-{n:03d}", title=f"Choice {n}", choice="x") for n in range(799)]
    decisions.append(Decision(id="kv-cache-dtype-bf16", title="BF16 KV", choice="--kv-cache-dtype bf16"))
    state = SessionState(Session(id="s1", title="t"), list(decisions))
    with pytest.raises(StatedumpError) as err:
        why(store, "s1", "kv-cache-dtype-fp8", state=state)
    hint = err.value.hint or ""
    listed = hint.split("decisions: ", 1)[1]
    assert listed.startswith("kv-cache-dtype-bf16, ") and listed.endswith(" and 795 more")
    assert listed.count(", ") == 4


def test_editing_evidence_after_the_decision_asks_for_review(demo_copy: Path) -> None:
    cli = Cli(demo_copy)
    assert cli("status", "fp8-kv-cache-unscaled", "confirmed").exit_code == 0
    sha = git(demo_copy, "rev-parse", "--short=10", "HEAD").strip()
    r = cli("why", "bf16-kv-cache")
    golden("why-needs-review.md", r.output, mask_shas=True)
    reason = (
        f"evidence fp8-kv-cache-unscaled changed after the decision was recorded (commit {sha}, 2026-03-15): status resolved -> confirmed"
    )
    assert reason in r.output
    assert json.loads(cli("why", "bf16-kv-cache", "--json").output)["review_reasons"] == [reason]
    # Revisiting the decision after the evidence changed settles it.
    assert cli("edit", "bf16-kv-cache", "--field", "deciders=[coding agent, reviewer]").exit_code == 0
    data = json.loads(cli("why", "bf16-kv-cache", "--json").output)
    assert data["needs_review"] is False
    assert data["last_changed"]["action"] == "edit" and data["recorded"]["action"] == "add"
    # A removed piece of evidence is a reason too.
    git(demo_copy, "rm", "-q", f"sessions/{SID}/discovery/smoke-test-bf16-kv-pass.yaml")
    reasons = json.loads(cli("why", "bf16-kv-cache", "--json").output)["review_reasons"]
    assert reasons == ["evidence smoke-test-bf16-kv-pass no longer exists"]


def test_evidence_that_changed_kind_after_the_decision_asks_for_review(store: Store) -> None:
    store.add("s1", Discovery(id="ev", title="FP8 KV cache gives garbage", status="confirmed"))
    store.add("s1", Decision(id="d", title="Use BF16", choice="bf16", status="accepted", links={"evidence": ["ev"]}))
    store.put("s1", Task(id="ev", title="Re-check the FP8 KV cache"))
    sha = store.git.head()
    assert sha is not None
    report = why(store, "s1", "d")
    assert len(report.review_reasons) == 1
    assert report.review_reasons[0].startswith(f"evidence ev changed after the decision was recorded (commit {sha[:10]}")
    assert report.recorded is not None and report.recorded.action == "add"


def test_enforcement_not_carried_out_is_shown(demo_copy: Path) -> None:
    cli = Cli(demo_copy)
    text = json.loads(cli("show", "launch-server", "--json").output)["text"]
    cli("edit", "launch-server", "--field", "text=" + text.replace("--kv-cache-dtype bf16", "--kv-cache-dtype fp8_e4m3"))
    out = cli("why", "kv-cache-dtype").output
    assert "- `launch-server` (current): `--kv-cache-dtype bf16` — NOT present (set to fp8_e4m3)" in out
    assert "enforcing command launch-server changed after the decision was recorded" in out
    assert "text --kv-cache-dtype bf16 -> --kv-cache-dtype fp8_e4m3" in out


def test_ranking_prefers_exact_ids_then_accepted_decisions() -> None:
    state = load_example()
    assert [d.id for d in find_decisions(state, "sm120-backend-choice")][:1] == ["sm120-backend-choice"]
    meta = Session(id="s1", title="t")
    old = Decision(id="fp8-kv", title="FP8 KV cache", choice="--kv-cache-dtype fp8_e4m3", status="superseded")
    new = Decision(id="bf16-kv", title="BF16 KV cache", choice="--kv-cache-dtype bf16", status="accepted", links={"supersedes": ["fp8-kv"]})  # type: ignore[arg-type]
    st = SessionState(meta, [old, new])
    assert [d.id for d in find_decisions(st, "kv cache")] == ["bf16-kv", "fp8-kv"]
    assert [d.id for d in find_decisions(st, "kv-cache-dtype")] == ["bf16-kv", "fp8-kv"]
    assert [d.id for d in find_decisions(st, "fp8-kv")] == ["fp8-kv"]
    assert find_decisions(st, "nothing like it") == []
    report = build_report(st, old)
    assert [d.id for d in report.superseded_by] == ["bf16-kv"]
    assert "Superseded by `bf16-kv` (accepted): BF16 KV cache" in why_markdown(report)


def test_record_text_never_becomes_markup(store: Store) -> None:
    store.add("s1", Instruction(id="ask", title="t", quote="use [bold red]this[/] and \x1b[31mred\x1b[0m *now*", source="msg 1"))
    store.add(
        "s1",
        Decision(id="d", title="Pick `x` <b>", choice="[link=http://evil]x[/link]", status="accepted", links={"prompted_by": ["ask"]}),  # type: ignore[arg-type]
    )
    text = why_markdown(why(store, "s1", "d"))
    assert "\x1b" not in text and "␛" in text
    buf = io.StringIO()
    Console(file=buf, force_terminal=False, width=200).print(Markdown(text))
    shown = buf.getvalue()
    assert "[bold red]this[/]" in shown and "*now*" in shown and "[link=http://evil]x[/link]" in shown and "␛[31m" in shown


def test_the_report_is_stable_under_mdformat(demo_root: Path) -> None:
    import mdformat

    for query in ("kv-cache-dtype", "disable-nextn", "sm120-backend-choice", "nccl-pcie-env"):
        text = Cli(demo_root)("why", query).output
        assert mdformat.text(text, extensions={"tables"}) == text, query


def test_in_a_terminal_the_report_is_drawn_not_printed_as_markdown(demo_root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import statedump.cli.audit_cmds as audit_cmds

    monkeypatch.setattr(audit_cmds, "stdout_is_terminal", lambda: True)
    monkeypatch.setenv("COLUMNS", "160")
    out = Cli(demo_root)("why", "kv-cache-dtype").output
    assert "## Evidence" not in out and "Evidence" in out
    assert "Are we doing anything that could be reducing model accuracy?" in out
    assert "3.15M" in out and "1.57M" in out


def test_a_decision_its_command_contradicts_needs_review(demo_copy: Path) -> None:
    env = {"STATEDUMP_STORE": str(demo_copy)}
    runner = CliRunner()
    text = (demo_copy / "sessions/qwen35-397b-a17b-nvfp4/command/launch-server.yaml").read_text()
    import yaml

    command = yaml.safe_load(text)["text"].replace("--kv-cache-dtype bf16", "--kv-cache-dtype fp8_e4m3")
    assert runner.invoke(main, ["edit", "launch-server", "--field", f"text={command}"], env=env).exit_code == 0
    why = runner.invoke(main, ["why", "kv-cache-dtype"], env=env)
    assert "enforcement-contradicted" in why.output
    assert "No review needed" not in why.output
    handoff = runner.invoke(main, ["handoff"], env=env)
    assert "enforcement-contradicted" in handoff.output
