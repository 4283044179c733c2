"""Audit commands: why, check."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from statedump.cli.common import json_option, open_store, print_json, safe, session_option, stdout_is_terminal, store_option


@click.command()
@click.argument("query")
@store_option
@session_option
@json_option
def why(query: str, store_path: Path | None, session: str | None, as_json: bool) -> None:
    """Why a decision was made. QUERY is a decision id, a flag or variable it enforces
    (kv-cache-dtype, NCCL_P2P_LEVEL), or words from it ("BF16 KV").

    Prints the question, the choice, the alternatives and why not, the rationale, the
    trade-offs, the evidence (the user's words with their message), the enforcing
    commands, the commit that recorded it, and whether it needs review.
    """
    from statedump.core.render.why import why_json, why_markdown
    from statedump.services.why import why as explain

    store = open_store(store_path)
    sid = store.pick_session(session)
    report = explain(store, sid, query)
    if as_json:
        print_json(why_json(report))
        return
    text = why_markdown(report)
    if stdout_is_terminal():
        from rich.console import Console

        from statedump.core.render.terminal import print_markdown

        print_markdown(text, Console())
    else:
        click.echo(text, nl=False)


@click.command()
@click.option("--at", "rev", help="Check the state as of a commit, dump tag or date instead of the working tree.")
@click.option(
    "--strict", is_flag=True, help="Fail (exit 1) on advisory findings too: decisions needing review, benchmarks whose command changed."
)
@store_option
@session_option
@json_option
def check(rev: str | None, strict: bool, store_path: Path | None, session: str | None, as_json: bool) -> None:
    """Find drift between decisions and commands, dangling links and conflicts, decisions that
    need review and benchmarks whose command changed since they were measured.

    One line per finding; exit status 1 when there is any, 0 when there is none or only advisory
    ones (review, stale benchmarks), which `--strict` makes fail too. Meant for CI.
    """
    from statedump.services.check import check_json, failing
    from statedump.services.history import resolve_ref
    from statedump.services.review import check_session

    store = open_store(store_path)
    sid = store.pick_session(session)
    state, findings = check_session(store, sid, resolve_ref(store, rev, sid) if rev else None)
    failed = failing(findings, strict)
    if as_json:
        print_json(check_json(sid, findings, strict))
    else:
        for f in findings:
            click.echo(safe(f.line()))
        advisory = len(findings) - len(failed)
        if not failed:
            more = f"; {advisory} advisory (check --strict fails on them)" if advisory else ""
            click.echo(f"ok: no {'failing ' if advisory else ''}findings in session {sid} ({len(state.records)} records){more}")
        else:
            click.echo(f"{len(findings)} finding{'s' if len(findings) != 1 else ''} in session {sid}", err=True)
    if failed:
        sys.exit(1)
