"""`statedump sync`: fetch, rebase and push the store through a git remote."""

from __future__ import annotations

import os
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

    from statedump.core.errors import StatedumpError
    from statedump.services.sync import sync as run

    try:
        store = open_store(store_path)
    except StatedumpError:
        # A clone of a bare remote whose HEAD names a missing branch has nothing checked out.
        from statedump.core.store.store import ENV_STORE
        from statedump.services.sync.adopt import adopt_remote_branch

        done = adopt_remote_branch(store_path or Path(os.environ.get(ENV_STORE) or Path.cwd()))
        if done is None:
            raise
        click.echo(safe(done))
        store = open_store(store_path)
    result = run(store, remote)
    if as_json:
        print_json(result)
    else:
        for line in result.lines():
            click.echo(safe(line), err=line.startswith("conflict:"))
    if result.conflicts:
        sys.exit(1)
