"""stdio for the MCP server: one JSON-RPC message a line, and an answer to every request.

The SDK's stdio transport drops a line it cannot read (it logs it and goes on), so a client
that sent a malformed line, or a request whose id is an object or null, waits for an answer
that never comes. Here each line is read first: one that is not JSON is answered with a
parse error (-32700), one that is JSON but not a message MCP allows with an invalid request
(-32600), as JSON-RPC 2.0 says, with the request's id when it has a usable one and null
otherwise. MCP forbids a null id ("Requests MUST include a string or integer ID"), which the
SDK's reader would take for a notification and never answer.
"""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator
from typing import Any

import anyio
import anyio.to_thread
import mcp_types as types
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.shared.message import SessionMessage
from mcp_types.jsonrpc import INVALID_REQUEST, PARSE_ERROR
from pydantic import ValidationError


def _error(request_id: Any, code: int, message: str) -> types.JSONRPCError:
    return types.JSONRPCError(jsonrpc="2.0", id=request_id, error=types.ErrorData(code=code, message=message))


def _usable_id(value: Any) -> bool:
    return isinstance(value, str | int) and not isinstance(value, bool)


def read_line(line: str) -> types.JSONRPCMessage | types.JSONRPCError | None:
    """The message on one line, or the error that answers it, or None for a line that needs
    no answer (a blank line, or a malformed response, which JSON-RPC never answers)."""
    if not line.strip():
        return None
    try:
        message = types.jsonrpc_message_adapter.validate_json(line, by_name=False)
    except ValidationError:
        message = None
    if message is not None and not (isinstance(message, types.JSONRPCNotification) and '"id"' in line):
        return message
    try:
        data = json.loads(line)
    except (ValueError, RecursionError):
        return _error(None, PARSE_ERROR, "Parse error: the line is not valid JSON")
    if not isinstance(data, dict):
        return _error(None, INVALID_REQUEST, "Invalid request: a message is one JSON object (MCP has no batches)")
    if "method" not in data and ("result" in data or "error" in data):
        return None
    if "id" in data and not _usable_id(data["id"]):
        return _error(None, INVALID_REQUEST, "Invalid request: the id must be a string or an integer")
    if message is not None:  # a notification after all: `"id"` was text inside it
        return message
    return _error(data.get("id") if _usable_id(data.get("id")) else None, INVALID_REQUEST, "Invalid request: not a JSON-RPC 2.0 message")


def _claim() -> tuple[int, int]:
    """The wire, as private copies of fd 0 and 1; fd 0 then reads nothing and fd 1 goes to
    stderr, so git or a stray print can neither eat a request nor tear a response."""
    wire_in, wire_out = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    return wire_in, wire_out


# The wire is read and written in the event loop, waiting on the descriptors themselves: a
# worker thread per line each way (as the SDK's transport does) costs an agent's add a
# millisecond or two on a busy machine, and a thread blocked in a read outlives the server.
# A descriptor the loop cannot wait on (a regular file given as stdin) is read in a thread.
_CHUNK = 4096
"""At most this much is written per wait: a pipe that polls writable takes a page without blocking."""


async def _chunks(fd: int) -> AsyncIterator[bytes]:
    pollable = True
    while True:
        if pollable:
            try:
                await anyio.wait_readable(fd)
            except OSError:  # epoll refuses regular files
                pollable = False
        try:
            chunk = os.read(fd, 1 << 16) if pollable else await anyio.to_thread.run_sync(os.read, fd, 1 << 16)
        except OSError:  # the client's end is gone (EIO on a hung-up terminal): as at the end of input
            return
        if not chunk:
            return
        yield chunk


async def _read(
    fd: int, to_server: MemoryObjectSendStream[SessionMessage | Exception], replies: MemoryObjectSendStream[SessionMessage]
) -> None:
    pending = b""
    async with to_server, replies:
        async for chunk in _chunks(fd):
            *lines, pending = (pending + chunk).split(b"\n")
            for line in lines:
                got = read_line(line.decode("utf-8", errors="replace"))
                if isinstance(got, types.JSONRPCError):
                    await replies.send(SessionMessage(got))
                elif got is not None:
                    await to_server.send(SessionMessage(got))
        got = read_line(pending.decode("utf-8", errors="replace"))  # a last line without its newline
        if isinstance(got, types.JSONRPCError):
            await replies.send(SessionMessage(got))
        elif got is not None:
            await to_server.send(SessionMessage(got))


async def _write(fd: int, from_server: MemoryObjectReceiveStream[SessionMessage], stop: anyio.CancelScope) -> None:
    pollable = True
    async with from_server:
        async for item in from_server:
            data = memoryview((item.message.model_dump_json(by_alias=True, exclude_unset=True) + "\n").encode())
            while data:
                if pollable:
                    try:
                        await anyio.wait_writable(fd)
                    except OSError:  # a regular file or a terminal that epoll refuses: plain writes
                        pollable = False
                try:
                    data = data[os.write(fd, data[:_CHUNK] if pollable else data) :]
                except OSError:
                    # The client closed its end (a broken pipe): nobody reads answers any more,
                    # so the server stops as it does when stdin closes, quietly, exit 0.
                    stop.cancel()
                    return


async def serve(server: Any) -> None:
    """Serve the low-level `server` on this process's stdin and stdout until stdin closes."""
    wire_in, wire_out = _claim()
    to_server, from_wire = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    to_wire, from_server = anyio.create_memory_object_stream[SessionMessage](0)
    async with anyio.create_task_group() as tg:
        tg.start_soon(_write, wire_out, from_server, tg.cancel_scope)
        tg.start_soon(_read, wire_in, to_server, to_wire.clone())
        async with to_wire:
            await server.run(from_wire, to_wire, server.create_initialization_options())
