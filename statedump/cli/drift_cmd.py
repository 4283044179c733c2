"""`statedump drift`: the decisions and commands against what really runs."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from statedump.cli.common import json_option, open_store, print_json, safe, session_option, store_option


@click.command()
@click.option(
    "--unit",
    "units",
    multiple=True,
    metavar="PATH|NAME",
    help="A systemd unit file (drop-ins beside it), or a unit name read with `systemctl cat`.",
)
@click.option("--pid", "pids", multiple=True, type=int, help="A running server's process id (/proc/PID/cmdline and environ).")
@click.option("--process", "process", type=click.Choice(["auto"]), help="`auto`: every running SGLang, vLLM or TensorRT-LLM server.")
@click.option("--url", "urls", multiple=True, help="A server's address: SGLang /server_info, or vLLM /v1/models and /metrics.")
@click.option("--compose", "composes", multiple=True, type=click.Path(path_type=Path), help="A compose file.")
@click.option("--inspect", "inspects", multiple=True, type=click.Path(path_type=Path), help="`docker inspect` output saved to a file.")
@click.option("--record", is_flag=True, help="Store what was seen as `observed` command records, in one commit.")
@store_option
@session_option
@json_option
def drift(
    units: tuple[str, ...],
    pids: tuple[int, ...],
    process: str | None,
    urls: tuple[str, ...],
    composes: tuple[Path, ...],
    inspects: tuple[Path, ...],
    record: bool,
    store_path: Path | None,
    session: str | None,
    as_json: bool,
) -> None:
    """Compare the accepted decisions and current commands with what is really running.

    Each decided flag or variable is present, absent or contradicted in the live configuration;
    each current command's flags are added, removed or changed. Exit 0 when everything holds,
    1 on any drift, 2 when a source cannot be read.
    """
    from statedump.core.render.drift import drift_json, drift_lines
    from statedump.services.drift import drift as compare
    from statedump.services.drift import read_sources

    store = open_store(store_path)
    sid = store.pick_session(session)
    lives = read_sources(units, pids, process == "auto", urls, composes, inspects)
    report = compare(store, sid, lives, record=record)
    if as_json:
        print_json(drift_json(report))
    else:
        for line in drift_lines(report):
            click.echo(safe(line))
    if not report.holds:
        sys.exit(1)
