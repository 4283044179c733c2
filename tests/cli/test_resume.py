"""`statedump resume`: the prompt per agent, the budget, the AGENTS.md block."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import Cli, golden

from statedump.services.demo import load_example
from statedump.services.report.parts import DROP_ORDER
from statedump.services.report.resume import BLOCK_END, BLOCK_START, resume_prompt, splice_block
from statedump.services.report.tokens import estimate_tokens

QUOTE = "Are we doing anything that could be reducing model accuracy?"


@pytest.mark.parametrize("flavor", ["plain", "opencode", "claude", "codex"])
def test_each_agent_layout_matches_its_golden_prompt(demo_root: Path, flavor: str) -> None:
    r = Cli(demo_root)("resume", "--for", flavor)
    assert r.exit_code == 0, r.output
    golden(f"resume-{flavor}.md", r.stdout)


def test_budget_2000_on_the_demogolden(demo_root: Path) -> None:
    r = Cli(demo_root)("resume", "--budget", "2000")
    assert r.exit_code == 0, r.output
    golden("resume-plain-budget-2000.md", r.stdout)


@pytest.mark.parametrize("flavor", ["plain", "opencode", "claude", "codex"])
def test_budget_2000_fits_and_keeps_the_bf16_instruction_and_decision(demo_root: Path, flavor: str) -> None:
    r = Cli(demo_root)("resume", "--budget", "2000", "--for", flavor)
    assert r.exit_code == 0, r.output
    text = r.stdout
    assert estimate_tokens(text) <= 2000
    assert f'"{QUOTE}" — msg 6007 · `msg-6007-accuracy-question`' in text
    assert "`bf16-kv-cache`" in text and "Choice: Force --kv-cache-dtype bf16" in text
    assert "`--kv-cache-dtype bf16`" in text  # the flag it enforces
    last = text.rstrip("\n").splitlines()[-1]
    assert last.startswith("_Left out to fit 2,000 tokens: record bodies;")
    assert estimate_tokens(resume_prompt(load_example(), flavor=flavor).text) > 2000  # so the budget really cut


def test_the_budget_drops_detail_in_the_documented_order() -> None:
    state = load_example()
    previous = len(DROP_ORDER) + 1
    sizes = []
    for budget in (6000, 4000, 2500, 2000, 1500):
        r = resume_prompt(state, budget=budget)
        assert r.fits and r.tokens <= budget
        names = [n for n, _ in DROP_ORDER]
        # What was left out is always a prefix of the order (skipping kinds the prompt did not show).
        assert r.left_out == [n for n in names[: names.index(r.left_out[-1]) + 1] if n in r.left_out]
        assert r.left_out == sorted(r.left_out, key=names.index)
        sizes.append(len(r.left_out))
    assert sizes == sorted(sizes) and sizes[-1] < previous
    tight = resume_prompt(state, budget=1500).text
    assert QUOTE in tight and "Force --kv-cache-dtype bf16" in tight
    assert "Serve Qwen3.5-397B-A17B-NVFP4" in tight  # the goal
    assert "trtllm and cutedsl MoE backends do not work on SM120" in tight  # a dead end


def test_a_budget_below_the_essentials_is_cut_at_a_paragraph_and_keeps_the_users_words(demo_root: Path) -> None:
    r = Cli(demo_root)("resume", "--budget", "300", "--json")
    assert r.exit_code == 0, r.output
    import json

    data = json.loads(r.stdout)
    assert data["cut"] and data["fits"] and data["tokens"] <= 300
    text = data["text"]
    assert QUOTE in text and "Serve Qwen3.5-397B-A17B-NVFP4" in text
    assert text.rstrip().splitlines()[-1].startswith("_Left out to fit 300 tokens: every detail that can be left out, and the rest")
    assert text.count("```") % 2 == 0  # never cut inside a fenced block


def test_a_budget_below_the_floor_is_bad_input(demo_root: Path) -> None:
    r = Cli(demo_root)("resume", "--budget", "50")
    assert r.exit_code == 2
    assert "at least 200 tokens" in r.stderr and "--budget" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


def test_no_budget_leaves_nothing_out_and_json_reports_it(demo_root: Path) -> None:
    import json

    r = Cli(demo_root)("resume", "--budget", "2000", "--json")
    data = json.loads(r.stdout)
    assert data["fits"] and data["tokens"] <= 2000 and data["left_out"][0] == "bodies"
    full = resume_prompt(load_example())
    assert full.left_out == [] and "Left out" not in full.text
    assert "fuser -k /dev/nvidia*" in full.text  # verbatim commands when there is room


def test_estimator_is_conservative_and_offline() -> None:
    assert estimate_tokens("") == 0
    assert estimate_tokens("abcd" * 10) == 10  # one long word: four characters a token
    assert estimate_tokens("a b c d e f g h i j") == 13  # short words: 1.3 a word
    assert estimate_tokens("→→→→") == 4  # a non-ASCII character counts as a token


def test_agents_md_block_is_created_replaced_and_the_rest_kept(demo_root: Path, tmp_path: Path) -> None:
    cli = Cli(demo_root)
    target = tmp_path / "AGENTS.md"
    r = cli("resume", "--agents-md", str(target), "--budget", "1500")
    assert r.exit_code == 0, r.output
    first = target.read_text(encoding="utf-8")
    assert first.startswith(BLOCK_START) and first.endswith(BLOCK_END + "\n")
    before, after = b"# Project rules\r\n\r\nUse tabs.  \r\n\r\n", b"\r\n## Later\r\ntrailing text without newline"
    block = target.read_bytes().replace(b"\n", b"\r\n")
    target.write_bytes(before + block + after)
    r = cli("resume", "--agents-md", str(target), "--for", "claude")
    assert r.exit_code == 0, r.output
    data = target.read_bytes()
    assert data.startswith(before) and data.endswith(after)
    assert b"1. Primary Request and Intent:\r\n" in data and b"\n\n" not in data  # CRLF kept throughout
    assert data.count(BLOCK_START.encode()) == 1
    assert "unchanged" in cli("resume", "--agents-md", str(target), "--for", "claude").output


def test_agents_md_is_appended_to_a_file_without_a_block(tmp_path: Path) -> None:
    assert splice_block("# Rules\nNo tabs.", "prompt\n") == f"# Rules\nNo tabs.\n\n{BLOCK_START}\n" + (
        "<!-- Written by `statedump resume --agents-md`; this block is replaced each time it runs. -->\n\nprompt\n\n" + BLOCK_END + "\n"
    )


def test_broken_markers_are_refused_and_the_file_untouched(demo_root: Path, tmp_path: Path) -> None:
    target = tmp_path / "CLAUDE.md"
    original = f"intro\n{BLOCK_END}\nmiddle\n{BLOCK_START}\n".encode()
    target.write_bytes(original)
    r = Cli(demo_root)("resume", "--agents-md", str(target))
    assert r.exit_code == 2
    assert "markers are broken" in r.stderr and str(target) in r.stderr
    assert target.read_bytes() == original
    assert sorted(p.name for p in tmp_path.iterdir()) == ["CLAUDE.md"]


def test_unknown_agent_is_bad_input(demo_root: Path) -> None:
    r = Cli(demo_root)("resume", "--for", "cursor")
    assert r.exit_code == 2
