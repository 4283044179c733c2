"""`statedump handoff`: changes since a dump, open questions, commands, the benchmark trend."""

from __future__ import annotations

from pathlib import Path

from helpers import Cli, git, golden, snapshot

from statedump.core.store.store import Store
from statedump.models import Command, Decision, Task

SESSION = "qwen35-397b-a17b-nvfp4"


def _tag_sha(root: Path, n: int) -> str:
    return git(root, "rev-parse", f"dump/{SESSION}/{n}^{{commit}}").strip()


def test_handoff_since_the_first_dump_matchesgolden(demo_root: Path) -> None:
    r = Cli(demo_root)("handoff", "--since", f"dump/{SESSION}/1")
    assert r.exit_code == 0, r.output
    text = r.stdout.replace(_tag_sha(demo_root, 1)[:10], "<commit>")
    golden("handoff-demo-since-dump-1.md", text)
    assert "generated 2026-03-15 12:00 UTC" in text  # the fixed clock
    assert "- decision `bf16-kv-cache`: Force a BF16 KV cache instead of the checkpoint's unscaled FP8" in text
    assert '    x-axis "concurrency" ["1", "1024"]\n' in text and "    line [172, 2100]\n" in text
    assert "```mermaid\nxychart-beta\n" in text
    order = ["## What changed since", "## Open questions", "## Last known good commands", "## Benchmark trend", "## State document"]
    assert [text.index(h) for h in order] == sorted(text.index(h) for h in order)
    # The state document sits one level down, fenced commands untouched.
    assert "\n### Goal\n" in text and "\n#### Decisions\n" in text and "```ini\n[Unit]" in text


def test_default_is_the_last_dump_and_out_writes_the_same_report(demo_root: Path, tmp_path: Path) -> None:
    cli = Cli(demo_root)
    r = cli("handoff")
    assert r.exit_code == 0, r.output
    assert f"Nothing changed since `dump/{SESSION}/2`." in r.stdout
    assert f"compared with `dump/{SESSION}/2` (commit `{_tag_sha(demo_root, 2)[:10]}`)" in r.stdout
    out = tmp_path / "HANDOFF.md"
    assert cli("handoff", "--out", str(out)).output == f"wrote {out}\n"
    assert out.read_text(encoding="utf-8") == r.stdout


def test_changes_open_questions_and_review_after_edits(demo_copy: Path) -> None:
    store = Store(demo_copy)
    launch = store.get(SESSION, "launch-server")
    assert isinstance(launch, Command)
    store.put(SESSION, launch.model_copy(update={"text": launch.text.replace("--kv-cache-dtype bf16", "--kv-cache-dtype fp8_e4m3")}))
    calibrate = store.get(SESSION, "calibrate-fp8-kv-scales")
    assert isinstance(calibrate, Task)
    store.put(SESSION, calibrate.model_copy(update={"status": "blocked"}))
    store.add(SESSION, Decision(id="fp8-kv-calibrated", title="Calibrated FP8 KV cache", status="proposed", choice="fp8_e4m3 with scales"))
    r = Cli(demo_copy)("handoff")
    assert r.exit_code == 0, r.output
    text = r.stdout
    assert f"Since `dump/{SESSION}/2`: 1 added, 2 changed, 0 removed." in text
    assert "- decision `fp8-kv-calibrated`: Calibrated FP8 KV cache" in text
    assert "- task `calibrate-fp8-kv-scales`: Calibrate FP8 KV cache scales\n  - status: proposed → blocked" in text
    assert "  - text: `--kv-cache-dtype bf16 \\` → `--kv-cache-dtype fp8_e4m3 \\`" in text  # only the changed line
    questions = text.split("## Open questions\n")[1].split("\n## ")[0]
    assert "### Proposed decisions\n\n- **Calibrated FP8 KV cache** — fp8_e4m3 with scales · `fp8-kv-calibrated`" in questions
    assert "### Blocked tasks\n\n- **Calibrate FP8 KV cache scales** · `calibrate-fp8-kv-scales`" in questions
    assert "- **Force a BF16 KV cache instead of the checkpoint's unscaled FP8** · `bf16-kv-cache`" in questions
    assert "enforcing command launch-server changed after the decision was recorded" in questions


def test_terminal_format_draws_the_trend_as_a_table_and_shows_text_literally(store: Store) -> None:
    from statedump.models import Benchmark, Metric

    for c, v in ((1, 150.0), (64, 1200.0), (1, 172.0)):
        store.add(
            "s1",
            Benchmark(
                id=f"b{c}-{int(v)}",
                title=f"c{c}",
                status="valid",
                concurrency=c,
                metrics=[Metric(name="output_throughput", value=v, unit="tok/s")],
            ),
        )
    store.add("s1", Task(id="evil", title="[bold red]x\x1b[2J", status="blocked"))
    r = Cli(store.root)("handoff", "--format", "terminal", env={"COLUMNS": "100"})
    assert r.exit_code == 0, r.output
    out = r.stdout
    assert "\x1b" not in out and "[bold red]x␛[2J" in out
    assert "the start of the session (it has no dump yet)" in out
    rows = [line for line in out.splitlines() if line.startswith("│")]
    assert [row.split("│")[1].strip() for row in rows] == ["1", "64"]  # one point per concurrency, the latest
    assert "172" in rows[0] and "1,200" in rows[1]
    md = Cli(store.root)("handoff").stdout
    assert '    x-axis "concurrency" ["1", "64"]\n' in md and "    line [172, 1200]\n" in md


def test_bad_since_is_one_line_exit_2_and_nothing_changes(demo_root: Path) -> None:
    before = snapshot(demo_root)
    r = Cli(demo_root)("handoff", "--since", "no-such-ref")
    assert r.exit_code == 2
    assert r.stderr.startswith("statedump: --since: no commit named 'no-such-ref'") and len(r.stderr.splitlines()) == 1
    assert snapshot(demo_root) == before
