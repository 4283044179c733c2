"""`statedump mcp`: serve the store to agents over MCP on stdio."""

from __future__ import annotations

from pathlib import Path

import click

from statedump.cli.common import open_store, store_option


@click.command()
@store_option
def mcp(store_path: Path | None) -> None:
    """Serve the store to a coding agent over the Model Context Protocol (stdio).

    Register it with the agent as a local command, e.g. `statedump mcp --store PATH`;
    see docs/mcp.md. Logs go to stderr; stdout carries the protocol.
    """
    store = open_store(store_path)
    from statedump.mcpserver import serve

    serve(store)
