"""A short account of what a command sets, written into the record's body so that search,
`why` and readers see the flags and environment without parsing the text themselves."""

from __future__ import annotations

from statedump.core.render.markup import code
from statedump.services.flags import ParsedCommand


def describe(parsed: ParsedCommand, exclude_env: set[str] | None = None) -> str | None:
    """`Flags: `--tp-size 8`, ...` and `Environment: `NCCL_P2P_LEVEL=SYS`, ...` lines, or None."""
    lines = []
    flags = [f"{name} {value}" if value is not None else name for name, values in parsed.flags.items() for value in values]
    if flags:
        lines.append("Flags: " + ", ".join(code(f) for f in flags))
    env = [f"{k}={v}" for k, v in parsed.env.items() if k not in (exclude_env or set())]
    if env:
        lines.append("Environment: " + ", ".join(code(e) for e in env))
    return "\n\n".join(lines) or None


def program_name(parsed: ParsedCommand) -> str | None:
    """The main program: the one given the most flags (`python -m sglang.launch_server`)."""
    if not parsed.programs:
        return None
    words = max(parsed.programs, key=lambda p: sum(w.startswith("-") for w in p))
    if len(words) >= 3 and words[1] == "-m":
        return " ".join(words[:3]).rsplit("/", 1)[-1]
    return words[0].rsplit("/", 1)[-1]
