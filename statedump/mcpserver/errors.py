"""The edge between the domain and the MCP SDK: one store access at a time, errors, results.

Every tool, resource and prompt runs through one of the wrappers here. They do three things:

- **one at a time.** The SDK runs each call in a worker thread, and every call of one server
  shares the store's GitPython `Repo`, whose long-lived `cat-file` pipes are not thread-safe:
  10 parallel `why` calls read each other's answers ("Invalid tree entry mode") and some never
  returned. A call holds `SERIAL` for its whole run, so calls queue instead; a call takes
  milliseconds, and an agent's parallel calls are a handful.
- **errors for an agent.** A StatedumpError carries the CLI's line, whose `where` and hint
  name flags and commands (`-s`, "pass --field choice=...", "`statedump list` shows the
  ids"). `for_agent` says the same with the server's own argument and tool names, and drops
  a hint that still names a command line.
- **results.** A mapping goes back both as JSON text and as `structuredContent`; text (a
  Markdown document, a prompt) as text only.
"""

from __future__ import annotations

import functools
import re
import threading
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError, ToolError
from mcp.shared.exceptions import MCPError
from mcp_types import CallToolResult, TextContent
from mcp_types.jsonrpc import INVALID_PARAMS

from statedump.core.errors import NotFound, StatedumpError, from_os_error
from statedump.core.render.json import plain, to_json

P = ParamSpec("P")
T = TypeVar("T")

SERIAL = threading.RLock()
"""Held by every call for its whole run (see the module docstring). Re-entrant, so a tool that
reads through another wrapped function does not wait for itself."""

# The CLI's names for what a call gives, and the server's.
_WHERE = {"-s": "session", "--for": "agent", "-m": "message"}
_HINTS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"pass --title '\.\.\.'"), "give a title"),
    (re.compile(r"`statedump schema --show (\w+)` lists its fields"), "`describe_kind` with kind '\\1' lists its fields"),
    (re.compile(r"`statedump schema`"), "`describe_kind`"),
    (re.compile(r"`statedump list`"), "`list_records`"),
    (re.compile(r"`statedump sessions`"), "`list_sessions`"),
    (re.compile(r"pick another --id, or `statedump edit` it"), "give another id, or change that record with `update_record`"),
    (re.compile(r"`statedump edit[^`]*`"), "`update_record`"),
    (re.compile(r"\bpass --force\b"), "give `force: true`"),
    # The CLI's flags for a record's own fields are this server's arguments of the same name.
    (re.compile(r"\bpass --(id|title|status|body|source|kind)\b"), "give `\\1`"),
]
_CLI_LEFT = re.compile(r"(?<![\w`])--?[a-z]|`statedump ")


def _agent_hint(hint: str) -> str | None:
    missing = re.findall(r"--field ([\w.]+)=", hint)
    if missing:
        return "give " + ", ".join(missing)
    for pattern, replacement in _HINTS:
        hint = pattern.sub(replacement, hint)
    # A hint that still tells the agent to type a flag or run a command would mislead it.
    return None if _CLI_LEFT.search(hint) else hint


def for_agent(err: StatedumpError) -> str:
    """The error as one line for an agent: the argument at fault by its name in this server,
    what is wrong, and what to do, in tool names rather than command lines."""
    where = _WHERE.get(err.where or "", err.where)
    if where is not None and re.fullmatch(r"--[a-z][\w-]*|[A-Z][A-Z_]*", where):
        where = where.lstrip("-").lower().replace("-", "_")  # `--kind`, `KIND`, `QUERY`: the argument of that name
    text = f"{where}: {err.message}" if where else err.message
    hint = _agent_hint(err.hint) if err.hint else None
    return f"{text} ({hint})" if hint else text


def result(value: Any) -> Any:
    """What a tool hands the SDK: a mapping as JSON text plus `structuredContent`, else as is."""
    data = plain(value)
    if isinstance(data, dict):
        return CallToolResult(content=[TextContent(type="text", text=to_json(data, indent=None))], structured_content=data)
    return data


def tool_errors(fn: Callable[P, Any]) -> Callable[P, Any]:
    """Run a tool alone (`SERIAL`), its result as `result` gives it, a StatedumpError as a tool
    error (`is_error`) whose message `for_agent` wrote."""

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> Any:
        try:
            with SERIAL:
                return result(fn(*args, **kwargs))
        except StatedumpError as err:
            raise ToolError(for_agent(err)) from None
        except OSError as err:  # a full disk, a read-only store: the CLI's one line, not "Error executing tool"
            raise ToolError(for_agent(from_os_error(err))) from None

    return wrapper


def resource_errors(fn: Callable[P, T]) -> Callable[P, T]:
    """Read a resource alone (`SERIAL`); a StatedumpError as a ResourceError (not found when a
    session or record is missing) with `for_agent`'s message."""

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> T:
        try:
            with SERIAL:
                return fn(*args, **kwargs)
        except StatedumpError as err:
            # A missing session or record is the client's wrong URI, not a failure here.
            cls = ResourceNotFoundError if isinstance(err, NotFound) else ResourceError
            raise cls(for_agent(err)) from None

    return wrapper


def prompt_errors(fn: Callable[P, T]) -> Callable[P, T]:
    """Render a prompt alone (`SERIAL`); a StatedumpError as a protocol error, invalid params,
    with `for_agent`'s message (the SDK hides any other exception's text behind a generic one)."""

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> T:
        try:
            with SERIAL:
                return fn(*args, **kwargs)
        except StatedumpError as err:
            raise MCPError(INVALID_PARAMS, for_agent(err)) from None

    return wrapper
