"""The MCP face: serves one store to coding agents over stdio.

Thin like the CLI: every tool parses its arguments, calls the same library functions
the commands call, and returns their result. Only this package imports the MCP SDK.
"""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import MCPServer

from statedump.core.store.store import Store

INSTRUCTIONS = """\
statedump keeps the state of this engineering session as small records in a git repository. \
Read `state_document` (or the resource statedump://sessions/<id>/state) to learn the goal, the \
user's standing instructions, what was found and decided, and the next steps. Record each \
discovery, decision, benchmark, command or task the moment it happens with the `add_<kind>` \
tools, quoting the user verbatim in instructions and linking decisions to their evidence. \
`why` explains a past decision; `check` finds drift and dangling links; the prompt \
`write-state-dump` walks you through a full dump."""


def build_server(store: Store) -> MCPServer[Any]:
    """The MCP server for `store`: tools, resources and prompts."""
    from statedump.mcpserver import adding, audit, prompts, resources, tools

    app: MCPServer[Any] = MCPServer(
        "statedump",
        title="statedump",
        instructions=INSTRUCTIONS,
        tools=adding.add_tools(store),
        log_level="WARNING",
    )
    tools.register(app, store)
    audit.register(app, store)
    resources.register(app, store)
    prompts.register(app, store)
    return app


def serve(store: Store) -> None:
    """Serve `store` on stdin/stdout until the client closes the connection."""
    build_server(store).run(transport="stdio")
