"""`statedump sync`: fetch, rebase and push the store through a git remote."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from statedump.cli.common import json_option, open_store, print_json, safe, store_option


@click.command()
@click.option("--remote", help="The git remote (default: the branch's upstream, else origin, else the only one).")
@store_option
@json_option
def sync(remote: str | None, store_path: Path | None, as_json: bool) -> None:
    """Fetch the remote, replay local commits on top of it, and push, with the dump tags.

    Records added on both sides never conflict. A record changed on both sides stops the
    sync before pushing: the remote version stays in place and yours is kept under
    conflicts/, with the steps to resolve it. Exit status 1 when that happens.
    """

    from statedump.services.sync import sync as run

    result = run(open_store(store_path), remote)
    if as_json:
        print_json(result)
    else:
        for line in result.lines():
            click.echo(safe(line), err=line.startswith("conflict:"))
    if result.conflicts:
        sys.exit(1)
