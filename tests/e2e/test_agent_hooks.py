"""`statedump hook EVENT` as the agents run it: a real process, the agent's JSON on stdin.

The input shapes are the ones each agent documents (Claude Code's hooks reference; Codex's
codex-rs/hooks/schema/generated/*.command.input.schema.json), filled with our own values.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from statedump.core.store.store import Store
from statedump.services.agents.capture import busy, pending
from statedump.services.refs import list_dumps

SESSION = "qwen35-397b-a17b-nvfp4"
LAUNCH = "python -m sglang.launch_server --model-path nvidia/Qwen3.5-397B-A17B-NVFP4 --tp-size 8 --quantization modelopt_fp4"


def hook(event: str, data: dict[str, Any], *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "statedump", "hook", event, *args],
        input=json.dumps(data),
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=120,
    )


def claude_pre_tool(root: Path, command: str, tool: str = "Bash") -> dict[str, Any]:
    return {
        "session_id": "5f0c2a9e-1111-4c4c-9d9d-000000000001",
        "transcript_path": str(root / "no-transcript.jsonl"),
        "cwd": str(root),
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": tool,
        "tool_input": {"command": command, "description": "launch the server"},
        "tool_use_id": "toolu_01TEST",
    }


def codex_pre_tool(root: Path, command: str) -> dict[str, Any]:
    return {
        "cwd": str(root),
        "hook_event_name": "PreToolUse",
        "model": "gpt-5-codex",
        "permission_mode": "default",
        "session_id": "019a0000-0000-7000-8000-000000000001",
        "tool_input": {"command": command},
        "tool_name": "Bash",
        "tool_use_id": "call_TEST",
        "transcript_path": None,
    }


def wait_idle(root: Path, timeout: float = 90.0) -> None:
    """Until the capture worker has run every queued job."""
    deadline = time.monotonic() + timeout
    while pending(root) or busy(root):
        assert time.monotonic() < deadline, "the capture worker did not finish"
        time.sleep(0.1)


# -- guard -----------------------------------------------------------------------------------


def test_guard_denies_fp8_kv_cache_naming_the_decision_and_the_users_words(demo_copy: Path) -> None:
    r = hook("PreToolUse", claude_pre_tool(demo_copy, f"{LAUNCH} --kv-cache-dtype fp8_e4m3"), "--guard", "deny")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)["hookSpecificOutput"]
    assert out["hookEventName"] == "PreToolUse"
    assert out["permissionDecision"] == "deny"
    reason = out["permissionDecisionReason"]
    assert "bf16-kv-cache" in reason
    assert "Are we doing anything that could be reducing model accuracy?" in reason
    assert "--kv-cache-dtype bf16" in reason
    assert "launch-server" in reason  # the command known to work


def test_guard_names_the_sm120_compat_cell(demo_copy: Path) -> None:
    r = hook("PreToolUse", claude_pre_tool(demo_copy, f"{LAUNCH} --moe-runner-backend flashinfer_trtllm"), "--guard", "deny")
    reason = json.loads(r.stdout)["hookSpecificOutput"]["permissionDecisionReason"]
    assert "sm120-moe-flashinfer-trtllm" in reason
    assert "sm120-trtllm-cutedsl-dead-end" in reason
    assert "flashinfer_cutlass" in reason


def test_a_command_that_matches_the_records_passes_silently(demo_copy: Path) -> None:
    launch = Store(demo_copy).get(SESSION, "launch-server")
    for command in (launch.text, "ls -la", f"{LAUNCH} --kv-cache-dtype bf16 --moe-runner-backend flashinfer_cutlass"):  # type: ignore[attr-defined]
        r = hook("PreToolUse", claude_pre_tool(demo_copy, command), "--guard", "deny")
        assert (r.returncode, r.stdout) == (0, ""), command
    other_tool = hook("PreToolUse", claude_pre_tool(demo_copy, f"{LAUNCH} --kv-cache-dtype fp8_e4m3", tool="Read"), "--guard", "deny")
    assert other_tool.stdout == ""


def test_guard_modes_in_each_agents_format(demo_copy: Path) -> None:
    bad = f"{LAUNCH} --kv-cache-dtype fp8_e4m3"
    warn = json.loads(hook("PreToolUse", claude_pre_tool(demo_copy, bad)).stdout)  # warn is the default
    assert "permissionDecision" not in warn["hookSpecificOutput"]
    assert "bf16-kv-cache" in warn["hookSpecificOutput"]["additionalContext"]
    assert "bf16-kv-cache" in warn["systemMessage"]
    ask = json.loads(hook("PreToolUse", claude_pre_tool(demo_copy, bad), "--guard", "ask").stdout)
    assert ask["hookSpecificOutput"]["permissionDecision"] == "ask"
    # Codex refuses permissionDecision "ask" (codex-rs/hooks output_parser): it gets a deny.
    codex = json.loads(hook("PreToolUse", codex_pre_tool(demo_copy, bad), "--agent", "codex", "--guard", "ask").stdout)
    assert codex["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert hook("PreToolUse", claude_pre_tool(demo_copy, bad), "--guard", "off").stdout == ""


def test_guard_follows_the_records_when_they_change(demo_copy: Path) -> None:
    bad = f"{LAUNCH} --kv-cache-dtype fp8_e4m3"
    assert "bf16-kv-cache" in hook("PreToolUse", claude_pre_tool(demo_copy, bad), "--guard", "deny").stdout
    subprocess.run(
        [sys.executable, "-m", "statedump", "status", "bf16-kv-cache", "superseded"], cwd=demo_copy, check=True, capture_output=True
    )
    assert hook("PreToolUse", claude_pre_tool(demo_copy, bad), "--guard", "deny").stdout == ""


def test_a_broken_store_never_breaks_the_agent(demo_copy: Path) -> None:
    decision = demo_copy / "sessions" / SESSION / "decision" / "bf16-kv-cache.yaml"
    decision.write_text("id: [unclosed\n", encoding="utf-8")
    r = hook("PreToolUse", claude_pre_tool(demo_copy, f"{LAUNCH} --kv-cache-dtype fp8_e4m3"), "--guard", "deny")
    assert (r.returncode, r.stdout, r.stderr) == (0, "", "")
    log = (demo_copy / ".git" / "statedump" / "hooks.log").read_text(encoding="utf-8").splitlines()
    assert len(log) == 1 and "claude-code PreToolUse" in log[0] and "bf16-kv-cache" in log[0]
    status = subprocess.run([sys.executable, "-m", "statedump", "agent", "status"], cwd=demo_copy, capture_output=True, text=True)
    assert "claude-code PreToolUse" in status.stdout and "last failures" in status.stdout
    doctor = subprocess.run([sys.executable, "-m", "statedump", "doctor"], cwd=demo_copy, capture_output=True, text=True)
    assert doctor.returncode == 1 and "agent hook failed" in doctor.stdout and "claude-code PreToolUse" in doctor.stdout
    subprocess.run([sys.executable, "-m", "statedump", "doctor", "--repair"], cwd=demo_copy, capture_output=True, text=True)
    assert not (demo_copy / ".git" / "statedump" / "hooks.log").exists()
    # A mistake in the hook's own command line: exit 0 all the same (exit 2 would block the tool call).
    wrong = hook("PreToolUse", claude_pre_tool(demo_copy, "ls"), "--guard", "sometimes")
    assert (wrong.returncode, wrong.stdout) == (0, "")
    # Not JSON at all on stdin: still nothing but a log line.
    r = subprocess.run(
        [sys.executable, "-m", "statedump", "hook", "PreToolUse"], input="{not json", capture_output=True, text=True, cwd=demo_copy
    )
    assert (r.returncode, r.stdout) == (0, "")


# -- re-inject -------------------------------------------------------------------------------


def test_session_start_after_compaction_hands_back_the_resume_prompt(demo_copy: Path) -> None:
    data = {
        "session_id": "5f0c2a9e-1111-4c4c-9d9d-000000000002",
        "transcript_path": str(demo_copy / "t.jsonl"),
        "cwd": str(demo_copy),
        "hook_event_name": "SessionStart",
        "source": "compact",
        "model": "claude-sonnet-4-6",
    }
    r = hook("SessionStart", data)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)["hookSpecificOutput"]
    assert out["hookEventName"] == "SessionStart"
    context = out["additionalContext"]
    assert "Qwen3.5-397B-A17B-NVFP4" in context  # the goal
    assert "Are we doing anything that could be reducing model accuracy?" in context  # msg 6007's words
    from statedump.services.report.tokens import estimate_tokens

    assert estimate_tokens(context) <= 2000
    assert hook("SessionStart", {**data, "source": "startup"}).stdout == ""
    small = json.loads(hook("SessionStart", data, "--budget", "800").stdout)["hookSpecificOutput"]["additionalContext"]
    assert len(small) < len(context)
    # Codex's SessionStart input (session-start.command.input.schema.json) and the same answer shape.
    codex = {
        "cwd": str(demo_copy),
        "hook_event_name": "SessionStart",
        "model": "gpt-5-codex",
        "session_id": "019a",
        "source": "resume",
        "transcript_path": None,
    }
    codex_out = json.loads(hook("SessionStart", codex, "--agent", "codex").stdout)["hookSpecificOutput"]
    assert codex_out["hookEventName"] == "SessionStart" and "Are we doing anything" in codex_out["additionalContext"]


# -- capture ---------------------------------------------------------------------------------

AGENT_SESSION = "7d1e0b7a-2222-4e4e-8f8f-000000000003"


def _line(kind: str, n: int, text: str) -> str:
    base = {
        "parentUuid": None if n == 1 else f"00000000-0000-4000-8000-{n - 1:012d}",
        "isSidechain": False,
        "userType": "external",
        "cwd": "/work/project",
        "sessionId": AGENT_SESSION,
        "version": "2.1.80",
        "gitBranch": "main",
        "type": kind,
        "uuid": f"00000000-0000-4000-8000-{n:012d}",
        "timestamp": f"2026-11-20T10:{n:02d}:00.000Z",
    }
    if kind == "user":
        base["message"] = {"role": "user", "content": text}
    else:
        base["message"] = {
            "id": f"msg_{n}",
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-4-6",
            "content": [{"type": "text", "text": text}],
            "stop_reason": "end_turn",
        }
    return json.dumps(base)


def _compact(root: Path, transcript: Path, event: str = "PreCompact", **more: Any) -> subprocess.CompletedProcess[str]:
    data = {
        "session_id": AGENT_SESSION,
        "transcript_path": str(transcript),
        "cwd": str(root),
        "permission_mode": "default",
        "hook_event_name": event,
        **more,
    }
    return hook(event, data)


def test_a_growing_transcript_across_two_compactions(store: Store, tmp_path: Path) -> None:
    transcript = tmp_path / f"{AGENT_SESSION}.jsonl"
    transcript.write_text(
        "\n".join(
            [
                _line("user", 1, "Serve the test model with vLLM on the two GPUs; never change the tokenizer files."),
                _line("assistant", 2, "Starting with the launch command."),
            ]
        )
        + "\n",
        encoding="utf-8",
    )
    before = len(list_dumps(store, "s1"))
    started = time.monotonic()
    r = _compact(store.root, transcript, trigger="auto", custom_instructions="")
    assert r.returncode == 0 and r.stdout == "", r.stderr
    assert time.monotonic() - started < 10  # the import itself runs in the worker
    wait_idle(store.root)
    first = {r.id for r in store.load("s1").records}
    assert any("tokenizer" in (getattr(r, "quote", "") or "") for r in store.load("s1").records)
    with open(transcript, "a", encoding="utf-8") as fh:
        fh.write(_line("user", 3, "Also keep the maximum context at 32k tokens from now on.") + "\n")
        fh.write(_line("assistant", 4, "Noted.") + "\n")
    _compact(store.root, transcript, trigger="manual", custom_instructions="keep the launch flags")
    wait_idle(store.root)
    state = store.load("s1")
    new = {r.id for r in state.records} - first
    assert any("32k" in (getattr(state.get(i), "quote", "") or "") for i in new)
    dumps = list_dumps(store, "s1")
    assert len(dumps) == before + 2
    assert all(d.message.startswith("Before compaction (claude-code") for d in dumps[-2:])
    assert not (store.root / ".git" / "statedump" / "hooks.log").exists()


def test_post_compact_summary_is_the_dumps_checkpoint(store: Store, tmp_path: Path) -> None:
    transcript = tmp_path / f"{AGENT_SESSION}.jsonl"
    transcript.write_text(_line("user", 1, "Benchmark the server at concurrency 64.") + "\n", encoding="utf-8")
    _compact(store.root, transcript, trigger="auto", custom_instructions=None)
    summary = "## Goal\nBenchmark the server at concurrency 64.\n\n## Accomplished\nThe server runs; the benchmark is next."
    r = _compact(store.root, transcript, "PostCompact", trigger="auto", compact_summary=summary)
    assert (r.returncode, r.stdout) == (0, "")
    wait_idle(store.root)
    dump = list_dumps(store, "s1")[-1]
    points = store.load_session("s1").checkpoints
    assert [p.message for p in points] == [summary]
    assert points[0].at == dump.date


def test_capture_failures_go_to_the_log_and_status(store: Store, tmp_path: Path) -> None:
    r = _compact(store.root, tmp_path / "gone.jsonl", "SessionEnd", reason="prompt_input_exit")
    assert (r.returncode, r.stdout, r.stderr) == (0, "", "")
    wait_idle(store.root)
    log = (store.root / ".git" / "statedump" / "hooks.log").read_text(encoding="utf-8")
    assert "claude-code SessionEnd" in log and "gone.jsonl" in log
    status = subprocess.run(
        [sys.executable, "-m", "statedump", "agent", "status", "--json"], cwd=store.root, capture_output=True, text=True
    )
    report = json.loads(status.stdout)
    assert any("gone.jsonl" in line for line in report["failures"])
    assert {(r["agent"], r["event"]) for r in report["last_runs"]} == {("claude-code", "SessionEnd")}


def test_capture_refreshes_an_installed_agents_md_block(store: Store, tmp_path: Path) -> None:
    claude_md = store.root / "CLAUDE.md"
    subprocess.run(
        [sys.executable, "-m", "statedump", "resume", "--agents-md", str(claude_md)], cwd=store.root, check=True, capture_output=True
    )
    before = claude_md.read_text(encoding="utf-8")
    transcript = tmp_path / f"{AGENT_SESSION}.jsonl"
    transcript.write_text(_line("user", 1, "Always run the smoke test after a relaunch.") + "\n", encoding="utf-8")
    _compact(store.root, transcript, "Stop", stop_hook_active=False, last_assistant_message="done")
    wait_idle(store.root)
    after = claude_md.read_text(encoding="utf-8")
    assert after != before and "Always run the smoke test after a relaunch." in after


@pytest.mark.skipif(subprocess.run(["which", "node"], capture_output=True).returncode != 0, reason="node is not installed")
def test_the_opencode_plugin_runs_the_guard(demo_copy: Path, tmp_path: Path) -> None:
    from statedump.services.agents.configs import Wiring, plugin_text

    plugin = tmp_path / "statedump.mjs"
    plugin.write_text(
        plugin_text(Wiring(executable=sys.executable, guard="deny"))
        .decode()
        .replace(
            'const PREFIX = ["' + sys.executable + '", "hook"]', 'const PREFIX = ["' + sys.executable + '", "-m", "statedump", "hook"]'
        ),
        encoding="utf-8",
    )
    script = tmp_path / "run.mjs"
    script.write_text(
        f"""import {{ StatedumpPlugin }} from {json.dumps(str(plugin))}
const hooks = await StatedumpPlugin({{ directory: {json.dumps(str(demo_copy))} }})
const out = {{ args: {{ command: {json.dumps(LAUNCH + " --kv-cache-dtype fp8_e4m3")} }} }}
try {{ await hooks["tool.execute.before"]({{ tool: "bash", sessionID: "ses_1", callID: "c1" }}, out); console.log("PASSED") }}
catch (e) {{ console.log("BLOCKED " + e.message) }}
const ok = {{ args: {{ command: "ls -la" }} }}
await hooks["tool.execute.before"]({{ tool: "bash", sessionID: "ses_1", callID: "c2" }}, ok)
console.log("OK")
""",
        encoding="utf-8",
    )
    r = subprocess.run(["node", str(script)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("BLOCKED statedump guard blocked this command") and "bf16-kv-cache" in r.stdout
    assert r.stdout.rstrip().endswith("OK")


def test_the_installed_hook_command_runs_as_the_agent_runs_it(demo_copy: Path) -> None:
    """`agent install`, then the PreToolUse command from settings.json through a shell, as Claude Code runs it."""
    import os
    import shutil

    exe = shutil.which("statedump", path=str(Path(sys.executable).parent))
    assert exe is not None
    r = subprocess.run(
        [sys.executable, "-m", "statedump", "agent", "install", "claude-code", "--guard", "deny", "--executable", exe],
        cwd=demo_copy,
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stderr
    settings = json.loads((demo_copy / ".claude" / "settings.json").read_text(encoding="utf-8"))
    (group,) = settings["hooks"]["PreToolUse"]
    assert group["matcher"] == "Bash"
    command = group["hooks"][0]["command"]
    run = subprocess.run(
        command,
        shell=True,
        input=json.dumps(claude_pre_tool(demo_copy, f"{LAUNCH} --kv-cache-dtype fp8_e4m3")),
        capture_output=True,
        text=True,
        cwd=demo_copy,
        env={**os.environ, "CLAUDE_PROJECT_DIR": str(demo_copy)},
    )
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"


REAL_COMPACTION = Path(__file__).parents[1] / "corpus_real" / "transcripts" / "claude-code" / "entire-a6e4c2a0fbd1-compaction.jsonl"


def test_a_second_compactions_summary_is_kept_though_the_transcript_holds_an_earlier_one(store: Store, tmp_path: Path) -> None:
    # The transcript already holds a compaction summary line (the corpus file's, see its source
    # in tests/corpus_real); the new compaction's line is not written yet when PostCompact runs.
    transcript = tmp_path / "second.jsonl"
    transcript.write_bytes(REAL_COMPACTION.read_bytes())
    session = json.loads(REAL_COMPACTION.read_text(encoding="utf-8").splitlines()[0]).get("sessionId", AGENT_SESSION)
    data = {"session_id": session, "transcript_path": str(transcript), "cwd": str(store.root), "permission_mode": "default"}
    assert hook("PreCompact", {**data, "hook_event_name": "PreCompact", "trigger": "auto"}).returncode == 0
    wait_idle(store.root)
    before = store.load_session("s1").checkpoints
    summary = "## Goal\nFix the inconsistent session state.\n\n## Next\nRun the integration tests again."
    r = hook("PostCompact", {**data, "hook_event_name": "PostCompact", "trigger": "auto", "compact_summary": summary})
    assert (r.returncode, r.stdout) == (0, "")
    wait_idle(store.root)
    points = store.load_session("s1").checkpoints
    assert [p.message for p in points] == [*(p.message for p in before), summary]
    assert points[-1].at == list_dumps(store, "s1")[-1].date  # the dump its PreCompact made
    assert not (store.root / ".git" / "statedump" / "hooks.log").exists()
    # The same PostCompact again (an agent's retry) adds nothing.
    hook("PostCompact", {**data, "hook_event_name": "PostCompact", "trigger": "auto", "compact_summary": summary})
    wait_idle(store.root)
    assert len(store.load_session("s1").checkpoints) == len(points)
    # The compaction's own line reaches the transcript later; the next Stop imports it: still one
    # checkpoint for this compaction, in the agent's words, now under that line's uuid.
    last = json.loads(REAL_COMPACTION.read_text(encoding="utf-8").splitlines()[-1])
    line = {
        **last,
        "type": "user",
        "isCompactSummary": True,
        "uuid": "9c1d0c3e-0000-4000-8000-00000000abcd",
        "parentUuid": last.get("uuid"),
        "message": {"role": "user", "content": f"This session is being continued from a previous conversation.\n{summary}"},
    }
    with open(transcript, "a", encoding="utf-8") as fh:
        fh.write(("" if transcript.read_bytes().endswith(b"\n") else "\n") + json.dumps(line) + "\n")
    hook("Stop", {**data, "hook_event_name": "Stop", "stop_hook_active": False})
    wait_idle(store.root)
    after = store.load_session("s1").checkpoints
    assert [p.message for p in after] == [p.message for p in points]
    assert after[-1].source == f"claude-code {line['uuid']}"
    assert not (store.root / ".git" / "statedump" / "hooks.log").exists()


def test_bad_stdin_inside_a_store_goes_to_the_stores_log(store: Store, tmp_path: Path) -> None:
    import os

    fallback = Path(os.environ.get("XDG_STATE_HOME") or Path.home() / ".local" / "state") / "statedump" / "hooks.log"
    for args, cwd in (([], store.root), (["--store", str(store.root)], tmp_path)):
        r = subprocess.run(
            [sys.executable, "-m", "statedump", "hook", "PreToolUse", "--agent", "claude-code", *args],
            input="garbage",
            capture_output=True,
            text=True,
            cwd=cwd,
        )
        assert (r.returncode, r.stdout, r.stderr) == (0, "", "")
    log = (store.root / ".git" / "statedump" / "hooks.log").read_text(encoding="utf-8").splitlines()
    assert len(log) == 2 and all("claude-code PreToolUse" in line and "JSONDecodeError" in line for line in log)
    assert not fallback.exists()
    status = subprocess.run([sys.executable, "-m", "statedump", "agent", "status"], cwd=store.root, capture_output=True, text=True)
    assert "JSONDecodeError" in status.stdout
    # A mistake in the hook's own command line, run inside the store: its log too.
    subprocess.run([sys.executable, "-m", "statedump", "hook", "PreToolUse", "--guard", "often"], input="{}", text=True, cwd=store.root)
    assert "bad hook command line" in (store.root / ".git" / "statedump" / "hooks.log").read_text(encoding="utf-8")


def test_the_guards_line_for_the_user_is_cut_at_a_word() -> None:
    from statedump.services.agents.events import guard_answer

    reason = "statedump guard:\n- " + " ".join(["this launch could be reducing model accuracy"] * 12)
    message = json.loads(guard_answer("claude-code", "warn", reason).stdout)["systemMessage"]
    assert message.endswith("…") and len(message) <= len("statedump guard: ") + 300
    assert message.removesuffix("…").split()[-1] in reason.split()  # a whole word before the ellipsis
    assert message.removeprefix("statedump guard: ").removesuffix("…") in reason
