"""Tools and prompts over the audit and report services: why, check, resume.

The audit and check services are imported when first called.
"""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.mcpserver import MCPServer
from pydantic import Field

from statedump.core.store.store import Store
from statedump.mcpserver.errors import prompt_errors, tool_errors
from statedump.mcpserver.tools import READ, SessionArg
from statedump.services.report.resume import FLAVORS

AGENTS = ", ".join(FLAVORS)


def register(app: MCPServer[Any], store: Store) -> None:
    """Add `why`, `check`, the resume prompt and its tool to `app`."""
    from statedump.services.report.resume import resume_prompt

    @app.tool(annotations=READ, structured_output=False)
    @tool_errors
    def why(
        query: Annotated[str, Field(description="A decision id, a flag it enforces (kv-cache-dtype) or words from it.")],
        format: Annotated[str, Field(description="`markdown` (default) or `json`.")] = "markdown",
        session: SessionArg = None,
    ) -> str | dict[str, Any]:
        """Why a decision was made: the question, the user's words that prompted it, the evidence with
        its numbers, the alternatives rejected, the flags that carry it out, and the commit."""
        from statedump.core.errors import StatedumpError
        from statedump.core.render.why import why_json, why_markdown
        from statedump.services.why import why as explain

        if format not in ("markdown", "json"):
            raise StatedumpError(f"format {format!r} is not markdown or json", where="format")
        report = explain(store, store.pick_session(session), query)
        return why_json(report) if format == "json" else why_markdown(report)

    @app.tool(annotations=READ, structured_output=False)
    @tool_errors
    def check(session: SessionArg = None) -> dict[str, Any]:
        """Find drift between decisions and the commands that carry them out, dangling links,
        instructions contradicted by decisions, benchmarks without their command, and (advisory)
        decisions that need review and benchmarks whose command changed since they were measured.
        An empty `findings` list means the session is consistent."""
        from statedump.services.check import check_json
        from statedump.services.review import check_session

        sid = store.pick_session(session)
        return check_json(sid, check_session(store, sid)[1])

    @app.tool(annotations=READ, structured_output=False)
    @tool_errors
    def resume(
        agent: Annotated[str, Field(description="Which agent the prompt is laid out for: " + AGENTS + ".")] = "plain",
        budget: Annotated[int | None, Field(description="Most tokens the prompt may take; detail is dropped to fit.")] = None,
        session: SessionArg = None,
    ) -> str:
        """The prompt that restores a new agent session: the goal, the user's standing instructions
        verbatim, accepted decisions with the flags they enforce, dead ends not to retry, where
        things stand, the next steps and the commands that verify the deployment."""
        return resume_prompt(store.load(store.pick_session(session)), flavor=agent, budget=budget).text

    @app.prompt(name="resume-session", title="Resume this session")
    @prompt_errors
    def resume_session(session: str | None = None, agent: str = "plain") -> str:
        """Restore where the session stands, so a new conversation carries on the same work."""
        return resume_prompt(store.load(store.pick_session(session)), flavor=agent).text
