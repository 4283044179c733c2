"""The MCP face: serves one store to coding agents over stdio.

Thin like the CLI: every tool parses its arguments, calls the same library functions
the commands call, and returns their result. Only this package imports the MCP SDK.
"""

from __future__ import annotations

from statedump.core.store.store import Store
from statedump.mcpserver.server import Server

INSTRUCTIONS = """\
statedump keeps the state of this engineering session as small records in a git repository. \
Read `state_document` (or the resource statedump://sessions/<id>/state) to learn the goal, the \
user's standing instructions, what was found and decided, and the next steps. Record each \
discovery, decision, benchmark, command or task the moment it happens with `add_record`, \
quoting the user verbatim in instructions and linking decisions to their evidence; change a \
record with `update_record` rather than adding a duplicate. `why` explains a past decision; \
`check` finds drift and dangling links; the prompt `write-state-dump` walks you through a full \
dump, and `dump` tags it."""


def build_server(store: Store) -> Server:
    """The MCP server for `store`: tools, resources and prompts."""
    from statedump import __version__
    from statedump.mcpserver import audit, prompts, records, resources, tools

    app = Server(
        "statedump",
        title="statedump",
        version=__version__,
        instructions=INSTRUCTIONS,
        tools=[records.add_tool(store)],
        log_level="WARNING",
    )
    records.register(app, store)
    tools.register(app, store)
    audit.register(app, store)
    resources.register(app, store)
    prompts.register(app, store)
    return app


def serve(store: Store) -> None:
    """Serve `store` on stdin/stdout until the client closes the connection."""
    build_server(store).run(transport="stdio")
