"""Comparing two benchmark results metric by metric: better, same within tolerance, or worse.

Which way is better is read from the metric's name, then its unit (`DIRECTIONS`,
first match wins): throughput up, latency down. A change counts as the same when
it is within the absolute tolerance or the relative one (relative to the base);
beyond both it is better or worse by the metric's direction, or just `changed`
when the direction is unknown. Any `worse` is a regression (exit status 1).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from statedump.core import codec
from statedump.core.errors import NotFound, StatedumpError, a
from statedump.core.render.markup import bullets, cell, code, inline, table
from statedump.core.render.numbers import number
from statedump.core.store.store import Store
from statedump.models import Benchmark

Direction = Literal["higher", "lower"]
Verdict = Literal["better", "same", "worse", "changed", "incomparable", "only in base", "only in candidate"]

DIRECTIONS: tuple[tuple[str, str, Direction], ...] = (
    ("name", "throughput", "higher"),
    ("name", "per_s", "higher"),
    ("name", "tok/s", "higher"),
    ("name", "goodput", "higher"),
    ("name", "accept", "higher"),
    ("name", "acc_length", "higher"),
    ("name", "hit_rate", "higher"),
    ("name", "capacity", "higher"),
    ("name", "qps", "higher"),
    ("name", "latency", "lower"),
    ("name", "ttft", "lower"),
    ("name", "tpot", "lower"),
    ("name", "itl", "lower"),
    ("name", "e2el", "lower"),
    ("name", "duration", "lower"),
    ("name", "queue", "lower"),
    ("name", "_ms", "lower"),
    ("unit", "/s", "higher"),
    ("unit", "ms", "lower"),
    ("unit", "s", "lower"),
    ("unit", "us", "lower"),
)
"""(where, pattern, better): a `name` pattern matches anywhere in the lowercased metric
name; a `unit` pattern matches the end of the lowercased unit (`tok/s`, `req/s` end in `/s`)."""

DEFAULT_REL_TOL = 0.05
DEFAULT_ABS_TOL = 0.0


def direction(name: str, unit: str | None = None) -> Direction | None:
    """Which way is better for a metric, from `DIRECTIONS`; None when neither name nor unit says."""
    low = name.lower()
    for where, pattern, better in DIRECTIONS:
        if where == "name" and pattern in low:
            return better
    u = (unit or "").strip().lower()
    for where, pattern, better in DIRECTIONS:
        if where == "unit" and u and (u == pattern or (pattern.startswith("/") and u.endswith(pattern))):
            return better
    return None


_QUANTITY = re.compile(r"^\s*([-+]?\d[\d,]*(?:\.\d+)?|[-+]?\.\d+)\s*([kKMGT])?(?![A-Za-z0-9])")
_SCALE = {"k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}


def quantity(text: str | None) -> float | None:
    """The number at the start of `3.15M`, `2,100 tok/s` or `172`; None when it does not start with one."""
    if not text:
        return None
    m = _QUANTITY.match(text)
    if not m:
        return None
    return float(m.group(1).replace(",", "")) * _SCALE.get(m.group(2) or "", 1.0)


@dataclass
class MetricResult:
    """One metric of the comparison."""

    name: str
    unit: str
    base: float | None
    cand: float | None
    better: Direction | None
    verdict: Verdict

    @property
    def delta(self) -> float | None:
        return None if self.base is None or self.cand is None else self.cand - self.base

    @property
    def relative(self) -> float | None:
        if self.delta is None or not self.base:
            return None
        return self.delta / abs(self.base)


@dataclass
class Side:
    """A benchmark being compared and how it was named."""

    label: str
    record: Benchmark


@dataclass
class Comparison:
    """The whole comparison: metrics, environment differences and warnings."""

    base: Side
    cand: Side
    rel_tol: float
    abs_tol: float
    metrics: list[MetricResult] = field(default_factory=list)
    environment: list[tuple[str, str | None, str | None]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    @property
    def regressions(self) -> list[MetricResult]:
        return [m for m in self.metrics if m.verdict == "worse"]


def judge(base: float, cand: float, better: Direction | None, rel_tol: float, abs_tol: float) -> Verdict:
    """The verdict for one pair of values (see the module docstring)."""
    delta = cand - base
    if abs(delta) <= max(abs_tol, rel_tol * abs(base)):
        return "same"
    if better is None:
        return "changed"
    return "better" if (delta > 0) == (better == "higher") else "worse"


def compare(
    base: Side, cand: Side, *, rel_tol: float = DEFAULT_REL_TOL, abs_tol: float = DEFAULT_ABS_TOL, only: list[str] | None = None
) -> Comparison:
    """Compare `cand` against `base`; `only` restricts it to the named metrics."""
    for name, value in (("--rel-tol", rel_tol), ("--abs-tol", abs_tol)):
        if value < 0 or math.isnan(value):
            raise StatedumpError(f"a tolerance cannot be negative ({value})", where=name)
    b, c = base.record, cand.record
    names = list(dict.fromkeys([m.name for m in b.metrics] + [m.name for m in c.metrics]))
    if only:
        missing = [n for n in only if n not in names]
        if missing:
            raise StatedumpError(
                f"no metric {missing[0]!r} in either benchmark", where="--metric", hint=f"they have: {', '.join(names) or 'no metrics'}"
            )
        names = [n for n in names if n in only]
    out = Comparison(base, cand, rel_tol, abs_tol)
    for name in names:
        mb, mc = b.metric(name), c.metric(name)
        either = mb or mc
        unit = either.unit if either is not None else ""
        better = direction(name, unit)
        if mb is None or mc is None:
            verdict: Verdict = "only in candidate" if mb is None else "only in base"
        elif mb.unit != mc.unit:
            verdict = "incomparable"
            out.warnings.append(f"{name} is in {mb.unit} in the base and {mc.unit} in the candidate: not compared")
        else:
            verdict = judge(mb.value, mc.value, better, rel_tol, abs_tol)
        out.metrics.append(MetricResult(name, unit, mb.value if mb else None, mc.value if mc else None, better, verdict))
    if not any(m.base is not None and m.cand is not None for m in out.metrics):
        # A gate that compared nothing must not pass silently.
        raise StatedumpError(
            f"nothing to compare: {b.id} and {c.id} have no metric in common",
            where="BASE CAND",
            hint=f"base has: {', '.join(m.name for m in b.metrics) or 'no metrics'}; candidate has: {', '.join(m.name for m in c.metrics) or 'no metrics'}",
        )
    for label, old, new in (("concurrency", b.concurrency, c.concurrency), ("request rate", b.request_rate, c.request_rate)):
        if old != new:
            out.warnings.append(f"{label} differs: {_plain(old)} → {_plain(new)}; the results may not be comparable")
    if (b.workload or "") != (c.workload or ""):
        out.warnings.append("the workloads differ; the results may not be comparable")
    for side, what in ((base, "base"), (cand, "candidate")):
        if side.record.status != "valid":
            out.warnings.append(f"the {what} is marked {side.record.status}")
    keys = list(dict.fromkeys([*b.environment, *c.environment]))
    out.environment = [(k, b.environment.get(k), c.environment.get(k)) for k in keys if b.environment.get(k) != c.environment.get(k)]
    return out


def _plain(value: object) -> str:
    if value is None:
        return "not set"
    if isinstance(value, float):
        return number(value)
    return str(value)


# -- naming a benchmark --------------------------------------------------------


_VLLM_KEYS = (b'"model_id"', b'"tokenizer_id"', b'"endpoint_type"')


def _result_files(path: Path) -> list[Benchmark]:
    # vLLM writes its model and tokenizer ids; SGLang never does. Both importers read
    # the file exactly as `statedump import` does, so the records match an import.
    from statedump.services.ingest import sglang_bench, vllm_bench

    with open(path, "rb") as fh:
        head = fh.read(1 << 16)
    reader = vllm_bench if any(key in head for key in _VLLM_KEYS) else sglang_bench
    return [r for r in reader.read(path).records if isinstance(r, Benchmark)]


def from_file(path: Path, index: int | None = None) -> Benchmark:
    """A benchmark from a YAML record file, or from an SGLang / vLLM result file.

    A result file with several results (a sweep) needs `index` (1-based, `FILE#N`).
    """
    suffix = path.suffix.lower()
    if suffix in (".yaml", ".yml"):
        record = codec.load_record(path.read_bytes(), path, "benchmark")
        if not isinstance(record, Benchmark):
            raise StatedumpError("not a benchmark record", where=path)
        return record
    if suffix not in (".json", ".jsonl"):
        raise StatedumpError(
            "expected a YAML benchmark record or an SGLang / vLLM result file (.json, .jsonl)",
            where=path,
            hint="or import it first (`statedump import sglang-bench FILE`) and compare the record ids",
        )
    found = _result_files(path)
    if not found:
        raise StatedumpError("no benchmark result in the file", where=path)
    if index is None and len(found) > 1:
        raise StatedumpError(f"the file holds {len(found)} results", where=path, hint=f"name one as {path}#N, N from 1 to {len(found)}")
    if index is not None and not 1 <= index <= len(found):
        raise StatedumpError(f"no result #{index}: the file holds {len(found)}", where=path)
    return found[(index or 1) - 1]


def _file_spec(spec: str) -> tuple[Path, int | None] | None:
    """(path, index) when `spec` names a file, `FILE` or `FILE#N`; None otherwise."""
    if Path(spec).is_file():
        return Path(spec), None
    name, sep, number = spec.rpartition("#")
    if sep and number.isdigit() and Path(name).is_file():
        return Path(name), int(number)
    return None


def load_side(spec: str, store: Store | None, session: str | None) -> Side:
    """A benchmark named by a file (`FILE`, `FILE#N`), `id@REV` (a commit, dump tag or date) or an id in the store."""
    named = _file_spec(spec)
    if named is not None:
        return Side(spec, from_file(*named))
    if store is None:
        raise StatedumpError(f"no such file {spec!r}, and no store to look the id up in", where=spec)
    sid = store.pick_session(session)
    record_id, sep, rev = spec.partition("@")
    if sep:
        from statedump.services.history import record_at, resolve_ref

        sha = resolve_ref(store, rev, sid)
        found = record_at(store, sha, sid, record_id)
        if found is None:
            raise NotFound(f"no record {record_id!r} as of {rev}", where=spec, hint="`statedump log ID` shows when it existed")
    else:
        found = store.get(sid, record_id)
    if not isinstance(found, Benchmark):
        raise StatedumpError(f"{record_id!r} is {a(found.kind)} record, not a benchmark", where=spec)
    return Side(spec, found)


def needs_store(specs: list[str]) -> bool:
    """True when any of the names is not a file, so the store must be opened."""
    return any(_file_spec(s) is None for s in specs)


# -- output ------------------------------------------------------------------


def _change(m: MetricResult) -> str:
    if m.delta is None:
        return ""
    text = f"{'+' if m.delta >= 0 else '-'}{number(abs(m.delta))}"
    rel = m.relative
    return text + (f" ({rel:+.1%})" if rel is not None else "")


def comparison_markdown(result: Comparison) -> str:
    """The comparison as Markdown text (also readable as plain text in a terminal)."""
    b, c = result.base, result.cand
    lines = [
        f"Base: {code(b.label)} — {inline(b.record.title)}",
        f"Candidate: {code(c.label)} — {inline(c.record.title)}",
        f"Tolerance: {result.rel_tol:g} relative ({result.rel_tol:.0%}), {result.abs_tol:g} absolute",
        "",
    ]
    header = ["Metric", "Unit", "Better", "Base", "Candidate", "Change", "Verdict"]
    rows = [
        [
            cell(m.name),
            cell(m.unit),
            m.better or "?",
            number(m.base) if m.base is not None else "",
            number(m.cand) if m.cand is not None else "",
            _change(m),
            m.verdict,
        ]
        for m in result.metrics
    ]
    if rows:
        lines += [table(header, rows), ""]
    if result.warnings:
        lines += ["Warnings:", "", bullets([inline(w) for w in result.warnings]), ""]
    if result.environment:
        env = [f"{code(k)}: {inline(_plain(old))} → {inline(_plain(new))}" for k, old, new in result.environment]
        lines += ["Environment differences:", "", bullets(env), ""]
    counts = {v: sum(1 for m in result.metrics if m.verdict == v) for v in ("better", "same", "worse")}
    tally = f"{counts['better']} better, {counts['same']} same, {counts['worse']} worse"
    if result.regressions:
        names = ", ".join(m.name for m in result.regressions)
        lines.append(f"Verdict: regression in {inline(names)} ({tally})")
    else:
        lines.append(f"Verdict: no regression ({tally})")
    return "\n".join(lines) + "\n"


def comparison_json(result: Comparison) -> dict[str, Any]:
    """The comparison as plain data for `--json`."""

    def side(s: Side) -> dict[str, Any]:
        r = s.record
        return {"name": s.label, "id": r.id, "title": r.title, "status": r.status, "concurrency": r.concurrency, "workload": r.workload}

    return {
        "base": side(result.base),
        "candidate": side(result.cand),
        "rel_tol": result.rel_tol,
        "abs_tol": result.abs_tol,
        "metrics": [
            {
                "name": m.name,
                "unit": m.unit,
                "better": m.better,
                "base": m.base,
                "candidate": m.cand,
                "delta": m.delta,
                "relative": m.relative,
                "verdict": m.verdict,
            }
            for m in result.metrics
        ],
        "environment": [{"key": k, "base": old, "candidate": new} for k, old, new in result.environment],
        "warnings": result.warnings,
        "regression": bool(result.regressions),
    }
