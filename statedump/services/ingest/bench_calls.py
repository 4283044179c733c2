"""A benchmark run the agent made, as benchmark records: from the result file the run saved,
when it lies beside the transcript, else from the result block it printed.

`python -m sglang.bench_serving … --output-file res.jsonl` appends one JSON line per run;
`vllm bench serve … --save-result [--result-dir D] [--result-filename F]` writes one JSON
document. The file holds more than the printed block (every percentile, the exact load), so
when the transcript's folder (or the path as written, when it exists) has it, its benchmarks
are taken instead of the printed ones. A file that is missing or cannot be read changes
nothing: the printed block ("Serving Benchmark Result") is read, with concurrency, rate and
workload from the command's flags. Either way each benchmark is `produced_by` the server that
was running.
"""

from __future__ import annotations

import shlex
from datetime import datetime
from pathlib import Path

from statedump.core.errors import StatedumpError
from statedump.models import Benchmark, Links
from statedump.services.flags import parse_command
from statedump.services.ingest.launch import Launch
from statedump.services.ingest.plan import ImportPlan, short_hash
from statedump.services.ingest.tool_output import as_float, as_int, result_metrics


def _candidates(named: str, beside: Path) -> list[Path]:
    given = Path(named).expanduser()
    found = [given] if given.is_absolute() else [beside / given]
    found.append(beside / given.name)
    return list(dict.fromkeys(found))


def saved_results(command: str, beside: Path) -> list[Benchmark]:
    """The benchmarks of the result file `command` names, when it is found in `beside` (or at
    its own absolute path); [] otherwise."""
    parsed = parse_command(command)
    named: list[tuple[str, str]] = []
    if out := parsed.value("--output-file"):
        named.append((out, "sglang"))
    if "--save-result" in parsed.flags or parsed.value("--result-filename"):
        filename = parsed.value("--result-filename")
        folder = parsed.value("--result-dir") or "."
        if filename:
            named.append((str(Path(folder) / filename), "vllm"))
    for name, family in named:
        for path in _candidates(name, beside):
            if not path.is_file():
                continue
            try:
                if family == "sglang" or path.suffix == ".jsonl":
                    from statedump.services.ingest import sglang_bench

                    plan = sglang_bench.read(path)
                else:
                    from statedump.services.ingest import vllm_bench

                    plan = vllm_bench.read(path)
            except StatedumpError:
                continue
            found = [r for r in plan.records if isinstance(r, Benchmark)]
            if found:
                return found
    return []


def benchmark_records(
    plan: ImportPlan,
    text: str,
    found: Launch,
    result: str,
    failed: bool,
    source: str,
    at: datetime | None,
    *,
    server: str | None,
    agent: str,
) -> None:
    """The benchmark records of one benchmark call (`found`: its launch reading; `server`: the
    command record of the server running then)."""
    written = " ".join(shlex.quote(w) for w in found.words)
    if not failed and ("--output-file" in written or "--save-result" in written or "--result-filename" in written):
        saved = saved_results(written, plan.path.parent)
        for bench in saved:
            links = Links(produced_by=[server]) if server else bench.links
            plan.add(
                bench.model_copy(update={"source": source or None, "at": bench.at or at, "links": links, "tags": [agent, *bench.tags]})
            )
        if saved:
            return
    metrics = result_metrics(result)
    if not metrics:
        return
    parsed = parse_command(written)
    conc = as_int(parsed.value("--max-concurrency") or parsed.value("--concurrency"))
    if conc is None:
        conc = next((int(m.value) for m in metrics if m.name == "max_request_concurrency" and m.value >= 1), None)
    rate_text = parsed.value("--request-rate") or parsed.value("--rate")
    dataset = parsed.value("--dataset-name") or parsed.value("--dataset")
    lengths = [parsed.value(f) for f in ("--random-input-len", "--random-output-len", "--input-len", "--output-len")]
    workload = ", ".join(
        [f"dataset {dataset}"] * bool(dataset)
        + [f"{n} {v}" for n, v in zip(("input len", "output len", "input len", "output len"), lengths, strict=True) if v]
        + [f"{parsed.value('--num-prompts')} prompts"] * bool(parsed.value("--num-prompts"))
    )
    said = " ".join(text.split())
    title = f"{found.label}: concurrency {conc or 'unbounded'}" + (f", rate {rate_text}" if rate_text else "")
    plan.add(
        Benchmark(
            id=plan.readable_id("bench", title, key=f"bench:{said}:{short_hash(result)}"),
            title=title[:300],
            status="invalid" if failed else "valid",
            source=source or None,
            at=at,
            workload=workload or None,
            concurrency=conc,
            request_rate=as_float(rate_text),
            metrics=metrics,
            environment={"tool": found.label, "command": said[:500]},
            tags=[agent, "benchmark"],
            links=Links(produced_by=[server] if server else []),
        )
    )
