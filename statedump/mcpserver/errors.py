"""The edge between the domain error and the MCP SDK's error types.

A tool that fails with a StatedumpError must answer with exactly the line the CLI
prints (`str(err)`), so an agent and a person read the same message.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import ParamSpec, TypeVar

from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError, ToolError
from mcp.shared.exceptions import MCPError
from mcp_types.jsonrpc import INVALID_PARAMS

from statedump.core.errors import NotFound, StatedumpError

P = ParamSpec("P")
T = TypeVar("T")


def tool_errors(fn: Callable[P, T]) -> Callable[P, T]:
    """Turn a StatedumpError raised by a tool into a ToolError with the CLI's message."""

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> T:
        try:
            return fn(*args, **kwargs)
        except StatedumpError as err:
            raise ToolError(str(err)) from None

    return wrapper


def resource_errors(fn: Callable[P, T]) -> Callable[P, T]:
    """Turn a StatedumpError raised by a resource into a ResourceError with the CLI's message."""

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> T:
        try:
            return fn(*args, **kwargs)
        except StatedumpError as err:
            # A missing session or record is the client's wrong URI, not a failure here.
            cls = ResourceNotFoundError if isinstance(err, NotFound) else ResourceError
            raise cls(str(err)) from None

    return wrapper


def prompt_errors(fn: Callable[P, T]) -> Callable[P, T]:
    """Turn a StatedumpError raised by a prompt into a protocol error with the CLI's message
    (the SDK hides any other exception's text behind a generic one)."""

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> T:
        try:
            return fn(*args, **kwargs)
        except StatedumpError as err:
            raise MCPError(INVALID_PARAMS, str(err)) from None

    return wrapper
