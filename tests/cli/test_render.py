"""The state document: golden bytes for the example, stable under mdformat, spine in order."""

from __future__ import annotations

import mdformat
import pytest
from helpers import golden
from rich.console import Console

from statedump.core.render import SECTIONS, render_markdown
from statedump.core.render.terminal import print_terminal
from statedump.models import Discovery, Instruction, Session
from statedump.models.state import SessionState
from statedump.services.demo import load_example


def test_example_matches_the_golden_document() -> None:
    golden("example-state.md", render_markdown(load_example()))


def test_rendering_is_deterministic() -> None:
    assert render_markdown(load_example()) == render_markdown(load_example())


def test_mdformat_leaves_the_document_unchanged() -> None:
    text = render_markdown(load_example())
    assert mdformat.text(text, extensions={"tables"}) == text


def test_sections_in_order_with_the_key_facts() -> None:
    text = render_markdown(load_example())
    positions = [text.index(f"\n## {name}\n") for name in SECTIONS]
    assert positions == sorted(positions)
    for needle in (
        "172",
        "2,100",
        "3.15M",
        "1.57M",
        "--kv-cache-dtype bf16",
        "flashinfer_cutlass",
        "msg 6007",
        "Are we doing anything that could be reducing model accuracy?",
    ):
        assert needle in text, needle
    assert "```ini\n[Unit]" in text  # the systemd unit, verbatim and fenced
    assert "### Compatibility matrix" in text and "### Benchmarks" in text and "### Decisions" in text and "### Software stack" in text


def test_proposed_next_steps_are_marked_and_ordered_by_priority() -> None:
    text = render_markdown(load_example())
    steps = text.split("## Next steps\n")[1].split("\n## ")[0]
    priorities = [int(line.split(" — P")[1].split(" ")[0]) for line in steps.splitlines() if line.startswith("- **")]
    assert priorities == [1, 2, 3, 4, 5, 6, 7]
    assert steps.count("· proposed ·") == 7


UNTRUSTED = ["[bold red]x[/]", "\x1b[31mred\x1b[0m", "*not emphasis*", "<script>alert(1)</script>", "`tick`", "# not a heading", "| pipe |"]


@pytest.mark.parametrize("text", UNTRUSTED)
def test_untrusted_text_stays_literal_and_stable(text: str) -> None:
    # Titles and quotes are plain text: escaped, so formatting them changes nothing.
    plain_state = SessionState(Session(id="s", title=text), [Discovery(id="d", title=text), Instruction(id="i", title=text, quote=text)])
    doc = render_markdown(plain_state)
    assert "\x1b" not in doc
    assert mdformat.text(doc, extensions={"tables"}) == doc
    # Bodies are Markdown by design, but control characters never reach the output raw.
    state = SessionState(
        Session(id="s", title=text), [Discovery(id="d", title=text, body=text), Instruction(id="i", title=text, quote=text)]
    )
    assert "\x1b" not in render_markdown(state)
    console = Console(record=True, width=100, color_system="truecolor", force_terminal=True)
    print_terminal(state, console)
    plain = console.export_text(styles=False)
    assert "\x1b" not in plain
    if "[bold red]" in text:
        assert "[bold red]x[/]" in plain
    if "\x1b" in text:
        assert "\u241b[31mred\u241b[0m" in plain


def test_terminal_format_draws_the_headings() -> None:
    console = Console(record=True, width=120)
    print_terminal(load_example(), console)
    out = console.export_text()
    for name in ("Goal", "Instructions", "Discoveries", "Accomplished"):
        assert name in out
    assert "flashinfer_cutlass" in out


def test_benchmark_table_shows_each_benchmarks_status() -> None:
    text = render_markdown(load_example())
    table = text.split("### Benchmarks\n\n")[1].split("\n\n")[0].splitlines()
    assert [c.strip() for c in table[0].strip("|").split("|")][-2:] == ["Status", "Id"]
    assert all(" stale " in row for row in table[2:]) and len(table) == 5


def _hidden_statuses_state() -> SessionState:
    from statedump.models import Command, File, Task

    return SessionState(
        Session(id="s", title="t"),
        [
            Task(id="t-drop", title="Try *EP* on PCIe", status="dropped", source="msg 9", body="Too slow."),
            Task(id="t-done", title="Ship it", status="done"),
            File(id="f-old", title="old launcher", path="/opt/run_old.sh", status="obsolete"),
            File(id="f-new", title="launcher", path="/opt/run.sh"),
            Command(id="c-now", title="Launch", text="vllm serve m --tp 8"),
            Command(id="c-bad", title="First # try", text="vllm serve m\n\n```\nx", status="failed", source="msg 3", body="Crashed."),
            Command(id="c-old", title="Unit", text="[Unit]\nA=b", form="systemd", status="previous", env={"X": "1"}, last_known_good=True),
        ],
    )


def test_dropped_tasks_obsolete_files_and_earlier_commands_are_shown() -> None:
    state = _hidden_statuses_state()
    text = render_markdown(state)
    assert mdformat.text(text, extensions={"tables"}) == text
    accomplished = text.split("## Accomplished\n")[1].split("\n## ")[0]
    assert "### Dropped\n\n- **Try \\*EP\\* on PCIe** — dropped · msg 9 · `t-drop`" in accomplished
    files = text.split("## Relevant files / directories\n")[1].split("\n## ")[0]
    assert files.index("`f-new`") < files.index("`/opt/run_old.sh` — old launcher — obsolete · `f-old`")
    commands = text.split("## Deployment commands\n")[1].split("\n## ")[0]
    current, earlier = commands.split("\n### Earlier and failed commands\n")
    assert "`c-now`" in current and "`c-bad`" not in current
    assert "#### First # try\n\nshell · failed · `c-bad` · msg 3\n\n````bash\nvllm serve m\n\n```\nx\n````\n\nCrashed." in earlier
    assert "#### Unit\n\nsystemd · previous · `c-old` · last known good\n\n```bash\nexport X=1\n```\n\n```ini\n[Unit]\nA=b\n```" in earlier
    # Order of the spine is unchanged.
    positions = [text.index(f"\n## {name}\n") for name in SECTIONS]
    assert positions == sorted(positions)


def test_earlier_commands_alone_still_say_there_is_no_current_command() -> None:
    from statedump.models import Command

    state = SessionState(Session(id="s", title="t"), [Command(id="c", title="x", text="ls", status="previous")])
    commands = render_markdown(state).split("## Deployment commands\n\n")[1].split("\n## ")[0]
    assert commands.startswith("_No current commands recorded._\n\n### Earlier and failed commands\n\n#### x\n")


def test_an_instruction_title_that_repeats_the_quote_is_not_repeated() -> None:
    state = SessionState(
        Session(id="s", title="t"),
        [
            Instruction(id="same", title="Never use  FP8 KV", quote="Never use FP8 KV", standing=True),
            Instruction(id="other", title="No FP8", quote="Never use FP8 KV"),
            Instruction(id="tricky", title='a" — b', quote='a" — b'),
        ],
    )
    text = render_markdown(state)
    assert '- "Never use FP8 KV" — standing · active · `same`' in text
    assert '- "Never use FP8 KV" — No FP8 — one-off · active · `other`' in text
    # A quote holding `" — ` keeps its title, so the reader can tell where the quote ends.
    assert '- "a" — b" — a" — b — one-off · active · `tricky`' in text
    assert mdformat.text(text, extensions={"tables"}) == text


def test_a_title_ending_in_hash_stays_a_title() -> None:
    # `### x #` would end the heading with a closing sequence and lose the `#`.
    from statedump.models import Command, Decision

    state = SessionState(
        Session(id="s", title="C#"),
        [
            Command(id="c", title="#", text="ls"),
            Command(id="p", title="run #2 #", text="ls", status="failed"),
            Decision(id="d", title="a #", choice="x"),
        ],
    )
    text = render_markdown(state)
    assert text.startswith("# C\\#\n") and "\n### \\#\n" in text and "\n#### run #2 \\#\n" in text and "\n#### a \\#\n" in text
    assert mdformat.text(text, extensions={"tables"}) == text


def test_brackets_split_across_a_title_and_its_source_stay_literal() -> None:
    # A `[` in one field and a `]` in the next sit in one run of text; escaping them one
    # field at a time would disagree with how a parser pairs them.
    from statedump.models import File, Task

    recs = [
        Discovery(id="d", title="[", source="]"),
        File(id="f", path="p", title="[x", source="y]"),
        Task(id="t", title="x", impact="[a", source="b]"),
    ]
    doc = render_markdown(SessionState(Session(id="s", title="t"), recs))
    assert mdformat.text(doc, extensions={"tables"}) == doc
