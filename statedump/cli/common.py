"""Options and output helpers that every command shares."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

if TYPE_CHECKING:
    from statedump.core.store.store import Store

F = TypeVar("F", bound=Callable[..., Any])


def store_option(func: F) -> F:
    """`--store PATH` (else $STATEDUMP_STORE, else the work tree around here)."""
    return click.option(
        "--store",
        "store_path",
        type=click.Path(file_okay=False, path_type=Path),
        help="The store (default: $STATEDUMP_STORE, else the git work tree around here).",
    )(func)


def session_option(func: F) -> F:
    """`-s/--session ID` (else the only or most recent active session)."""
    return click.option("-s", "--session", "session", help="Session id (default: the only or most recent active one).")(func)


def json_option(func: F) -> F:
    return click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")(func)


def open_store(store_path: Path | None) -> Store:
    # Imported here so that a command pays for the store (pydantic, YAML) only when it opens one.
    from statedump.core.store.store import Store

    return Store.find(store_path)


def print_json(data: Any) -> None:
    """`data` to stdout through the one JSON encoder (records, dates and infinities included)."""
    from statedump.core.render.json import to_json

    click.echo(to_json(data))


def safe(text: str) -> str:
    """Text for the terminal with control characters shown, never sent raw."""
    from statedump.core.render.markup import visible

    return visible(text)


def stdout_is_terminal() -> bool:
    return sys.stdout.isatty()
