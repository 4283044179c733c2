"""Resume prompt layouts, one per agent, each shaped like that agent's own summaries.

- `plain`: a neutral layout, in the order a new session needs things.
- `opencode`: opencode's compaction summary, `Goal / Instructions / Discoveries /
  Accomplished / Relevant files / directories` (the same spine as the state document).
- `claude`: Claude Code's compact summary, nine numbered sections with its exact headings.
- `codex`: Codex's handoff summary: objective, progress and decisions, constraints,
  remaining work, critical data.

All of them draw the same pieces (`statedump.services.report.parts`), so a budget drops the
same detail whatever the layout.
"""

from __future__ import annotations

from collections.abc import Callable

from statedump.core.render.markup import code, inline
from statedump.models import Instruction, Task
from statedump.models.state import SessionState
from statedump.services.report.parts import (
    Parts,
    benchmark_items,
    dead_end_items,
    decision_item,
    done_items,
    earlier_items,
    file_items,
    finding_items,
    goal_block,
    launch_blocks,
    listing,
    numbered,
    open_question_items,
    other_command_items,
    reference_items,
    section,
    stack_items,
    standing_items,
    step_items,
    task_item,
    verify_blocks,
)

Layout = Callable[[Parts, frozenset[str]], list[str]]


def header(state: SessionState) -> str:
    """The session line every layout starts with: id, model, hardware."""
    s = state.session
    facts = [f"Session {code(s.id)}"]
    facts += [f"{label}: {inline(value)}" for label, value in (("model", s.model), ("hardware", s.hardware)) if value]
    return " · ".join(facts)


_GUIDE = (
    "Follow the standing instructions and keep the accepted decisions; do not retry the dead ends; "
    "run the verification commands before changing the deployment. "
    "`statedump show ID` prints any record named here by its id."
)


def _decisions(parts: Parts, omit: frozenset[str]) -> list[str]:
    return [decision_item(d, omit) for d in parts.accepted]


def _tasks(tasks: list[Task], omit: frozenset[str]) -> list[str]:
    return [task_item(t, omit) for t in tasks]


def plain(parts: Parts, omit: frozenset[str]) -> list[str]:
    """Neutral layout: what to keep, what to avoid, where things stand, what to do next."""
    title = inline(parts.state.session.title)
    return [
        f"# Resume: {title}\n\n{header(parts.state)}\n\n{_GUIDE}",
        section("## Goal", [goal_block(parts, omit)]),
        section("## Standing instructions (the user's words; they still apply)", [listing(standing_items(parts, omit))], "_None._"),
        section("## Accepted decisions (keep them)", [listing(_decisions(parts, omit))], "_None._"),
        section("## Current launch command (run it as written)", launch_blocks(parts, omit)),
        section("## Open questions", [listing(open_question_items(parts, omit))]),
        section("## Dead ends (do not retry)", [listing(dead_end_items(parts, omit))], "_None recorded._"),
        section(
            "## Current state",
            [
                section("### Findings", [listing(finding_items(parts, omit))]),
                section("### In progress", [listing(_tasks(parts.active, omit))]),
                section("### Blocked", [listing(_tasks(parts.blocked, omit))]),
                section("### Done", [listing(done_items(parts, omit))]),
                section("### Benchmarks", [listing(benchmark_items(parts, omit))]),
                section("### Software stack", [listing(stack_items(parts, omit))]),
                section("### Current commands not yet known good", [listing(other_command_items(parts, omit))]),
            ],
        ),
        section("## Next steps", [numbered(step_items(parts, omit))], "_None recorded._"),
        section(
            "## Verify the deployment (last known good commands)", verify_blocks(parts, omit), "_No command is marked last known good._"
        ),
        section("## Earlier requests", [listing(earlier_items(parts, omit))]),
        section("## Relevant files and references", [listing(file_items(parts, omit) + reference_items(parts, omit))]),
    ]


def opencode(parts: Parts, omit: frozenset[str]) -> list[str]:
    """opencode's summary spine: Goal, Instructions, Discoveries, Accomplished, Relevant files / directories."""
    return [
        f"{header(parts.state)}\n\n{_GUIDE}",
        section("## Goal", [goal_block(parts, omit)]),
        section(
            "## Instructions",
            [
                listing(standing_items(parts, omit), "Standing (the user's words; they still apply):"),
                listing(earlier_items(parts, omit), "Earlier requests:"),
            ],
            "_None recorded._",
        ),
        section(
            "## Discoveries",
            [
                section("### Accepted decisions (keep them)", [listing(_decisions(parts, omit))]),
                section("### Open questions", [listing(open_question_items(parts, omit))]),
                section("### Dead ends (do not retry)", [listing(dead_end_items(parts, omit))]),
                section("### Findings", [listing(finding_items(parts, omit))]),
                section("### Benchmarks", [listing(benchmark_items(parts, omit))]),
                section("### Software stack", [listing(stack_items(parts, omit))]),
            ],
            "_Nothing discovered yet._",
        ),
        section(
            "## Accomplished",
            [
                section("### Done", [listing(done_items(parts, omit))]),
                section("### In progress", [listing(_tasks(parts.active, omit))]),
                section("### Blocked", [listing(_tasks(parts.blocked, omit))]),
                section("### Next steps", [numbered(step_items(parts, omit))]),
                section("### Current launch command (run it as written)", launch_blocks(parts, omit)),
                section("### Verify the deployment (last known good commands)", verify_blocks(parts, omit)),
                section("### Current commands not yet known good", [listing(other_command_items(parts, omit))]),
            ],
            "_Nothing accomplished yet._",
        ),
        section("## Relevant files / directories", [listing(file_items(parts, omit) + reference_items(parts, omit))]),
    ]


def _current_work(parts: Parts, omit: frozenset[str]) -> str:
    if parts.active:
        return listing(_tasks(parts.active, omit))
    if parts.done:
        last = parts.done[-1]
        return f"No task is in progress. The last finished task: **{inline(last.title)}** — {code(last.id)}."
    return "No task is in progress."


def _next_step(parts: Parts, omit: frozenset[str]) -> str:
    if not parts.steps:
        return "None recorded."
    first = parts.steps[0]
    text = task_item(first, omit)
    quotes = [parts.state.get(i) for i in first.links.prompted_by]
    said = [f'The user asked: "{inline(q.quote)}" ({inline(q.source or q.id)})' for q in quotes if isinstance(q, Instruction)]
    return "\n\n".join([text, *said])


def claude(parts: Parts, omit: frozenset[str]) -> list[str]:
    """Claude Code's nine numbered sections, headings exactly as its own summaries write them."""
    intro = (
        "This session continues earlier work whose conversation is no longer in context. "
        "The summary below was written by statedump from the session's records."
    )
    risks = [d for d in parts.findings if d.category == "risk"]
    others = [d for d in parts.findings if d.category != "risk"]
    errors = Parts(state=parts.state, findings=risks)
    solving = Parts(state=parts.state, findings=others, working=parts.working)

    def numbered_section(n: int, name: str, blocks: list[str]) -> str:
        return section(f"{n}. {name}:", blocks, "None.")

    return [
        f"{intro}\n\n{header(parts.state)}\n\nSummary:",
        numbered_section(1, "Primary Request and Intent", [goal_block(parts, omit), _GUIDE]),
        numbered_section(
            2,
            "Key Technical Concepts",
            [
                listing(_decisions(parts, omit), "Accepted decisions (keep them):"),
                listing(stack_items(parts, omit), "Software stack:"),
            ],
        ),
        numbered_section(
            3,
            "Files and Code Sections",
            [
                listing(file_items(parts, omit) + reference_items(parts, omit)),
                "Current launch command (run it as written):" if parts.launch else "",
                *launch_blocks(parts, omit),
                "Last known good commands (run these to verify the deployment):" if parts.verify else "",
                *verify_blocks(parts, omit),
                listing(other_command_items(parts, omit), "Current commands not yet known good:"),
            ],
        ),
        numbered_section(
            4,
            "Errors and fixes",
            [
                listing(dead_end_items(parts, omit), "Dead ends (do not retry):"),
                listing(finding_items(errors, omit), "Problems found and how they stand:"),
            ],
        ),
        numbered_section(
            5,
            "Problem Solving",
            [
                listing(finding_items(solving, omit)),
                listing(benchmark_items(parts, omit), "Benchmarks:"),
                listing(open_question_items(parts, omit), "Open questions:"),
                listing(done_items(parts, omit), "Done:"),
            ],
        ),
        numbered_section(
            6,
            "All user messages",
            [
                listing(standing_items(parts, omit), "Standing instructions (verbatim; they still apply):"),
                listing(earlier_items(parts, omit), "Earlier messages:"),
            ],
        ),
        numbered_section(
            7,
            "Pending Tasks",
            [numbered(step_items(parts, omit)), listing(_tasks(parts.blocked, omit), "Blocked:")],
        ),
        numbered_section(8, "Current Work", [_current_work(parts, omit)]),
        numbered_section(9, "Optional Next Step", [_next_step(parts, omit)]),
    ]


def codex(parts: Parts, omit: frozenset[str]) -> list[str]:
    """Codex's handoff summary: objective, progress and decisions, constraints, remaining work, data."""
    intro = (
        "Handoff summary for the model resuming this work, written by statedump from the session's records. "
        "Build on it and do not repeat work already done."
    )
    return [
        f"{intro}\n\n{header(parts.state)}",
        section("## Objective", [goal_block(parts, omit)]),
        section(
            "## Progress and key decisions",
            [
                listing(_decisions(parts, omit), "Accepted decisions (keep them):"),
                listing(done_items(parts, omit), "Done:"),
                listing(_tasks(parts.active, omit), "In progress:"),
                listing(finding_items(parts, omit), "Findings:"),
            ],
            "_Nothing yet._",
        ),
        section(
            "## Constraints and user preferences",
            [
                listing(standing_items(parts, omit), "Standing instructions (the user's words):"),
                listing(dead_end_items(parts, omit), "Dead ends (do not retry):"),
                listing(earlier_items(parts, omit), "Earlier requests:"),
            ],
            "_None recorded._",
        ),
        section(
            "## Remaining work",
            [
                numbered(step_items(parts, omit)),
                listing(_tasks(parts.blocked, omit), "Blocked:"),
                listing(open_question_items(parts, omit), "Open questions:"),
            ],
            "_None recorded._",
        ),
        section(
            "## Critical data and references",
            [
                "Current launch command (run it as written):" if parts.launch else "",
                *launch_blocks(parts, omit),
                listing(benchmark_items(parts, omit), "Benchmarks:"),
                "Last known good commands (run these to verify the deployment):" if parts.verify else "",
                *verify_blocks(parts, omit),
                listing(other_command_items(parts, omit), "Current commands not yet known good:"),
                listing(stack_items(parts, omit), "Software stack:"),
                listing(file_items(parts, omit) + reference_items(parts, omit), "Files and references:"),
            ],
        ),
    ]


LAYOUTS: dict[str, Layout] = {"plain": plain, "opencode": opencode, "claude": claude, "codex": codex}
"""`--for` name -> layout."""
