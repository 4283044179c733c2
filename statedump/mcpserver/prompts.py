"""Prompts: resume a session, and write a state dump now through the tools."""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import MCPServer

from statedump.core.store.store import Store
from statedump.mcpserver.errors import prompt_errors

DUMP_NOW = """\
Write a state dump of this session now, as records in statedump (session `{session}`), \
not as one long message. Use the statedump tools; each call is validated and committed alone, \
so record one thing per call and fix any field an error names. Every record goes in with \
`add_record` and its `kind`; `describe_kind` shows a kind's fields.

1. Goal: if `state_document` shows no goal, a `goal` with the success criteria.
2. Instructions: every instruction the user gave that still matters, as an `instruction`, \
`quote` copied verbatim (their exact words, typos included), `standing: true` for constraints \
that hold for the rest of the session, and `source` naming the message.
3. Discoveries: each finding, risk or dead end (`discovery`, `category` finding / risk / \
dead-end; dead ends are worth as much as findings). Compatibility results as `compat`, \
measured numbers as `benchmark` (metrics with units, the environment, the command), the \
software stack as `component`.
4. Decisions: each choice as a `decision`: the `question`, the `choice`, `alternatives` \
each with `why_not`, the `rationale`, `tradeoffs` with numbers, and `links.evidence` to the \
discoveries and benchmarks it rests on (add those first), `links.prompted_by` to the instruction \
that prompted it, and `enforces` for the exact flag of the command that carries it out.
5. Deployment: the commands that run now, verbatim, as `command`.
6. Accomplished and next steps: finished work as a `task` with status `done`; what remains as \
a `task` with status `todo` (or `proposed` if nobody has agreed to it), a `priority` \
(1 = most urgent) and the expected `impact`.

Before adding, call `list_records` so you do not duplicate a record that exists: change it \
with `update_record` (or `set_status`) instead, and `remove_record` what was recorded by \
mistake. Finish by reading `state_document`, checking that it says what a new agent would \
need to carry on, and calling `dump` to tag the state."""


def register(app: MCPServer[Any], store: Store) -> None:
    """Add the prompts to `app`."""

    @app.prompt(name="write-state-dump", title="Write a state dump now")
    @prompt_errors
    def write_state_dump(session: str | None = None) -> str:
        """Ask the agent to record goal, instructions, discoveries, decisions and next steps through the tools."""
        return DUMP_NOW.format(session=store.pick_session(session))
