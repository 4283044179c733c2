"""`statedump doctor`: what a crash left behind, and its repair."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from statedump.cli.common import json_option, open_store, print_json, safe, store_option


@click.command()
@click.option("--repair", is_flag=True, help="Fix what was found (otherwise only report).")
@store_option
@json_option
def doctor(repair: bool, store_path: Path | None, as_json: bool) -> None:
    """Find stray temp files, unfinished writes and stale git locks; --repair fixes them.

    Exit status 1 when something was found and not repaired.
    """
    from statedump.services.doctor import examine

    store = open_store(store_path)
    found = examine(store, repair=repair)
    if as_json:
        print_json([{"kind": f.kind, "where": f.where, "action": f.action} for f in found])
    else:
        for f in found:
            click.echo(safe(str(f)))
        if not found:
            click.echo("store is healthy")
    unrepaired = [f for f in found if not repair or f.action.startswith("left alone")]  # exit 1: run it again
    sys.exit(1 if unrepaired else 0)
