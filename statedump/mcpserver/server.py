"""The SDK's server with the protocol behaviour statedump promises on top.

- An argument that fails the SDK's check of a tool's parameters (a missing `id`, `session: 5`)
  is reported as pydantic writes it, "1 validation error for show_recordArguments ...": here
  it becomes the one line `from_validation` writes for the CLI, naming the argument.
- An unknown prompt is answered with invalid params (-32602), as the MCP specification says,
  rather than the SDK's error code 0.
- stdio runs through `transport`, which answers malformed lines.
"""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.context import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp.shared.exceptions import MCPError
from mcp_types import CallToolResult, GetPromptResult, InputRequiredResult
from mcp_types.jsonrpc import INVALID_PARAMS
from pydantic import ValidationError

from statedump.core.errors import from_validation
from statedump.mcpserver.errors import for_agent


class Server(MCPServer[Any]):
    """`MCPServer` whose argument errors and unknown prompts are answered as described above."""

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> CallToolResult | InputRequiredResult:
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as err:
            if not isinstance(err.__cause__, ValidationError):
                raise
            tool = self._tool_manager.get_tool(name)
            params = ", ".join(tool.parameters.get("properties", {})) if tool else ""
            line = for_agent(from_validation(err.__cause__, "arguments", hint=f"{name} takes: {params}"))
            raise ToolError(f"Error executing tool {name}: {line}") from None

    async def get_prompt(
        self, name: str, arguments: dict[str, Any] | None = None, context: Context[Any, Any] | None = None
    ) -> GetPromptResult | InputRequiredResult:
        if self._prompt_manager.get_prompt(name) is None:
            known = ", ".join(p.name for p in self._prompt_manager.list_prompts())
            raise MCPError(INVALID_PARAMS, f"no prompt named {name!r} (prompts: {known})")
        return await super().get_prompt(name, arguments, context)

    async def run_stdio_async(self) -> None:
        from statedump.mcpserver.transport import serve

        # The SDK keeps the protocol server behind MCPServer; its own stdio runner reaches it the same way.
        await serve(self._lowlevel_server)
