"""The benchmark runner: `python -m benchmarks [--quick] [--json [FILE]] [--only CASE ...]`.

For each case it prints the figure, the baseline measured in the same run, their
ratio, the target and PASS or MISS; `--json` writes the same rows as JSON. The full
run uses the issue's sizes (10,000 records and commits, a 200 MB transcript, 1,000
decisions); `--quick` uses small ones and one repetition so that CI runs it in
seconds and the runner never rots. Quick figures say nothing about the targets.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks import cases
from benchmarks.cases import Context, Row, Unavailable

FULL = {"records": 10_000, "small": 8, "decisions": 1_000, "transcript_mb": 200.0, "reps": 5, "timeout": 300.0}
QUICK = {"records": 40, "small": 8, "decisions": 10, "transcript_mb": 0.5, "reps": 1, "timeout": 60.0}


def _args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, one repetition: checks the runner, not the targets")
    parser.add_argument("--json", nargs="?", const="-", metavar="FILE", help="write the rows as JSON to FILE (or stdout)")
    parser.add_argument("--only", nargs="+", choices=list(cases.CASES), help="run only these cases")
    parser.add_argument("--records", type=int, help="records (and commits) of the big store (default 10,000; quick 40)")
    parser.add_argument("--reps", type=int, help="repetitions per timing; the median is reported (default 5; quick 1)")
    parser.add_argument("--transcript-mb", type=float, help="size of the generated transcript (default 200; quick 0.5)")
    parser.add_argument("--decisions", type=int, help="decisions exported in the peer case (default 1,000; quick 10)")
    parser.add_argument("--timeout", type=float, help="seconds any one process may take (default 300; quick 60)")
    parser.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    parser.add_argument("--workdir", type=Path, help="keep generated stores here (default: a temporary folder, removed after)")
    return parser.parse_args(argv)


def _fmt(value: float | None, unit: str) -> str:
    if value is None:
        return "-"
    if unit == "s":
        return f"{value * 1000:.0f} ms" if value < 1 else f"{value:.2f} s"
    return f"{value:.1f} {unit}"


def table(rows: list[Row]) -> str:
    """The rows as an aligned text table."""
    head = ["case", "measure", "figure", "baseline", "ratio", "target", "result"]
    body = []
    for r in rows:
        if r.status != "ok":
            body.append([r.case, r.status[:90], "", "", "", "", "MISS" if r.passed is False else "n/a"])
            continue
        ratio = f"{r.ratio:.2f}x" if r.ratio is not None else "-"
        result = _result(r)
        body.append(
            [r.case, r.measure, _fmt(r.figure, r.unit), f"{_fmt(r.baseline, r.unit)} ({r.baseline_measure})", ratio, r.target, result]
        )
    widths = [max(len(line[i]) for line in [head, *body]) for i in range(len(head))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(line, widths, strict=True)).rstrip() for line in [head, *body])


def _result(row: Row) -> str:
    # A row reported for context (the dense import, the add floor) has no target to pass.
    if row.target.startswith("none"):
        return "-"
    return "PASS" if row.passed else "MISS"


def markdown(rows: list[Row]) -> str:
    """The rows as a Markdown table (for docs/performance.md)."""
    lines = ["| case | measure | figure | baseline | ratio | target | result |", "| --- | --- | --- | --- | --- | --- | --- |"]
    for r in rows:
        if r.status != "ok":
            lines.append(f"| {r.case} | {r.status} | | | | | {'MISS' if r.passed is False else 'n/a'} |")
            continue
        ratio = f"{r.ratio:.2f}x" if r.ratio is not None else "-"
        baseline = f"{_fmt(r.baseline, r.unit)} ({r.baseline_measure})"
        lines.append(f"| {r.case} | {r.measure} | {_fmt(r.figure, r.unit)} | {baseline} | {ratio} | {r.target} | {_result(r)} |")
    return "\n".join(lines)


def run(argv: list[str] | None = None) -> int:
    """Run the cases; print the table (and JSON). The exit status is 0 even when targets are missed."""
    args = _args(argv)
    sizes: dict[str, Any] = dict(QUICK if args.quick else FULL)
    for key in ("records", "reps", "transcript_mb", "decisions", "timeout"):
        if getattr(args, key) is not None:
            sizes[key] = getattr(args, key)
    env = cases.environment()
    if not args.quick:  # (the quick run checks the runner, not the figures)
        cases.compile_bytecode()
    # The generator runs git in this process too: same identity, no user config.
    os.environ.update({k: v for k, v in env.items() if k.startswith("GIT_")})
    to_json = args.json is not None
    out = sys.stderr if args.json == "-" else sys.stdout

    def say(text: str) -> None:
        print(text, file=out, flush=True)

    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="statedump-bench-"))
    workdir.mkdir(parents=True, exist_ok=True)
    ctx = Context(
        workdir.resolve(),
        sizes["records"],
        sizes["small"],
        sizes["decisions"],
        sizes["transcript_mb"],
        sizes["reps"],
        env,
        say,
        sizes["timeout"],
    )
    rows: list[Row] = []
    started = time.perf_counter()
    try:
        for name in args.only or list(cases.CASES):
            say(f"{name} ...")
            try:
                found = cases.CASES[name](ctx)
            except Unavailable as err:
                found = cases.placeholder(name, f"not available: {err}")
            except subprocess.TimeoutExpired as err:
                found = cases.placeholder(name, f"timed out: a process ran over {err.timeout:.0f} s", passed=False)
            except Exception as err:  # a broken case must not stop the others
                found = cases.placeholder(name, f"error: {type(err).__name__}: {err}")
            for row in found:
                say(
                    f"  {row.case}: "
                    + (f"{_fmt(row.figure, row.unit)} vs {_fmt(row.baseline, row.unit)}" if row.status == "ok" else row.status)
                )
            rows += found
    finally:
        if args.workdir is None:
            shutil.rmtree(workdir, ignore_errors=True)
    say("")
    say(markdown(rows) if args.markdown else table(rows))
    if to_json:
        report = {
            "command": "python -m benchmarks " + " ".join(argv if argv is not None else sys.argv[1:]),
            "quick": args.quick,
            "sizes": sizes,
            "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "platform": platform.platform()},
            "seconds": round(time.perf_counter() - started, 1),
            "cases": [r.as_json() for r in rows],
        }
        text = json.dumps(report, indent=2)
        if args.json == "-":
            print(text)
        else:
            Path(args.json).write_text(text + "\n", encoding="utf-8")
    return 0
