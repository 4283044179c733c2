"""`statedump tui`: browse a store in the terminal."""

from __future__ import annotations

from pathlib import Path

import click

from statedump.cli.common import open_store, session_option, store_option


@click.command()
@store_option
@session_option
def tui(store_path: Path | None, session: str | None) -> None:
    """Browse the store: sessions, then one session's state, records, matrix, benchmarks,
    decisions and history. Without -s it opens on the sessions list."""
    from statedump.tui.app import make_app

    make_app(open_store(store_path), session).run()
