"""Prompts: resume a session, and write a state dump now through the tools."""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import MCPServer

from statedump.core.store.store import Store
from statedump.mcpserver.errors import prompt_errors

DUMP_NOW = """\
Write a state dump of this session now, as records in statedump (session `{session}`), \
not as one long message. Use the statedump tools; each call is validated and committed alone, \
so record one thing per call and fix any field an error names.

1. Goal: if `state_document` shows no goal, `add_goal` with the success criteria.
2. Instructions: every instruction the user gave that still matters, with `add_instruction`, \
`quote` copied verbatim (their exact words, typos included), `standing: true` for constraints \
that hold for the rest of the session, and `source` naming the message.
3. Discoveries: each finding, risk or dead end (`add_discovery`, `category` finding / risk / \
dead-end; dead ends are worth as much as findings). Compatibility results with `add_compat`, \
measured numbers with `add_benchmark` (metrics with units, the environment, the command), the \
software stack with `add_component`.
4. Decisions: each choice with `add_decision`: the `question`, the `choice`, `alternatives` \
each with `why_not`, the `rationale`, `tradeoffs` with numbers, and `links.evidence` to the \
discoveries and benchmarks it rests on (add those first), `links.prompted_by` to the instruction \
that prompted it, and `enforces` for the exact flag of the command that carries it out.
5. Deployment: the commands that run now, verbatim, with `add_command`.
6. Accomplished and next steps: finished work as `add_task` with status `done`; what remains as \
`add_task` with status `todo` (or `proposed` if nobody has agreed to it), a `priority` \
(1 = most urgent) and the expected `impact`. Use `set_status` for records whose status changed.

Before adding, call `list_records` so you do not duplicate a record that exists: change its \
status instead. Finish by reading `state_document` and checking that it says what a new agent \
would need to carry on."""


def register(app: MCPServer[Any], store: Store) -> None:
    """Add the prompts to `app`."""

    @app.prompt(name="write-state-dump", title="Write a state dump now")
    @prompt_errors
    def write_state_dump(session: str | None = None) -> str:
        """Ask the agent to record goal, instructions, discoveries, decisions and next steps through the tools."""
        return DUMP_NOW.format(session=store.pick_session(session))
