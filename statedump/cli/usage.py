"""Mistakes on the command line (an unknown command, option or choice, a missing argument) as one
line naming the command, what was wrong, the nearest valid name, and where the help is — not
click's four-line usage block."""

from __future__ import annotations

import re

import click

from statedump.core.render.candidates import did_you_mean, nearest

# click words a bad choice as `'tsk' is not one of 'task', 'goal'.` (8.x) or `'tsk' is not 'task'.`
_BAD_CHOICE = re.compile(r"'([^']*)' is not (?:one of )?'")


def usage_line(err: click.UsageError) -> str:
    """The one line for a usage error: `statedump add: KIND 'tsk' is not valid: did you mean 'task'? (see …)`."""
    ctx = err.ctx
    command = ctx.command_path if ctx is not None else "statedump"
    message = " ".join(err.format_message().split()).replace(". (", " (").rstrip(".")
    param = err.param if isinstance(err, click.BadParameter) else None
    if param is not None and isinstance(param.type, click.Choice) and (found := _BAD_CHOICE.search(message)):
        # The whole list of kinds or formats is long: the nearest one says enough, the help the rest.
        label = param.opts[0] if isinstance(param, click.Option) else (getattr(param, "metavar", None) or param.name or "value").upper()
        choices = [str(c) for c in param.type.choices]
        listed = ", ".join(choices) if len(choices) <= 12 else nearest(found.group(1), choices)
        hint = did_you_mean(found.group(1), choices) or f"use one of: {listed}"
        message = f"{label} {found.group(1)!r} is not valid: {hint}"
    return f"{command}: {message} (see `{command} --help`)"


def unknown_command(ctx: click.Context, name: str, known: list[str]) -> click.UsageError:
    """`statedump rendr` -> `No such command 'rendr': did you mean 'render'?`"""
    hint = did_you_mean(name, known)
    return click.UsageError(f"no such command {name!r}" + (f": {hint}" if hint else ""), ctx)
