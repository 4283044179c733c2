"""The edge between the domain and the MCP SDK: errors and tool results.

A tool that fails with a StatedumpError must answer with exactly the line the CLI
prints (`str(err)`), so an agent and a person read the same message. A tool's result
leaves through the one JSON encoder, as `--json` output does.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import ParamSpec, TypeVar, cast

from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError, ToolError
from mcp.shared.exceptions import MCPError
from mcp_types.jsonrpc import INVALID_PARAMS

from statedump.core.errors import NotFound, StatedumpError
from statedump.core.render.json import plain

P = ParamSpec("P")
T = TypeVar("T")


def tool_errors(fn: Callable[P, T]) -> Callable[P, T]:
    """Turn a StatedumpError raised by a tool into a ToolError with the CLI's message, and
    its result into JSON-ready data (an infinite request rate as "inf", never a failure in
    the SDK's serializer)."""

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> T:
        try:
            return cast(T, plain(fn(*args, **kwargs)))
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
