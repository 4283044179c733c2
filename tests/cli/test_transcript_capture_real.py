"""What the transcript readers keep from real public transcripts (tests/corpus_real/transcripts,
sources in its SOURCES.md): what became of each request, the agent's reports, the checks it ran,
refused writes, and subagent transcripts followed from the parent."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from statedump.models import Command, Decision, Discovery, File, Goal, Instruction, Task
from statedump.services.ingest import claude_code, codex, opencode
from statedump.services.ingest.chatter import is_chatter
from statedump.services.ingest.plan import ImportPlan

REAL = Path(__file__).resolve().parent.parent / "corpus_real" / "transcripts"
CC = REAL / "claude-code"
TEAM = CC / "ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl"


def _instructions(plan: ImportPlan) -> dict[str, str]:
    return {r.quote: r.status for r in plan.records if isinstance(r, Instruction)}


def _one(plan: ImportPlan, kind: type[Any], text: str) -> Any:
    found = [r for r in plan.records if isinstance(r, kind) and text in (r.title + "\n" + (r.body or ""))]
    assert len(found) == 1, [r.title for r in plan.records if isinstance(r, kind)]
    return found[0]


def test_rewound_session_live_branch_done_abandoned_superseded_opening_remark_dropped() -> None:
    plan = claude_code.read(CC / "daaain-03eb5929-rewind-fork.jsonl")
    said = _instructions(plan)
    assert said["Ok, so, to be fair, maybe also list 5 strengths of this proposal."] == "done"
    assert [s for q, s in said.items() if q.startswith("I very much like this idea")] == ["superseded"]
    assert [s for q, s in said.items() if q.startswith("I actually don't like")] == ["done"]
    # The last request: the agent answered and the 2.x stop-hook line closed its turn.
    fair = [r.status for r in plan.records if isinstance(r, Instruction) and r.quote.startswith("Fair enough.")]
    assert sorted(fair) == ["done", "superseded"]
    # "Ok, so there's isn't much to see here, mostly one idea …" asks for nothing.
    assert not [q for q in said if q.startswith("Ok, so there's")]
    assert not [r for r in plan.records if isinstance(r, Goal) and r.title.startswith("Ok, so there's")]


def test_init_prompt_is_the_request_and_a_refused_write_is_kept() -> None:
    plan = claude_code.read(CC / "ccviewer-1af7fc5e-init-todowrite.jsonl")
    said = _instructions(plan)
    assert [s for q, s in said.items() if q.startswith("Please analyze this codebase and create a CLAUDE.md")] == ["done"]
    assert not [q for q in said if "<command-" in q]
    claude = _one(plan, File, "/path/to/Demo/CLAUDE.md")
    assert "not written" in (claude.body or "")
    refusal = _one(plan, Discovery, "you haven't granted it yet")
    assert refusal.category == "risk" and refusal.links.relates_to == [claude.id]
    # What the agent said before it wrote: a finding of its own.
    assert _one(plan, Discovery, "The directory appears to be empty").status == "confirmed"
    goal = next(r for r in plan.records if isinstance(r, Goal))
    assert goal.status == "achieved"  # carried out, every todo completed


def test_slash_command_arguments_are_the_request() -> None:
    plan = claude_code.read(CC / "ccviewer-5c0375b4-inline-sidechains.jsonl")
    assert _instructions(plan) == {"/orchestrator @CLAUDE.md を最新の状態にアップデートしてください": "done"}
    # The closing reply (in Japanese) is the report of what changed.
    assert "`npm run type-check`を削除" in (_one(plan, Discovery, "CLAUDE.mdファイルを最新の状態にアップデートしました").body or "")


def test_a_rule_inside_a_request_stands_and_the_request_is_done() -> None:
    plan = claude_code.read(TEAM)
    said = _instructions(plan)
    assert [s for q, s in said.items() if q.startswith("OK, we're going to make a little experiment")] == ["done"]
    rule = next(r for r in plan.records if isinstance(r, Instruction) and r.quote.startswith("To be clear: don't use ClMail"))
    assert rule.status == "active" and rule.standing
    assert said["Well, the subagents seem to be either stuck or done... can you check?"] == "done"
    goal = next(r for r in plan.records if isinstance(r, Goal))
    assert goal.status == "achieved" and "hand over this research to teammates" in (goal.body or "")


def test_subagent_transcript_is_followed_from_the_parent_and_linked_to_its_task() -> None:
    plan = claude_code.read(TEAM)
    task = _one(plan, Task, "Round 2: alice comparison")
    assert task.status == "done"
    answer = _one(plan, Discovery, "Subagent (Round 2: alice comparison) reported")
    assert answer.links.relates_to == [task.id] and "9877e045709794be3d0377907b64ad8d16ce7a5e" in (answer.body or "")
    # From subagents/agent-a36efb2a1231c41e2.jsonl: the file alice edited, prompted by that task.
    edited = _one(plan, File, "work/research-plan-mode.md")
    assert edited.links.prompted_by == [task.id] and "subagent" in edited.tags
    # Its prompt is the task's body, not the person's instruction.
    assert not [q for q in _instructions(plan) if q.startswith("You are **alice** (round 2)")]
    assert any("agent-a36efb2a1231c41e2.jsonl: " in n and task.id in n for n in plan.notes)


def test_subagent_transcript_imports_alone() -> None:
    plan = claude_code.read(TEAM.with_suffix("") / "subagents" / "agent-a36efb2a1231c41e2.jsonl")
    said = _instructions(plan)
    assert [s for q, s in said.items() if q.startswith("You are **alice** (round 2)")] == ["done"]
    assert said["Do not edit `work/research-teammates.md` or `work/research-beads.md`."] == "active"
    assert "9877e045709794be3d0377907b64ad8d16ce7a5e" in (_one(plan, Discovery, "Round 2 done.").body or "")


def test_checks_the_agent_ran_are_commands() -> None:
    plan = claude_code.read(CC / "daaain-07f2e15c-v1029-summaries.jsonl")
    checks = {r.text: r.status for r in plan.records if isinstance(r, Command) and "check" in r.tags}
    assert checks.get("uv run pytest --cov=claude_code_log --cov-report=term-missing") == "current"
    assert checks.get("uv run pyright") == "current"
    # Nothing but checks, launches and failures: `ls`, `grep`, `git diff` are not kept.
    assert all("check" in r.tags or r.status == "failed" for r in plan.records if isinstance(r, Command))
    goal = next(r for r in plan.records if isinstance(r, Goal))
    assert goal.status == "achieved"


def test_compaction_subagent_reply_is_its_summary_not_a_report() -> None:
    plan = claude_code.read(CC / "spotter-agent-acompact-e1f845.jsonl")
    assert not [r for r in plan.records if isinstance(r, Discovery) and "report" in r.tags]
    assert not [r for r in plan.records if "<analysis" in r.title]


def test_acknowledgements_are_no_instructions_and_a_yes_goes_on_with_the_request(tmp_path: Path) -> None:
    for text in ("Excellent work, thank you!", "thanks", "ok proceed", "yes", "Great, thanks for all the help!"):
        assert is_chatter(text), text
    for text in ("So the server crashes with OOM at startup.", "ok, now run the benchmark", "Ok the server crashes", "no"):
        assert not is_chatter(text), text
    # entire-3e7e…: "hmm, … we should list checkpoints by branch …", the agent proposes, the person
    # says "yes", and the file ends mid-work: the request is still under way.
    plan = claude_code.read(CC / "entire-3e7e38433d1c-compaction-todos.jsonl")
    said = {q: s for q, s in _instructions(plan).items() if q.startswith("hmm, I think we might have this backwards then, like")}
    assert list(said.values()) == ["active"]
    assert "yes" not in _instructions(plan)


def test_codex_and_opencode_rules_stand_requests_done() -> None:
    plan = opencode.read(REAL / "opencode" / "darkfactory-jolly-eagle-gitter-commit.json")
    said = _instructions(plan)
    assert [s for q, s in said.items() if q.startswith("Use the `gitter-commit` skill")] == ["done"]
    assert said["Do not push."] == "active"
    rollout = codex.read(REAL / "codex" / "acidicsoil-rollout-2025-11-17-lmstudio.jsonl")
    goal = next(r for r in rollout.records if isinstance(r, Goal))
    assert goal.status == "active"  # the published rollout stops mid-work


def test_fast_and_full_parse_agree_on_the_real_files() -> None:
    for path in sorted(CC.glob("*.jsonl")):
        fast, full = claude_code.read(path), claude_code.read(path, parse_all=True)
        assert fast.records == full.records, path.name
        assert json.dumps(fast.notes) == json.dumps(full.notes), path.name


def test_answers_to_the_agents_questions_are_decisions_and_filed_beads_tasks() -> None:
    plan = claude_code.read(CC / "spotter-subagent-task.jsonl")
    decisions = {(r.question, r.choice): r.status for r in plan.records if isinstance(r, Decision)}
    assert decisions[("Which tools should we set up?", "Credo + Dialyxir + mix_audit")] == "accepted"
    assert [c for q, c in decisions if q.startswith("Which rig do these beads belong to?")] == ["No rig"]
    filed = {r.title: r.status for r in plan.records if isinstance(r, Task) and "filed" in r.tags}
    assert filed == {
        "Setup Code Quality Tools (Credo, Dialyxir, mix_audit)": "todo",
        "Install quality tools and configure Credo": "todo",
        "Add mix quality alias": "todo",
    }
    # `bd dep add` files nothing and checks nothing: no record.
    assert not [r for r in plan.records if isinstance(r, Command)]
