"""The corpus scorer: how much of the real public files in tests/corpus_real the importers keep.

`python -m benchmarks.corpus [--markdown] [--json [FILE]] [--subprocess] [--jobs N] [--update-scores] [SOURCE ...]`

Each hand-written expected file (`expected/<category>/<file>.yaml`, `transcripts/expected/<agent>/<file>.yaml`)
names a source, its format, the facts a careful person would keep (`kind`, `status`, `match`) and
the junk that must not become a record title. For each one the scorer builds a fresh store
(`statedump init`, `session new`), runs `statedump import FORMAT FILE --json` twice, reads every
record back (`statedump list --json`, and `show --json` of the first) and scores:

- a fact is **captured** when some record has its kind and its status and contains its `match`
  (case-insensitive, runs of white space folded) in its title, body or any other text: nested
  fields included (metric names, environment keys and values, command text, quote); numbers are
  read as Python prints them (`199.36907…` contains `199.3`). The bookkeeping fields (`id`, `kind`,
  `status`, `at`, `source`, `links`) are not text.
- a **junk** hit is a record whose title contains one of the junk strings as a whole
  (case-insensitive, not inside a longer word), or, for a junk string written as a heading
  (`# AGENTS.md …`, `**Status:**`), contains that heading's text.
- **problems**: an import that exits non-zero, a traceback on stderr (always a failure), a `--json`
  output that does not parse, a second import that adds, changes or tags anything, and a format
  the CLI does not have (`format not supported`: the file scores 0, nothing is run).

The commands run in this process through the CLI's own click entry point (the same code a user
runs, without a Python start-up per command: the whole corpus in a few seconds), or each in its
own process with `--subprocess` (exactly what a user runs; about three times slower). A file's
share is captured / facts; the overall share is over all facts of all files, unsupported formats
included. `tests/corpus_real/scores.yaml` holds the minimum shares the test enforces (a ratchet:
`--update-scores` or `STATEDUMP_UPDATE_SCORES=1` raises it, never lowers it).
"""

from __future__ import annotations

import argparse
import concurrent.futures
import contextlib
import json
import math
import multiprocessing
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
import unicodedata
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Protocol

import yaml

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "corpus_real"
SCORES = CORPUS / "scores.yaml"
TARGET = ">= 90%, no file under 70%, no junk"
TRACEBACK = "Traceback (most recent call last)"
SESSION = "corpus"

# Bookkeeping fields of a record: not text a fact can be found in.
_NOT_TEXT = frozenset({"id", "kind", "status", "at", "source", "links"})


# -- the plan: what each expected file asks for ---------------------------------------------


@dataclass(frozen=True)
class Fact:
    """One thing a careful reader keeps: a record of this kind and status that contains `match`."""

    kind: str
    status: str
    match: str


@dataclass(frozen=True)
class Expected:
    """One expected file: its source (relative to the corpus), format, facts and junk."""

    name: str
    """The expected file, relative to the corpus folder."""
    source: str
    format: str
    facts: tuple[Fact, ...]
    junk: tuple[str, ...]


def load_expected(corpus: Path = CORPUS) -> list[Expected]:
    """Every expected file under `corpus`, sorted by source."""
    found = []
    for path in sorted([*corpus.glob("expected/**/*.yaml"), *corpus.glob("transcripts/expected/**/*.yaml")]):
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        facts = tuple(Fact(str(f["kind"]), str(f["status"]), str(f["match"])) for f in data.get("facts") or [])
        junk = tuple(str(j) for j in data.get("junk") or [])
        found.append(Expected(path.relative_to(corpus).as_posix(), str(data["source"]), str(data["format"]), facts, junk))
    return sorted(found, key=lambda e: e.source)


# -- the rules ------------------------------------------------------------------------------

_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"'})


def fold(text: str) -> str:
    """Case-folded, curly quotes straightened, runs of white space as one space."""
    return " ".join(text.translate(_QUOTES).split()).casefold()


def _numbers(value: float) -> list[str]:
    if isinstance(value, bool):
        return [str(value).lower()]
    if isinstance(value, float) and math.isfinite(value):
        return [repr(value), f"{value:.1f}", f"{value:.2f}"]
    return [str(value)]


def _strings(value: Any, top: bool) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, bool | int | float):
        yield from _numbers(value)
    elif isinstance(value, dict):
        for key, item in value.items():
            if top and key in _NOT_TEXT:
                continue
            if not top:  # a nested key is content: a metric's or an environment variable's name
                yield str(key)
                if isinstance(item, str):
                    yield f"{key}={item}"  # as it is set: VLLM_ATTENTION_BACKEND=FLASH_ATTN
                elif isinstance(item, int | float):
                    yield from (f"{key}={text}" for text in _numbers(item))
            yield from _strings(item, False)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _strings(item, False)


def record_text(record: dict[str, Any]) -> str:
    """Every text of a record (title, body, nested fields, numbers), folded, one per line."""
    return "\n".join(fold(s) for s in _strings(record, True))


def captures(fact: Fact, record: dict[str, Any], text: str | None = None) -> bool:
    """Whether `record` (with its `record_text`, if already computed) holds `fact`."""
    if record.get("kind") != fact.kind or record.get("status") != fact.status:
        return False
    return fold(fact.match) in (record_text(record) if text is None else text)


def _whole(needle: str, hay: str) -> bool:
    # `needle` occurs in `hay` and does not continue a word at either end.
    if not needle:
        return False
    before = r"(?<!\w)" if needle[0].isalnum() or needle[0] == "_" else ""
    after = r"(?!\w)" if needle[-1].isalnum() or needle[-1] == "_" else ""
    return re.search(before + re.escape(needle) + after, hay) is not None


_NUMBERING = re.compile(r"^(?:#{1,6}|[-*+>]|\d{1,3}[.)])\s+")
_EDGE = "#*_`:;.,!?-\u2013\u2014 "


def _trim(text: str) -> str:
    start, end = 0, len(text)
    while start < end and (text[start] in _EDGE or unicodedata.category(text[start])[0] in "SCMZ"):
        start += 1
    while end > start and (text[end - 1] in _EDGE or unicodedata.category(text[end - 1])[0] in "SCMZ"):
        end -= 1
    return text[start:end]


def bare(text: str) -> str:
    """What a heading, list item or banner says, folded.

    "## 3. Gaming Impact Assessment:" is "gaming impact assessment", "✅ WHAT'S WORKING" is
    "what's working"; brackets, parentheses and quotes stay ("(name)", "<environment_context>").
    """
    text = fold(text)
    while True:
        before = text
        text = _trim(_NUMBERING.sub("", text))
        if text == before:
            return text


def junk_hit(junk: str, title: str) -> bool:
    """Whether a record titled `title` is the junk `junk`.

    It is when the title is the junk, both read as `bare` text ("3. Gaming Impact Assessment" is
    "Gaming Impact Assessment", "Docker env" is "# Docker env"), or, for junk of two words or
    more, when the title holds it whole, not inside longer words ("Ok, so there's isn't much to
    see here, mostly ..."). A one-word junk string ("inf", "null", "30000:30000") is a hit only as
    the whole title: "rate inf" in a benchmark's title is its rate, not the junk.
    """
    bare_junk = bare(junk)
    if not bare_junk:
        return False
    if bare(title) == bare_junk:
        return True
    return len(bare_junk.split()) >= 2 and _whole(bare_junk, fold(title))


def impossible(fact: Fact) -> str | None:
    """Why no record can ever hold `fact` (a kind or a status the models do not have), else None."""
    from statedump.models import KINDS

    model = KINDS.get(fact.kind)
    if model is None:
        return f"no kind {fact.kind!r}"
    if fact.status not in model.STATUSES:
        return f"{fact.kind} has no status {fact.status!r} ({', '.join(model.STATUSES)})"
    return None


# -- one file -------------------------------------------------------------------------------


@dataclass
class FileScore:
    """The score of one expected file."""

    source: str
    format: str
    facts: int
    captured: int = 0
    missed: list[dict[str, str]] = field(default_factory=list)
    junk: list[dict[str, str]] = field(default_factory=list)
    """Each hit: the junk string and the record (`kind/id: title`) it became."""
    problems: list[str] = field(default_factory=list)
    supported: bool = True
    failed: bool = False
    traceback: bool = False
    json_ok: bool = True
    idempotent: bool | None = None
    """Whether a second import added, changed and tagged nothing (None when not run)."""
    records: int = 0
    titles: list[str] = field(default_factory=list)
    """The titles of the records the import made, in order."""
    seconds: float = 0.0
    not_in_source: list[str] = field(default_factory=list)
    """Match strings that occur nowhere in the source: mistakes of the expected file."""
    impossible: list[str] = field(default_factory=list)
    """Facts no record can hold (a kind or status the models do not have): mistakes too."""

    @property
    def share(self) -> float:
        return self.captured / self.facts if self.facts else 1.0

    def as_json(self) -> dict[str, Any]:
        return {**asdict(self), "share": self.share}


@dataclass
class Outcome:
    """What one command did."""

    status: int
    stdout: str
    stderr: str


class Runner(Protocol):
    def __call__(self, args: Sequence[str]) -> Outcome: ...


def run_in_process(args: Sequence[str]) -> Outcome:
    """The command through the CLI's click entry point in this process; an uncaught exception is its traceback on stderr."""
    from click.testing import CliRunner

    from statedump.cli import main

    result = CliRunner().invoke(main, list(args), catch_exceptions=True)
    stderr = result.stderr
    if result.exception is not None and not isinstance(result.exception, SystemExit) and result.exc_info is not None:
        stderr += "".join(traceback.format_exception(*result.exc_info))
    return Outcome(result.exit_code, result.stdout, stderr)


def run_subprocess(args: Sequence[str]) -> Outcome:
    """The command as its own process: `python -m statedump ...`."""
    done = subprocess.run([sys.executable, "-m", "statedump", *args], capture_output=True, text=True, check=False, timeout=300)
    return Outcome(done.returncode, done.stdout, done.stderr)


def _source_strings(path: Path) -> list[str]:
    # The raw text, and for JSON every string value decoded (a match is written unescaped),
    # also inside strings that are themselves JSON (tool inputs).
    raw = path.read_text(encoding="utf-8", errors="replace")
    found = [raw]

    def walk(value: Any, depth: int = 0) -> None:
        if isinstance(value, str):
            found.append(value)
            if depth < 4 and value[:1] in "[{":
                with contextlib.suppress(ValueError):
                    walk(json.loads(value), depth + 1)
        elif isinstance(value, dict):
            for item in value.values():
                walk(item, depth)
        elif isinstance(value, list):
            for item in value:
                walk(item, depth)

    chunks = [raw] if path.suffix == ".json" else raw.splitlines() if path.suffix == ".jsonl" else []
    for chunk in chunks:
        try:
            walk(json.loads(chunk))
        except ValueError:
            continue
    return [fold(s) for s in found]


def not_in_source(expected: Expected, corpus: Path = CORPUS) -> list[str]:
    """The facts' match strings that occur nowhere in the source (a mistake of the expected file)."""
    texts = _source_strings(corpus / expected.source)
    return [f.match for f in expected.facts if not any(fold(f.match) in t for t in texts)]


def supported_formats() -> frozenset[str]:
    """The formats `statedump import` has now."""
    from statedump.services.ingest import FORMATS

    return frozenset(FORMATS)


def _json(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return None


def score_file(expected: Expected, store: Path, run: Runner, corpus: Path = CORPUS) -> FileScore:
    """Import `expected`'s source into the new store at `store` (its session `corpus`) and score it."""
    started = time.perf_counter()
    score = FileScore(expected.source, expected.format, len(expected.facts))
    score.missed = [asdict(f) for f in expected.facts]
    score.not_in_source = not_in_source(expected, corpus)
    score.impossible = [f"{f.kind}/{f.status} {f.match!r}: {why}" for f in expected.facts if (why := impossible(f))]
    if expected.format not in supported_formats():
        score.supported = False
        score.problems.append("format not supported")
        return score
    source = str((corpus / expected.source).resolve())
    where = ["--store", str(store), "-s", SESSION]

    def command(args: list[str], what: str) -> Any:
        out = run(args)
        if TRACEBACK in out.stderr:
            score.traceback = score.failed = True
            score.problems.append(f"{what}: traceback ({out.stderr.strip().splitlines()[-1][:120]})")
        elif out.status != 0:
            score.failed = True
            lines = out.stderr.strip().splitlines() or ["(no output)"]
            score.problems.append(f"{what}: exit {out.status} ({lines[-1][:120]})")
        if out.status != 0:
            return None
        data = _json(out.stdout)
        if data is None:
            score.json_ok = False
            score.problems.append(f"{what} --json: not JSON")
        return data

    first = command(["import", expected.format, source, *where, "--json"], "import")
    if score.failed:
        score.seconds = time.perf_counter() - started
        return score
    records = command(["list", *where, "--json"], "list")
    if not isinstance(records, list):
        records = []
        if score.json_ok and not score.failed:
            score.json_ok = False
            score.problems.append("list --json: not a list")
    if records:
        shown = command(["show", str(records[0].get("id")), *where, "--json"], "show")
        if shown is not None and (not isinstance(shown, dict) or shown.get("id") != records[0].get("id")):
            score.json_ok = False
            score.problems.append("show --json: not the record list --json gave")
    second = command(["import", expected.format, source, *where, "--json"], "second import")
    after = command(["list", *where, "--json"], "list after the second import")
    if isinstance(first, dict) and isinstance(second, dict):
        grew = [f"{len(second.get(k) or [])} {k}" for k in ("added", "changed", "tags") if second.get(k)]
        same = not grew and not second.get("commit") and after == records
        score.idempotent = same
        if not same:
            score.problems.append("second import: " + (", ".join(grew) if grew else "the records changed"))
    score.records = len(records)
    score.titles = [str(r.get("title") or "") for r in records]
    texts = [record_text(r) for r in records]
    score.missed = []
    for fact in expected.facts:
        if any(captures(fact, r, t) for r, t in zip(records, texts, strict=True)):
            score.captured += 1
        else:
            score.missed.append(asdict(fact))
    for record in records:
        title = str(record.get("title") or "")
        for junk in expected.junk:
            if junk_hit(junk, title):
                score.junk.append({"junk": junk, "record": f"{record.get('kind')}/{record.get('id')}: {title}"})
    score.seconds = time.perf_counter() - started
    return score


# -- the corpus -----------------------------------------------------------------------------


@dataclass
class CorpusScore:
    """Every file's score and the totals."""

    files: list[FileScore]
    seconds: float = 0.0

    @property
    def facts(self) -> int:
        return sum(f.facts for f in self.files)

    @property
    def captured(self) -> int:
        return sum(f.captured for f in self.files)

    @property
    def share(self) -> float:
        return self.captured / self.facts if self.facts else 1.0

    @property
    def lowest(self) -> float:
        return min((f.share for f in self.files), default=1.0)

    @property
    def junk(self) -> int:
        return sum(len(f.junk) for f in self.files)

    @property
    def passed(self) -> bool:
        return self.share >= 0.9 and self.lowest >= 0.7 and self.junk == 0

    def as_json(self) -> dict[str, Any]:
        return {
            "facts": self.facts,
            "captured": self.captured,
            "share": self.share,
            "lowest": self.lowest,
            "junk": self.junk,
            "target": TARGET,
            "passed": self.passed,
            "seconds": round(self.seconds, 2),
            "files": [f.as_json() for f in self.files],
        }


def _template(root: Path, run: Runner) -> None:
    # One `statedump init` + `session new`, copied for each file: a fresh store each time, and
    # two commands fewer per file.
    for args in (["init", str(root)], ["session", "new", SESSION, "--title", "corpus", "--store", str(root)]):
        out = run(args)
        if out.status != 0 or TRACEBACK in out.stderr:
            raise RuntimeError(f"statedump {' '.join(args[:2])} exited {out.status}: {out.stderr.strip()[-300:]}")


def _score_one(expected: Expected, workdir: str, index: int, subprocesses: bool, corpus: str) -> FileScore:
    base = Path(workdir)
    store = base / f"store-{index}"
    if expected.format in supported_formats():
        shutil.copytree(base / "template", store, symlinks=True)
    try:
        return score_file(expected, store, run_subprocess if subprocesses else run_in_process, Path(corpus))
    finally:
        shutil.rmtree(store, ignore_errors=True)


def _scratch() -> Path | None:
    # Memory, where there is a tmpfs: each import writes and commits up to a hundred files, and
    # on a busy disk waiting for them took three quarters of the run.
    shm = Path("/dev/shm")  # noqa: S108 (only the parent of a mkdtemp folder)
    return shm if shm.is_dir() and os.access(shm, os.W_OK) else None


def _environ(env: dict[str, str] | None) -> None:
    if env is not None:
        os.environ.clear()
        os.environ.update(env)


def score_corpus(
    expected: Iterable[Expected] | None = None,
    *,
    jobs: int = 1,
    subprocesses: bool = False,
    corpus: Path = CORPUS,
    env: dict[str, str] | None = None,
    workdir: Path | None = None,
) -> CorpusScore:
    """Score every expected file (or those given) on `jobs` processes, in the environment `env` (default: this one).

    The stores are made in `workdir` (default: /dev/shm where there is one, else the temporary folder) and removed.

    In this process (`jobs` 1) the commands run through the CLI's click entry point, or as their
    own processes with `subprocesses`; with more jobs, spawned workers score a file each.
    """
    plan = list(load_expected(corpus) if expected is None else expected)
    started = time.perf_counter()
    base = Path(tempfile.mkdtemp(prefix="statedump-corpus-", dir=workdir or _scratch()))
    saved = dict(os.environ)
    try:
        _environ(env)
        _template(base / "template", run_subprocess if subprocesses else run_in_process)
        if jobs <= 1:
            files = [_score_one(e, str(base), i, subprocesses, str(corpus)) for i, e in enumerate(plan)]
        else:
            # Spawned workers: nothing of this process (threads, locks, caches) is inherited.
            context = multiprocessing.get_context("spawn")
            with concurrent.futures.ProcessPoolExecutor(jobs, mp_context=context, initializer=_environ, initargs=(env,)) as pool:
                futures = [pool.submit(_score_one, e, str(base), i, subprocesses, str(corpus)) for i, e in enumerate(plan)]
                files = [f.result() for f in futures]
    finally:
        if env is not None:
            os.environ.clear()
            os.environ.update(saved)
        shutil.rmtree(base, ignore_errors=True)
    return CorpusScore(files, time.perf_counter() - started)


# -- the ratchet ----------------------------------------------------------------------------


def _floor(share: float) -> float:
    # Rounded down, so a recorded minimum is never above the score it came from.
    return math.floor(share * 10_000 + 1e-9) / 10_000


def read_scores(path: Path = SCORES) -> dict[str, Any]:
    """The recorded minimum shares: {"overall": float, "files": {source: float}} (empty when there is no file)."""
    if not path.exists():
        return {"overall": 0.0, "files": {}}
    data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    return {"overall": float(data.get("overall") or 0.0), "files": {str(k): float(v) for k, v in (data.get("files") or {}).items()}}


def below(score: CorpusScore, recorded: dict[str, Any]) -> list[str]:
    """What scores under its recorded minimum (never a score that rose)."""
    worse = []
    if _floor(score.share) < recorded["overall"]:
        worse.append(f"overall: {score.share:.1%} < {recorded['overall']:.1%}")
    for f in score.files:
        minimum = recorded["files"].get(f.source)
        if minimum is not None and _floor(f.share) < minimum:
            worse.append(f"{f.source}: {f.share:.1%} < {minimum:.1%} (missed: {', '.join(m['match'] for m in f.missed)})")
    return worse


def write_scores(score: CorpusScore, path: Path = SCORES) -> dict[str, Any]:
    """Raise the recorded minimums to the current scores (never lower one); return what was written."""
    old = read_scores(path)
    files = dict(old["files"])
    for f in score.files:
        files[f.source] = max(files.get(f.source, 0.0), _floor(f.share))
    new = {"overall": max(old["overall"], _floor(score.share)), "files": dict(sorted(files.items()))}
    head = (
        "# The corpus ratchet: minimum shares of facts captured (tests/cli/test_corpus_real.py).\n"
        "# Raised, never lowered, by `STATEDUMP_UPDATE_SCORES=1 pytest tests/cli/test_corpus_real.py`\n"
        "# or `python -m benchmarks.corpus --update-scores`. See docs/import/quality.md.\n"
    )
    path.write_text(head + yaml.safe_dump(new, sort_keys=False, allow_unicode=True), encoding="utf-8")
    return new


# -- output ---------------------------------------------------------------------------------

_HEAD = ["file", "format", "facts", "captured", "share", "junk", "problems"]


def _cells(f: FileScore) -> list[str]:
    problems = list(f.problems)
    if f.not_in_source or f.impossible:
        problems.append(f"expected file: {len(f.not_in_source) + len(f.impossible)} mistake(s)")
    return [f.source, f.format, str(f.facts), str(f.captured), f"{f.share:.0%}", str(len(f.junk)), "; ".join(problems) or "-"]


def overall_line(score: CorpusScore) -> str:
    verdict = "PASS" if score.passed else "MISS"
    return (
        f"overall: {score.captured}/{score.facts} facts captured ({score.share:.1%}), lowest file {score.lowest:.0%}, "
        f"{score.junk} junk, {len(score.files)} files in {score.seconds:.1f} s; target {TARGET}: {verdict}"
    )


def table(score: CorpusScore) -> str:
    """The per-file table as aligned text, then the overall line."""
    body = [_cells(f) for f in score.files]
    widths = [max(len(line[i]) for line in [_HEAD, *body]) for i in range(len(_HEAD))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(line, widths, strict=True)).rstrip() for line in [_HEAD, *body]]
    return "\n".join([*lines, "", overall_line(score)])


def _md(text: str) -> str:
    return text.replace("|", "\\|")


def markdown(score: CorpusScore) -> str:
    """The per-file table as Markdown, then the overall line."""
    lines = ["| " + " | ".join(_HEAD) + " |", "| --- | --- | ---: | ---: | ---: | ---: | --- |"]
    for f in score.files:
        cells = _cells(f)
        cells[0] = f"`{cells[0]}`"
        lines.append("| " + " | ".join(_md(c) for c in cells) + " |")
    return "\n".join([*lines, "", overall_line(score)])


def details(score: CorpusScore) -> str:
    """What each file missed, the junk it made and the expected files' mistakes."""
    out = []
    for f in score.files:
        lines = [f"  missed {m['kind']}/{m['status']}: {m['match']!r}" for m in f.missed]
        lines += [f"  junk {j['junk']!r} -> {j['record']}" for j in f.junk]
        lines += [f"  not in the source (expected file mistake?): {m!r}" for m in f.not_in_source]
        lines += [f"  impossible (expected file mistake): {m}" for m in f.impossible]
        if lines:
            out += [f.source, *lines]
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.corpus", description=__doc__.split("\n\n")[0])
    parser.add_argument("sources", nargs="*", metavar="SOURCE", help="only these sources (substrings of their paths)")
    parser.add_argument("--markdown", action="store_true", help="print the table as Markdown (for docs/import/quality.md)")
    parser.add_argument("--json", nargs="?", const="-", metavar="FILE", help="write the scores as JSON to FILE (or stdout)")
    parser.add_argument("--subprocess", action="store_true", help="run each command as its own process (slower)")
    parser.add_argument("--jobs", type=int, help="processes scoring files (default 1 in this process, 2 with --subprocess)")
    parser.add_argument("--details", action="store_true", help="list each file's missed facts, junk and expected-file mistakes")
    parser.add_argument("--update-scores", action="store_true", help=f"raise {SCORES.relative_to(ROOT)} to the current scores")
    args = parser.parse_args(argv)
    plan = [e for e in load_expected() if not args.sources or any(s in e.source for s in args.sources)]
    from benchmarks.cases import environment

    jobs = args.jobs or (min(2, os.cpu_count() or 1) if args.subprocess else 1)
    score = score_corpus(plan, jobs=jobs, subprocesses=args.subprocess, env=environment())
    out = sys.stderr if args.json == "-" else sys.stdout
    print(markdown(score) if args.markdown else table(score), file=out)
    if args.details:
        print("\n" + details(score), file=out)
    if args.update_scores:
        if args.sources:
            parser.error("--update-scores scores the whole corpus: give no SOURCE")
        write_scores(score)
        print(f"wrote {SCORES.relative_to(ROOT)}", file=out)
    if args.json is not None:
        text = json.dumps(score.as_json(), indent=2)
        if args.json == "-":
            print(text)
        else:
            Path(args.json).write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
