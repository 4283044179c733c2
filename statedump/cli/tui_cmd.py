"""`statedump tui`: browse a store in the terminal."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from statedump.cli.common import open_store, session_option, store_option
from statedump.core.errors import StatedumpError


def _need_terminal() -> None:
    # Without a terminal Textual has nothing to draw on and no keys to read: it would spin
    # for ever (at 100% CPU, with stdin at end of file). Say so once instead.
    for name, stream in (("stdin", sys.stdin), ("stdout", sys.stdout)):
        if stream is None or not stream.isatty():
            raise StatedumpError(
                f"the TUI needs a terminal, and {name} is not one",
                where="tui",
                hint="run it in a terminal; in scripts use `statedump render`, `list` or `show`",
            )


@click.command()
@store_option
@session_option
def tui(store_path: Path | None, session: str | None) -> None:
    """Browse the store: sessions, then one session's state, records, matrix, benchmarks,
    decisions and history. Without -s it opens on the sessions list."""
    _need_terminal()
    store = open_store(store_path)
    from statedump.tui.app import make_app

    make_app(store, session).run()
