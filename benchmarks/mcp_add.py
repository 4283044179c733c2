"""The add an agent makes: one `add_record` call to a resident `statedump mcp`, against a bare
`git add` + `git commit` of one file in the same store (the demo store, as the issue measures).

The server is started once, as an agent's client starts it, and driven by the MCP SDK's own
client over stdio; each timed call is the whole round trip (JSON-RPC out, validation,
redaction, the file written, git add and commit, the answer back). The two jobs take turns,
so a busy machine slows both alike.
"""

from __future__ import annotations

import shutil
import statistics
import time
from pathlib import Path
from typing import Any

from benchmarks.cases import PY, SD, Context, Row, needs

TARGET = 1.5
ROUNDS = 10
"""Timed calls per repetition: one add is milliseconds, so a median of a few would be noise."""


def _demo(ctx: Context) -> Path:
    root = ctx.workdir / "mcp-demo"
    if root.exists():
        shutil.rmtree(root)
    ctx.output([*SD, "demo", str(root)])
    return root


def _git_add(ctx: Context, root: Path, n: int) -> float:
    name = f"plain-mcp-{n}.txt"
    (root / name).write_text(f"plain file {n}\n")
    took = ctx.run(["git", "-C", str(root), "add", "--", name])
    return took + ctx.run(["git", "-C", str(root), "commit", "--quiet", "-m", f"add {name}", "--", name])


async def _measure(ctx: Context, root: Path) -> tuple[list[float], list[float]]:
    import anyio
    from mcp import ClientSession, StdioServerParameters, stdio_client

    params = StdioServerParameters(command=PY, args=["-m", "statedump", "mcp", "--store", str(root)], env=ctx.env, cwd=str(root))
    served: list[float] = []
    bare: list[float] = []
    with anyio.fail_after(ctx.timeout):
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()

            async def add(n: int) -> float:
                arguments: dict[str, Any] = {
                    "kind": "task",
                    "title": f"MCP benchmark add {n} {time.time_ns()}",
                    "body": "Added by the benchmark.",
                }
                started = time.perf_counter()
                result = await session.call_tool("add_record", arguments)
                took = time.perf_counter() - started
                if result.is_error:
                    raise RuntimeError(f"add_record failed: {result.model_dump_json()[:300]}")
                return took

            for n in range(3):  # the first calls import the models and start git's helpers
                await add(-1 - n)
            for n in range(max(ctx.reps, 1) * ROUNDS):
                served.append(await add(n))
                bare.append(_git_add(ctx, root, n))
    return served, bare


def mcp_add(ctx: Context) -> list[Row]:
    """One add over MCP to the resident server <= 1.5x a bare git add + git commit of one file."""
    needs("statedump.mcpserver.server", "mcp")
    import anyio

    served, bare = anyio.run(_measure, ctx, _demo(ctx))
    figure, baseline = statistics.median(served), statistics.median(bare)
    return [
        Row(
            "mcp-add",
            f"add_record over MCP to a resident `statedump mcp`, demo store ({len(served)} calls)",
            figure,
            baseline,
            "git add + git commit of one file in the same store",
            "s",
            f"<= {TARGET}x",
            figure / baseline,
            figure <= TARGET * baseline,
            extra={"p90": statistics.quantiles(served, n=10)[-1] if len(served) >= 10 else max(served)},
        )
    ]
