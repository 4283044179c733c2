"""$EDITOR never loses work: real editor programs, statedump in a real subprocess.

With a terminal (a pseudo-terminal here) a refused text opens again with the error on top;
without one the text is saved as a draft whose path the error line names (exit 2)."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from pathlib import Path

from helpers import golden, snapshot

from statedump.core.store.store import Store

# The editor: a small program that edits the file it is given. Each call runs the next
# step of the script in STEPS (a JSON list of [find, replace] pairs per call), and keeps a
# copy of what it was shown, so the test can read what statedump put in front of the user.
EDITOR = """
import json, os, pathlib, sys
path = pathlib.Path(sys.argv[-1])
state = pathlib.Path(os.environ["EDITOR_STATE"])
calls = int(state.read_text()) if state.exists() else 0
state.write_text(str(calls + 1))
text = path.read_text()
pathlib.Path(os.environ["EDITOR_SEEN"] + f".{calls}").write_text(text)
steps = json.loads(os.environ["EDITOR_STEPS"])
for find, replace in steps[min(calls, len(steps) - 1)]:
    text = text.replace(find, replace, 1)
if os.environ.get("EDITOR_SIDE_EFFECT") and calls == 0:
    import subprocess
    subprocess.run(os.environ["EDITOR_SIDE_EFFECT"], shell=True, check=True)
path.write_text(text)
"""


def _env(store: Store, tmp_path: Path, steps: str, **extra: str) -> dict[str, str]:
    editor = tmp_path / "editor.py"
    editor.write_text(EDITOR)
    return {
        **os.environ,
        "STATEDUMP_STORE": str(store.root),
        "EDITOR": f"{sys.executable} {editor}",
        "EDITOR_STATE": str(tmp_path / "calls"),
        "EDITOR_SEEN": str(tmp_path / "seen"),
        "EDITOR_STEPS": steps,
        **extra,
    }


def _run_in_terminal(args: list[str], env: dict[str, str]) -> tuple[int, str]:
    """statedump with a pseudo-terminal as stdin (so it knows someone is there); its output."""
    leader, follower = pty.openpty()
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "statedump", *args], stdin=follower, capture_output=True, text=True, env=env, timeout=120
        )
    finally:
        os.close(follower)
        os.close(leader)
    return proc.returncode, proc.stdout + proc.stderr


def test_the_template_lists_every_field_with_examples(store: Store, tmp_path: Path) -> None:
    # Cancelling (saving the template unchanged) writes nothing; the editor saw the template.
    env = _env(store, tmp_path, '[[["# New decision", "# New decision"]]]')
    for kind in ("decision", "benchmark"):
        (tmp_path / "calls").unlink(missing_ok=True)
        proc = subprocess.run([sys.executable, "-m", "statedump", "add", kind], capture_output=True, text=True, env=env, timeout=120)
        assert proc.returncode == 1 and "cancelled" in proc.stderr
        golden(f"template-{kind}.yaml", (tmp_path / "seen.0").read_text())


def test_a_refused_text_opens_again_with_the_error_on_top(store: Store, tmp_path: Path) -> None:
    steps = (
        '[[["title: \\n", "title: BF16 KV cache\\n"], ["#question: ", "question: # which KV dtype? 12.8"]],'
        ' [["choice: \\n", "choice: --kv-cache-dtype bf16\\n"]]]'
    )
    code, out = _run_in_terminal(["add", "decision"], _env(store, tmp_path, steps))
    assert code == 0, out
    assert "decision bf16-kv-cache added" in out
    second = (tmp_path / "seen.1").read_text()
    assert second.startswith("#! statedump could not save this:\n#!   <editor>: field 'choice': is required")
    assert "title: BF16 KV cache" in second  # what was typed is still there
    record = store.get("s1", "bf16-kv-cache")
    assert record.choice == "--kv-cache-dtype bf16"  # type: ignore[attr-defined]
    assert record.question is None  # type: ignore[attr-defined]  # `# ...` after a key is YAML's comment


def test_without_a_terminal_the_text_is_saved_and_named(store: Store, tmp_path: Path) -> None:
    env = _env(store, tmp_path, '[[["title: \\n", "title: Pin the MoE backend\\n"], ["#rationale: ", "rationale: 2026-03-14 run"]]]')
    env["XDG_STATE_HOME"] = str(tmp_path / "state")
    before = snapshot(store.root)
    proc = subprocess.run(
        [sys.executable, "-m", "statedump", "add", "decision"], stdin=subprocess.DEVNULL, capture_output=True, text=True, env=env
    )
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "field 'choice': is required" in lines[0] and "Traceback" not in proc.stderr
    assert snapshot(store.root) == before
    drafts = list((tmp_path / "state/statedump/drafts").glob("decision-*.yaml"))
    assert len(drafts) == 1 and str(drafts[0]) in lines[0]
    assert "title: Pin the MoE backend" in drafts[0].read_text()
    # The draft, fixed, is taken back with --from; the date stays the text it was typed as.
    drafts[0].write_text(drafts[0].read_text().replace("choice: \n", "choice: flashinfer_cutlass\n"))
    again = subprocess.run(
        [sys.executable, "-m", "statedump", "add", "decision", "--from", str(drafts[0])], capture_output=True, text=True, env=env
    )
    assert again.returncode == 0, again.stderr
    assert store.get("s1", "pin-the-moe-backend").rationale == "2026-03-14 run"  # type: ignore[attr-defined]


def test_an_edit_of_a_record_changed_meanwhile_is_kept_not_applied(store: Store, tmp_path: Path) -> None:
    from statedump.models import Task

    store.add("s1", Task(id="t", title="Calibrate FP8 scales", status="todo"))
    side = f"{sys.executable} -m statedump status t blocked --source 'msg 7'"
    env = _env(store, tmp_path, '[[["title: Calibrate FP8 scales", "title: Calibrate the FP8 KV scales"]]]', EDITOR_SIDE_EFFECT=side)
    env["XDG_STATE_HOME"] = str(tmp_path / "state")
    proc = subprocess.run(
        [sys.executable, "-m", "statedump", "edit", "t"], stdin=subprocess.DEVNULL, capture_output=True, text=True, env=env
    )
    assert proc.returncode == 1, proc.stderr
    assert "changed while you were editing" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    record = store.get("s1", "t")
    assert (record.title, record.status) == ("Calibrate FP8 scales", "blocked")  # the other change stands
    (draft,) = (tmp_path / "state/statedump/drafts").glob("t-*.yaml")
    assert "title: Calibrate the FP8 KV scales" in draft.read_text()
