"""Importing a transcript that grew: only the new part is read (services/ingest/incremental.py).

The agent hooks import the session's transcript at every compaction, so what counts is the
import of a transcript that has grown by a little since the last one: here the last 1 MB of
the 200 MB working-session transcript of the `import` case, <= 0.5 s, and the same transcript
unchanged, which should cost little more than starting statedump.

Between the first import and the next the store is read once, after the record cache's
settling time (`core/store/cache.RACY_NS`): between two compactions the hooks read the store
(resume, render), so the next import finds the cache warm, as it does here.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import time

from benchmarks import generate
from benchmarks.cases import SD, Context, Row, _transcript, failed, needs

GROWTH = 1 << 20
"""Bytes the transcript gains between the two imports."""


def _timed_json(ctx: Context, argv: list[str]) -> tuple[float, dict[str, object]]:
    started = time.perf_counter()
    done = subprocess.run(argv, env=ctx.env, capture_output=True, check=False, timeout=ctx.timeout)
    took = time.perf_counter() - started
    if done.returncode:
        failed(argv, done.returncode, done.stderr)
    report: dict[str, object] = json.loads(done.stdout)
    return took, report


def import_incremental(ctx: Context) -> list[Row]:
    """The last 1 MB of a 200 MB transcript imported in <= 0.5 s; the transcript unchanged in <= 2x `statedump --help`."""
    needs("statedump.services.ingest.incremental")
    source = _transcript(ctx, dense=False)
    size = source.stat().st_size
    with open(source, "rb") as fh:
        fh.seek(size - min(GROWTH, size // 2))  # (the quick run's file is smaller than the growth)
        tail = fh.read()
    cut = size - len(tail) + tail.find(b"\n") + 1  # the growth starts with a whole line
    path = ctx.workdir / "incremental.jsonl"
    first_s, grown_s, same_s, help_s = [], [], [], []
    for rep in range(min(ctx.reps, 3)):  # each round writes and imports 200 MB first
        root = ctx.workdir / f"incremental-store-{os.getpid()}-{rep}"  # (see the note in cases.import_)
        generate.build_store(root, 0)
        shutil.copyfile(source, path)
        os.truncate(path, cut)
        argv = [*SD, "import", "claude-code", str(path), "--store", str(root), "--json"]
        os.sync()
        took, report = _timed_json(ctx, argv)
        first_s.append(took)
        if ctx.transcript_mb >= 1:  # (the quick run checks the runner, not the figure: no wait)
            time.sleep(2.2)  # past the record cache's settling time, then one read warms it
        ctx.run([*SD, "list", "--store", str(root)])
        with open(source, "rb") as src, open(path, "ab") as out:
            src.seek(cut)
            out.write(src.read())
        os.sync()
        took, report = _timed_json(ctx, argv)
        read = report.get("read")
        if not isinstance(read, dict) or read.get("mode") != "incremental" or read.get("start") != cut:
            raise RuntimeError(f"the import of the grown transcript was not incremental: {read}")
        grown_s.append(took)
        took, report = _timed_json(ctx, argv)
        read = report.get("read")
        if not isinstance(read, dict) or read.get("mode") != "unchanged":
            raise RuntimeError(f"the import of the unchanged transcript read it: {read}")
        same_s.append(took)
        help_s.append(ctx.run([*SD, "--help"]))
    for rep in range(min(ctx.reps, 3)):  # removed at the end: see the note in cases.import_
        shutil.rmtree(ctx.workdir / f"incremental-store-{os.getpid()}-{rep}", ignore_errors=True)
    path.unlink(missing_ok=True)
    first, grown, same, bare = (statistics.median(s) for s in (first_s, grown_s, same_s, help_s))
    megabytes = size / 1024 / 1024
    return [
        Row(
            "import-incremental",
            f"statedump import claude-code, the last {(size - cut) / 1024 / 1024:.1f} MB of a {megabytes:.1f} MB transcript",
            grown,
            first,
            "the first (whole) import of the same transcript",
            "s",
            "<= 0.5 s",
            grown / first if first else None,
            grown <= 0.5,
            extra={"bytes_read": float(size - cut)},
        ),
        Row(
            "import-unchanged",
            f"statedump import claude-code, the same {megabytes:.1f} MB transcript unchanged",
            same,
            bare,
            "statedump --help",
            "s",
            "<= 2x baseline",
            same / bare if bare else None,
            same <= 2 * bare,
        ),
    ]
