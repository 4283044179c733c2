"""The budgeted resume prompt keeps what an agent acts on, and never exceeds its budget."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import Cli
from hypothesis import given, settings
from hypothesis import strategies as st

from statedump.core.store.store import Store
from statedump.services.demo import EXAMPLE, load_example
from statedump.services.report.parts import DROP_ORDER
from statedump.services.report.resume import DEFAULT_BUDGET, FLAVORS, MIN_BUDGET, resume_for, resume_prompt
from statedump.services.report.tokens import estimate_tokens

STATE = load_example()
QUOTE = "Are we doing anything that could be reducing model accuracy?"
LAUNCH_LINE = "  --kv-cache-dtype bf16 \\\n"  # a line of the launch command's verbatim text, inside its fence


def test_budget_2000_keeps_figures_launch_command_dead_ends_and_the_users_words(demo_root: Path) -> None:
    r = Cli(demo_root)("resume", "--budget", "2000")
    assert r.exit_code == 0, r.output
    text = r.stdout
    assert estimate_tokens(text) <= 2000
    assert "output_throughput 172 tok/s" in text and "concurrency 1:" in text
    assert "output_throughput 2,100 tok/s" in text and "concurrency 1024:" in text
    launch = text[text.index("## Current launch command") :]
    assert "`launch-server`" in launch.split("\n\n")[1]
    assert "```bash\nNCCL_P2P_LEVEL=SYS \\\n" in launch and LAUNCH_LINE in launch
    assert "**trtllm and cutedsl MoE backends do not work on SM120**" in text
    assert "`flashinfer_trtllm` on SM120" in text and "`flashinfer_cutedsl` on SM120" in text
    assert f'"{QUOTE}" — msg 6007' in text
    assert "Enforced on `launch-server`, `sglang-systemd-unit`: `--kv-cache-dtype bf16`" in text
    # Prose went first: no rationale paragraph, no expected impact of a next step, no bodies.
    assert "Why:" not in text and "Tensor-parallel all-reduce over PCIe is on the critical path" not in text
    assert "(Possibly faster decode" not in text
    assert "The NCCL values are illustrative" not in text
    assert "## Next steps" in text and "`monitor-service`" in text


@pytest.mark.parametrize("flavor", FLAVORS)
def test_budget_2000_keeps_the_same_essentials_for_each_agent(flavor: str) -> None:
    text = resume_prompt(STATE, flavor=flavor, budget=2000).text
    for needle in ("172 tok/s", "2,100 tok/s", LAUNCH_LINE, "trtllm and cutedsl MoE backends", QUOTE, "Force --kv-cache-dtype bf16"):
        assert needle in text, needle


def test_prose_is_dropped_before_anything_an_agent_acts_on() -> None:
    names = [n for n, _ in DROP_ORDER]
    prose = ("bodies", "decision-why", "step-detail")
    kept = ("launch-text", "baselines", "later-steps", "dead-end-detail")
    assert max(names.index(p) for p in prose) < min(names.index(k) for k in kept)
    # In the order of value: next steps go before the baseline figures, and those before the launch command.
    assert names.index("later-steps") < names.index("baselines") < names.index("launch-text") == len(names) - 1


BUDGETS = [MIN_BUDGET, 250, 333, 500, 777, 1000, 1234, 1500, 1789, 2000, 2500, 3000, 4500, 6000, 9000]


@pytest.mark.parametrize("flavor", FLAVORS)
@pytest.mark.parametrize("budget", BUDGETS)
def test_the_prompt_never_exceeds_its_budget(flavor: str, budget: int) -> None:
    r = resume_prompt(STATE, flavor=flavor, budget=budget)
    assert estimate_tokens(r.text) == r.tokens <= budget
    assert r.fits and r.text.endswith("\n") and r.text.count("```") % 2 == 0
    assert "Serve Qwen3.5-397B-A17B-NVFP4" in r.text  # the goal survives every budget
    if budget >= 300:
        assert QUOTE in r.text  # and from 300 tokens on, the user's words


@settings(max_examples=40, deadline=None)
@given(budget=st.integers(min_value=MIN_BUDGET, max_value=7000), flavor=st.sampled_from(FLAVORS))
def test_any_budget_fits_and_a_bigger_one_leaves_out_no_more(budget: int, flavor: str) -> None:
    small = resume_prompt(STATE, flavor=flavor, budget=budget)
    big = resume_prompt(STATE, flavor=flavor, budget=budget + 500)
    assert small.tokens <= budget and big.tokens <= budget + 500
    assert small.left_out[: len(big.left_out)] == big.left_out
    assert not (big.cut and not small.cut)


def test_the_service_entry_point_for_hooks_reads_the_store_with_the_default_budget(demo_root: Path) -> None:
    store = Store.find(demo_root)
    r = resume_for(store)
    assert r.budget == DEFAULT_BUDGET == 2000 and r.tokens <= 2000
    assert r.text == Cli(demo_root)("resume", "--budget", "2000").stdout
    claude = resume_for(store, EXAMPLE, flavor="claude", budget=1500)
    assert claude.tokens <= 1500 and "1. Primary Request and Intent:" in claude.text
    assert resume_for(store, budget=None).left_out == []


def test_a_cut_never_ends_inside_a_fence_or_on_a_bare_heading() -> None:
    from statedump.services.report.resume import _cut

    script = "```bash\nset -e\n\n# start the server\npython -m sglang.launch_server\n```"
    text = f"# Resume\n\nGoal line.\n\n## Launch\n\n{script}\n\n## Next steps\n\n" + "word " * 400 + "\n"
    cut = _cut(text, 200)
    assert estimate_tokens(cut) <= 200
    assert script in cut and cut.count("```") == 2
    assert "## Next steps" not in cut  # its paragraph did not fit, so neither does its heading
    assert _cut(text, 60).startswith("# Resume\n\nGoal line.\n\n_Left out to fit 60 tokens")
