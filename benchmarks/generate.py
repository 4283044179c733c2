"""Large synthetic stores and transcripts for the benchmarks.

A store of N records is a real statedump store with a real history: `Store.init`
and `Store.create_session` make the first two commits the ordinary way, then one
commit per record follows, each adding one record file with the subject and
trailers statedump itself writes (`statedump.core.store.store.commit_message`), dated by the
record's `at`. Those commits are written with `git fast-import` rather than by
10,000 `statedump add` processes: the result is the same kind of repository (real
commits, real trees, the same messages), built in seconds instead of an hour. The
files are the bytes `codec.dump_record` writes, so statedump reads them as its own.

The records cover every kind, with title and body lengths like the example
session's, links to earlier records, decisions that enforce flags of commands,
and commands of several lines.
"""

from __future__ import annotations

import json
import random
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from statedump.core import codec
from statedump.core.layout import SESSIONS
from statedump.core.store.store import Store, commit_message
from statedump.models import KINDS, RecordBase, Session

SESSION = "bench"
START = datetime(2026, 3, 1, 8, 0, tzinfo=UTC)
IDENT = "statedump <statedump@localhost>"

# How often each kind appears in a long deployment session (weights, not counts).
MIX = {
    "discovery": 22,
    "task": 14,
    "command": 11,
    "benchmark": 11,
    "compat": 10,
    "decision": 9,
    "instruction": 8,
    "component": 5,
    "file": 5,
    "reference": 5,
}

_VOCABULARY = (
    "kv cache fp8 bf16 scale moe runner backend flashinfer cutlass cudnn triton attention sm120 blackwell gpu nccl pcie "
    "throughput latency decode prefill concurrency tokens context expert parallel tensor graph capture kernel build source "
    "sglang server launch flag checkpoint config quantization nvfp4 accuracy smoke test long agentic coding prompt batch "
    "memory capacity allreduce bandwidth driver cuda torch nightly wheel systemd unit restart service monitor metric "
    "regression baseline speculative nextn draft acceptance rate warmup timeout port health check request queue scheduler "
    "chunked radix prefix eviction page size fused gemm fallback crash nan garbage output traced verified measured"
)
WORDS = tuple(_VOCABULARY.split())
FLAGS = (
    "--kv-cache-dtype",
    "--moe-runner-backend",
    "--fp4-gemm-backend",
    "--attention-backend",
    "--tp-size",
    "--max-running-requests",
    "--chunked-prefill-size",
    "--mem-fraction-static",
    "--cuda-graph-max-bs",
    "--speculative-algorithm",
)
VALUES = ("bf16", "flashinfer_cutlass", "flashinfer_cudnn", "triton", "8", "1024", "8192", "0.88", "256", "NEXTN")


@dataclass(frozen=True)
class Built:
    """A generated store: where it is, its session, its records' ids by kind, and its commit count."""

    root: Path
    session: str
    ids: dict[str, list[str]]
    commits: int
    dangling: str | None = None
    """The decision whose links name records that never existed, when one was asked for."""


class _Text:
    """Deterministic pseudo-prose over the deployment vocabulary."""

    def __init__(self, rng: random.Random):
        self.rng = rng

    def words(self, low: int, high: int) -> str:
        return " ".join(self.rng.choice(WORDS) for _ in range(self.rng.randint(low, high)))

    def title(self) -> str:
        return self.words(4, 11).capitalize()

    def sentence(self) -> str:
        return self.words(8, 22).capitalize() + "."

    def paragraph(self) -> str:
        text, lines, line = " ".join(self.sentence() for _ in range(self.rng.randint(2, 5))), [], ""
        # Bodies are wrapped near 100 columns, as people and agents write them.
        for word in text.split():
            if len(line) + len(word) > 98:
                lines.append(line)
                line = word
            else:
                line = f"{line} {word}".strip()
        return "\n".join([*lines, line])

    def body(self) -> str | None:
        count = self.rng.choice((0, 1, 1, 2, 2, 3, 4))
        return "\n\n".join(self.paragraph() for _ in range(count)) or None

    def command(self) -> str:
        env = [
            f"NCCL_{self.rng.choice(('P2P_LEVEL', 'PROTO', 'MIN_NCHANNELS', 'BUFFSIZE'))}={self.rng.randint(1, 64)} \\" for _ in range(2)
        ]
        flags = [f"  {f} {v} \\" for f, v in zip(self.rng.sample(FLAGS, 6), self.rng.sample(VALUES, 6), strict=True)]
        return "\n".join(
            [*env, "python -m sglang.launch_server \\", "  --model-path nvidia/Qwen3.5-397B-A17B-NVFP4 \\", *flags, "  --port 30000"]
        )


def _fields(kind: str, text: _Text, earlier: dict[str, list[str]]) -> dict[str, Any]:
    rng = text.rng
    if kind == "instruction":
        return {"quote": text.sentence(), "standing": rng.random() < 0.3}
    if kind == "discovery":
        return {
            "category": rng.choice(("finding", "finding", "risk", "dead-end")),
            "status": rng.choice(("confirmed", "suspected", "ruled-out")),
        }
    if kind == "compat":
        return {
            "component": rng.choice(("MoE runner backend", "FP4 GEMM backend", "Attention backend")),
            "option": rng.choice(VALUES),
            "target": "SM120 (RTX PRO 6000 Blackwell)",
            "versions": {"sglang": "main", "CUDA": "13.0.1", "torch": "2.12.0 nightly"},
            "status": rng.choice(("works", "fails", "partial")),
            "symptom": text.sentence() if rng.random() < 0.5 else None,
            "repro": text.sentence(),
        }
    if kind == "benchmark":
        return {
            "workload": "sglang.bench_serving random 1024 in / 512 out",
            "concurrency": rng.choice((1, 8, 64, 256, 1024)),
            "metrics": [
                {"name": "output_throughput", "value": round(rng.uniform(100, 2500), 1), "unit": "tok/s"},
                {"name": "median_ttft", "value": round(rng.uniform(50, 900), 1), "unit": "ms"},
                {"name": "median_itl", "value": round(rng.uniform(4, 40), 2), "unit": "ms"},
            ],
            "environment": {"kv-cache-dtype": rng.choice(("bf16", "fp8_e4m3")), "moe-runner-backend": "flashinfer_cutlass", "tp-size": "8"},
            "baseline": rng.random() < 0.1,
            "status": rng.choice(("valid", "valid", "stale")),
        }
    if kind == "decision":
        commands = earlier.get("command", [])
        enforces = [
            {"command": c, "flag": rng.choice(FLAGS), "value": rng.choice(VALUES)} for c in rng.sample(commands, min(2, len(commands)))
        ]
        return {
            "question": text.sentence(),
            "choice": text.words(3, 8),
            "alternatives": [{"option": text.words(2, 6), "why_not": text.sentence()} for _ in range(rng.randint(1, 3))],
            "rationale": text.paragraph(),
            "tradeoffs": [{"aspect": "KV cache capacity", "before": "3.15M", "after": "1.57M", "unit": "tokens", "note": text.sentence()}],
            "enforces": enforces,
            "deciders": ["coding agent"],
            "status": rng.choice(("accepted", "accepted", "proposed", "superseded")),
        }
    if kind == "task":
        return {
            "status": rng.choice(("done", "done", "todo", "in-progress", "proposed", "blocked")),
            "priority": rng.choice((None, 1, 2, 3)),
            "impact": text.words(3, 8) if rng.random() < 0.5 else None,
        }
    if kind == "command":
        return {
            "form": "shell",
            "text": text.command(),
            "purpose": text.sentence(),
            "last_known_good": rng.random() < 0.5,
            "status": rng.choice(("current", "previous", "previous", "failed")),
        }
    if kind == "component":
        return {
            "name": rng.choice(("sglang", "sgl-kernel", "flashinfer", "torch", "CUDA", "NCCL")),
            "version": f"{rng.randint(0, 13)}.{rng.randint(0, 30)}.{rng.randint(0, 9)}",
        }
    if kind == "file":
        return {"path": f"/opt/sglang/python/sglang/srt/{rng.choice(WORDS)}/{rng.choice(WORDS)}.py"}
    if kind == "reference":
        return {"url": f"https://docs.example.org/{rng.choice(WORDS)}/{rng.choice(WORDS)}"}
    return {"criteria": [text.sentence() for _ in range(3)]}


def _links(kind: str, rng: random.Random, earlier: dict[str, list[str]]) -> dict[str, list[str]]:
    def pick(kinds: tuple[str, ...], count: int) -> list[str]:
        pool = [i for k in kinds for i in earlier.get(k, [])[-200:]]
        return sorted(set(rng.sample(pool, min(count, len(pool))))) if pool else []

    links: dict[str, list[str]] = {}
    if kind in ("decision", "discovery", "compat"):
        links["evidence"] = pick(("discovery", "benchmark", "compat"), rng.randint(1, 3))
    if kind != "instruction":
        links["prompted_by"] = pick(("instruction",), 1)
    if kind == "benchmark":
        links["produced_by"] = pick(("command",), 1)
    if kind == "command" and rng.random() < 0.4:
        links["supersedes"] = pick(("command",), 1)
    if rng.random() < 0.5:
        links["relates_to"] = pick(("file", "reference", "component", "task"), rng.randint(1, 2))
    return {k: v for k, v in links.items() if v}


def records(count: int, seed: int = 7, kinds: dict[str, int] | None = None) -> Iterator[RecordBase]:
    """`count` valid records in the order they happened; the first is the goal (unless `kinds` says otherwise)."""
    rng = random.Random(seed)  # noqa: S311 - reproducible test data, not secrets
    text = _Text(rng)
    mix = kinds or MIX
    names, weights = list(mix), list(mix.values())
    earlier: dict[str, list[str]] = {}
    for n in range(count):
        # The first records take each kind in turn, so that even a small store has every kind.
        first = ["goal", *names] if kinds is None else names
        kind = first[n] if n < len(first) else rng.choices(names, weights)[0]
        title = text.title()
        data: dict[str, Any] = {
            "id": f"{kind[:4]}-{n:05d}-" + "-".join(title.lower().split()[:3]),
            "kind": kind,
            "title": title,
            "at": START + timedelta(seconds=45 * n),
            "source": f"msg {1000 + n}",
            "tags": rng.sample(WORDS, rng.randint(1, 4)),
            "links": _links(kind, rng, earlier),
            "body": text.body(),
            **_fields(kind, text, earlier),
        }
        record = KINDS[kind].model_validate({k: v for k, v in data.items() if v is not None})
        earlier.setdefault(kind, []).append(record.id)
        yield record


def _git(root: Path, *args: str, stdin: bytes | None = None) -> str:
    done = subprocess.run(["git", "-C", str(root), *args], input=stdin, capture_output=True, check=True)
    return done.stdout.decode().strip()


def _blob(data: bytes) -> bytes:
    return b"data %d\n%s\n" % (len(data), data)


DANGLING = 5
"""Links to records that never existed, on the decision of a `dangling` store."""


def _dangle(record: RecordBase) -> RecordBase:
    gone = [f"gone-{n}" for n in range(DANGLING)]
    links = record.links.model_copy(update={"evidence": gone[:-1], "prompted_by": gone[-1:]})
    return record.model_copy(update={"links": links})


def build_store(root: Path, count: int, seed: int = 7, kinds: dict[str, int] | None = None, *, dangling: bool = False) -> Built:
    """A store at `root` with one session of `count` records and `count + 2` commits (see the module docstring).

    With `dangling`, the first decision of the history's second half links only to records that
    never existed (as a hand-edited or imported decision may), with thousands of commits after it."""
    store = Store.init(root)
    store.create_session(Session(id=SESSION, title="Synthetic benchmark session", model="nvidia/Qwen3.5-397B-A17B-NVFP4"), when=START)
    head = _git(root, "rev-parse", "HEAD")
    stream: list[bytes] = []
    ids: dict[str, list[str]] = {}
    odd: str | None = None
    for n, record in enumerate(records(count, seed, kinds)):
        if dangling and odd is None and record.kind == "decision" and n >= count // 2:
            record = _dangle(record)
            odd = record.id
        data = codec.dump_record(record).encode()
        path = store.record_path(SESSION, record.kind, record.id)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        ids.setdefault(record.kind, []).append(record.id)
        assert record.at is not None  # every generated record is dated
        stamp = f"{IDENT} {int(record.at.timestamp())} +0000".encode()
        message = commit_message("add", record, SESSION, record.source).encode()
        stream += [b"commit refs/heads/main\n", b"author %s\ncommitter %s\n" % (stamp, stamp), _blob(message)]
        if n == 0:
            stream.append(f"from {head}\n".encode())
        stream += [f"M 100644 inline {store.rel(path)}\n".encode(), _blob(data)]
    if stream:
        _git(root, "fast-import", "--quiet", "--done", stdin=b"".join([*stream, b"done\n"]))
        # The work tree already holds the files; make the index match the new HEAD.
        _git(root, "reset", "--quiet")
    return Built(root, SESSION, ids, count + 2, odd)


def example_store(root: Path) -> Path:
    """A store holding the example session's files in one commit (what `statedump render` reads of the demo, built in a second)."""
    import shutil

    from statedump.services.demo import example_dir

    Store.init(root)
    source = example_dir()
    shutil.copytree(source, root / SESSIONS / source.name)
    _git(root, "add", "--", SESSIONS)
    # The generator's own identity unless the environment names one, as for the fast-imported commits.
    ident = ["-c", "user.name=statedump", "-c", "user.email=statedump@localhost"]
    _git(root, *ident, "commit", "--quiet", "-m", f"session: new {source.name}", "--", SESSIONS)
    return root


TRANSCRIPT_SHAPE = 2
"""Version of the realistic transcript shape; the benchmark's file name carries it, so a file
written by an older generator is never taken for the current one."""

_MODEL = "claude-sonnet-4-5-20250929"
_ROUNDS = (6, 28)
"""Tool rounds after each typed prompt: 17 on average, so 37 lines a prompt."""
_DUMP_EVERY = 4000
"""Lines between two checkpoints (an empty user turn, then a state dump)."""


def transcript(path: Path, megabytes: float, seed: int = 11, *, dense: bool = False) -> int:
    """A Claude Code JSONL transcript of about `megabytes` MB (the shape in notes/formats.md §1); returns its size.

    The default shape is a working session: each typed prompt is followed by 6–28 tool
    rounds (an assistant line with thinking, text and a `tool_use`, then the user line with
    its `tool_result`), a closing answer and a `turn_duration` line: one typed prompt in
    about 37 lines, as in the reference session (SCENARIO.md: the person speaks five times
    in messages 5843–6026). `dense=True` is the
    worst case for an importer, and the shape of the first generator: a typed prompt every
    4th line. Both put a checkpoint (an empty user turn, then a state dump) about every
    4,000 lines.
    """
    rng = random.Random(seed)  # noqa: S311 - reproducible test data, not secrets
    text = _Text(rng)
    target = int(megabytes * 1024 * 1024)
    lines = _dense_lines(rng, text) if dense else _session_lines(rng, text)
    with open(path, "w", encoding="utf-8") as fh:
        head = json.dumps({"type": "summary", "summary": "Deploy Qwen3.5 on SM120", "leafUuid": f"00000000-0000-4000-8000-{0:012d}"}) + "\n"
        fh.write(head)
        size = len(head)
        while size < target:
            raw = json.dumps(next(lines), ensure_ascii=False) + "\n"
            fh.write(raw)
            size += len(raw.encode())
    return size


ENVELOPE: dict[str, object] = {
    "parentUuid": None,
    "isSidechain": False,
    "userType": "external",
    "cwd": "/home/ann/deploy",
    "sessionId": "5e0c2a7b-1f3d-4c1e-8a2b-6d9e4f0a7c11",
    "version": "2.0.61",
    "gitBranch": "main",
}
"""The fields around every message line of a Claude Code transcript, with our own values
(the order Claude Code writes them in; `parentUuid` is each line's own)."""


class _Envelope:
    """The fields every Claude Code line carries, with uuids in order and a clock that moves on."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.n = 0
        self.parent: str | None = None
        self.when = datetime(2026, 3, 14, 7, 30, tzinfo=UTC)

    def next(self) -> dict[str, Any]:
        self.n += 1
        uuid = f"00000000-0000-4000-8000-{self.n:012d}"
        self.when += timedelta(seconds=self.rng.randint(1, 30))
        env = {
            **ENVELOPE,
            "parentUuid": self.parent,
            "uuid": uuid,
            "timestamp": self.when.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
        }
        self.parent = uuid
        return env


def _assistant(env: dict[str, Any], n: int, blocks: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    message = {"model": _MODEL, "id": f"msg_{n:08d}", "type": "message", "role": "assistant", "content": blocks, **extra}
    return {**env, "type": "assistant", "requestId": f"req_{n:08d}", "message": message}


_EVERYDAY = (
    "nvidia-smi",
    "ls -la /models/Qwen3.5-397B-A17B-NVFP4",
    "grep -n kv_cache_dtype python/sglang/srt/server_args.py",
    "tail -n 50 /tmp/sglang.log",
    "git -C ~/sglang log --oneline -5",
    "curl -s http://127.0.0.1:30000/health",
    "cat /etc/systemd/system/sglang-qwen35.service",
    "pip show sgl-kernel flashinfer-python",
)


def _shell_command(rng: random.Random, text: _Text) -> str:
    """What a working session runs: now and then a server launch or a benchmark, mostly
    everyday commands: one call in a hundred launches a server and one runs a benchmark, a few
    dozen of each in a 200 MB transcript, as many as a long deployment session has."""
    roll = rng.random()
    if roll < 0.01:
        return text.command()
    if roll < 0.02:
        return "python -m sglang.bench_serving --backend sglang --dataset-name random --num-prompts 1024 --max-concurrency 1024 --random-input 1024 --random-output 1024"
    return rng.choice(_EVERYDAY)


def _tool_call(rng: random.Random, text: _Text, env: dict[str, Any], n: int) -> dict[str, Any]:
    """An assistant line that thinks, says something and runs a command (`toolu_<n>`)."""
    blocks: list[dict[str, Any]] = [
        {"type": "thinking", "thinking": text.paragraph(), "signature": "sig"},
        {"type": "text", "text": text.paragraph()},
        {"type": "tool_use", "id": f"toolu_{n:08d}", "name": "Bash", "input": {"command": _shell_command(rng, text)}},
    ]
    usage = {"input_tokens": rng.randint(10, 99), "output_tokens": rng.randint(50, 900)}
    return _assistant(env, n, blocks, stop_reason="tool_use", usage=usage)


def _tool_round(rng: random.Random, text: _Text, envelope: _Envelope, outputs: list[str]) -> Iterator[dict[str, Any]]:
    env = envelope.next()
    n = envelope.n
    yield _tool_call(rng, text, env, n)
    out = rng.choice(outputs)
    result = {"tool_use_id": f"toolu_{n:08d}", "type": "tool_result", "content": out, "is_error": False}
    yield {
        **envelope.next(),
        "type": "user",
        "message": {"role": "user", "content": [result]},
        "toolUseResult": {"stdout": out, "stderr": ""},
    }


def _outputs(rng: random.Random, text: _Text) -> list[str]:
    # Tool outputs make up most of a real transcript; a pool of them keeps generation fast.
    return ["\n".join(text.sentence() for _ in range(rng.randint(5, 120))) for _ in range(64)]


def _dump(text: _Text) -> str:
    return "\n\n".join(
        f"## {h}\n\n" + "\n".join(f"- {text.sentence()}" for _ in range(6)) for h in ("Goal", "Instructions", "Discoveries", "Accomplished")
    )


def _turn_duration(rng: random.Random, envelope: _Envelope) -> dict[str, Any]:
    return {**envelope.next(), "type": "system", "subtype": "turn_duration", "durationMs": rng.randint(1000, 900000), "level": "info"}


def _session_lines(rng: random.Random, text: _Text) -> Iterator[dict[str, Any]]:
    """Prompts, each followed by 6–28 tool rounds, a closing answer and a turn duration.

    As in the first generator, the file opens with a checkpoint (so that even the quick
    run's small file has one), and one follows about every 4,000 lines, between two turns.
    """
    envelope = _Envelope(rng)
    outputs, dump = _outputs(rng, text), _dump(text)
    dumped = -_DUMP_EVERY
    while True:
        if envelope.n - dumped >= _DUMP_EVERY:
            dumped = envelope.n
            yield {**envelope.next(), "type": "user", "message": {"role": "user", "content": ""}}
            yield _assistant(envelope.next(), envelope.n, [{"type": "text", "text": dump}], stop_reason="end_turn")
            yield _turn_duration(rng, envelope)
        yield {**envelope.next(), "type": "user", "message": {"role": "user", "content": text.sentence()}}
        for _ in range(rng.randint(_ROUNDS[0], _ROUNDS[1])):
            yield from _tool_round(rng, text, envelope, outputs)
        yield _assistant(envelope.next(), envelope.n, [{"type": "text", "text": text.paragraph()}], stop_reason="end_turn")
        yield _turn_duration(rng, envelope)


def _dense_lines(rng: random.Random, text: _Text) -> Iterator[dict[str, Any]]:
    """The first generator's shape, line for line: a typed prompt every 4th line."""
    envelope = _Envelope(rng)
    outputs, dump = _outputs(rng, text), _dump(text)
    while True:
        env = envelope.next()
        n = envelope.n
        step = n % 4
        if n % 4000 in (1, 2):
            # Now and then an empty user turn, then a state dump: a checkpoint.
            if n % 4000 == 1:
                yield {**env, "type": "user", "message": {"role": "user", "content": ""}}
            else:
                yield _assistant(env, n, [{"type": "text", "text": dump}])
        elif step == 1:
            yield {**env, "type": "user", "message": {"role": "user", "content": text.sentence()}}
        elif step == 2:
            yield _tool_call(rng, text, env, n)
        elif step == 3:
            out = rng.choice(outputs)
            result = {"tool_use_id": f"toolu_{n - 1:08d}", "type": "tool_result", "content": out, "is_error": False}
            yield {**env, "type": "user", "message": {"role": "user", "content": [result]}, "toolUseResult": {"stdout": out, "stderr": ""}}
        else:
            yield {**env, "type": "system", "subtype": "turn_duration", "durationMs": rng.randint(100, 90000), "level": "info"}
