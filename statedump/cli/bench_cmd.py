"""`statedump bench compare BASE CAND`: a regression check between two benchmark results."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from statedump.cli.common import json_option, open_store, print_json, safe, session_option, store_option


@click.group()
def bench() -> None:
    """Benchmark tools."""


@bench.command()
@click.argument("base")
@click.argument("cand")
@click.option("--rel-tol", type=float, default=0.05, show_default=True, help="Relative change (of the base) still counted as the same.")
@click.option("--abs-tol", type=float, default=0.0, show_default=True, help="Absolute change still counted as the same.")
@click.option("--metric", "metrics", multiple=True, help="Compare only this metric; repeat for more.")
@store_option
@session_option
@json_option
def compare(
    base: str,
    cand: str,
    rel_tol: float,
    abs_tol: float,
    metrics: tuple[str, ...],
    store_path: Path | None,
    session: str | None,
    as_json: bool,
) -> None:
    """Compare CAND against BASE metric by metric; exit 1 when any metric is worse beyond tolerance.

    BASE and CAND are benchmark ids, ID@REV (as of a commit, dump tag or date), or YAML benchmark files.
    """
    from statedump.services.bench.compare import compare as run
    from statedump.services.bench.compare import comparison_json, comparison_markdown, load_side, needs_store

    store = open_store(store_path) if needs_store([base, cand]) else None
    result = run(load_side(base, store, session), load_side(cand, store, session), rel_tol=rel_tol, abs_tol=abs_tol, only=list(metrics))
    if as_json:
        print_json(comparison_json(result))
    else:
        click.echo(safe(comparison_markdown(result)), nl=False)
    if result.regressions:
        sys.exit(1)
