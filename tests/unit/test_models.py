"""Models and their YAML form: every kind round-trips byte for byte; bad input is refused."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from statedump.core import codec
from statedump.core.errors import StatedumpError
from statedump.models import (
    KINDS,
    Alternative,
    Benchmark,
    Command,
    Compat,
    Component,
    Decision,
    Discovery,
    Enforcement,
    File,
    Goal,
    Instruction,
    Links,
    Metric,
    RecordBase,
    Reference,
    Task,
    Tradeoff,
    id_problem,
)

AT = datetime(2026, 3, 14, 9, 30, tzinfo=UTC)

SAMPLES: list[RecordBase] = [
    Goal(
        id="serve-qwen",
        title="Serve Qwen3.5",
        at=AT,
        criteria=["172 tok/s single request", "accurate long context"],
        body="Deploy it.\n\nWith SGLang.\n",
    ),
    Instruction(
        id="msg-6007",
        title="Accuracy question",
        at=AT,
        source="msg 6007",
        quote="Are we doing anything that could be reducing model accuracy?",
        standing=True,
    ),
    Discovery(
        id="fp8-scale",
        title="FP8 KV scale defaults to 1.0",
        at=AT,
        status="confirmed",
        category="risk",
        tags=["kv-cache"],
        links=Links(relates_to=["msg-6007"]),
    ),
    Compat(
        id="moe-cutlass",
        title="flashinfer_cutlass on SM120",
        status="works",
        component="MoE runner backend",
        option="flashinfer_cutlass",
        target="SM120",
        versions={"sglang": "main", "cuda": "13.0.1"},
    ),
    Benchmark(
        id="single",
        title="Single request decode",
        concurrency=1,
        request_rate=float("inf"),
        metrics=[Metric(name="output_throughput", value=172.0, unit="tok/s")],
        environment={"tp": "8"},
        baseline=True,
    ),
    Decision(
        id="bf16-kv-cache",
        title="BF16 KV cache instead of FP8",
        status="accepted",
        question="FP8 or BF16 KV?",
        choice="--kv-cache-dtype bf16",
        alternatives=[Alternative(option="fp8_e4m3", why_not="scales default to 1.0")],
        rationale="Accuracy first.",
        tradeoffs=[Tradeoff(aspect="KV cache capacity", before="3.15M", after="1.57M", unit="tokens")],
        enforces=[Enforcement(command="launch", flag="--kv-cache-dtype", value="bf16")],
        links=Links(prompted_by=["msg-6007"], evidence=["fp8-scale"]),
    ),
    Task(id="calibrate-fp8", title="Calibrate FP8 KV scales", status="proposed", priority=2, impact="win back capacity"),
    Command(
        id="launch",
        title="Launch SGLang",
        text="python -m sglang.launch_server \\\n  --kv-cache-dtype bf16\n",
        env={"NCCL_IB_DISABLE": "1"},
        last_known_good=True,
    ),
    Component(id="cuda", title="CUDA 13.0.1", name="CUDA", version="13.0.1"),
    File(id="unit-file", title="The systemd unit", path="/etc/systemd/system/sglang.service"),
    Reference(id="gist", title="sm120 instructions", url="https://gist.github.com/catid/87cca824963f17fe7479a0ed26221397"),
]


def test_every_kind_has_a_sample() -> None:
    assert {s.kind for s in SAMPLES} == set(KINDS)


@pytest.mark.parametrize("record", SAMPLES, ids=lambda r: r.kind)
def test_round_trip_is_byte_for_byte(record: RecordBase) -> None:
    text = codec.dump_record(record)
    back = codec.load_record(text.encode(), "x.yaml")
    assert back == record
    assert codec.dump_record(back) == text
    assert text.startswith(f"# yaml-language-server: $schema=../../../schemas/{record.kind}.schema.json\n")
    assert "null" not in text and text.endswith("\n") and not text.endswith("\n\n\n")


def test_multiline_text_is_a_block_scalar() -> None:
    text = codec.dump_record(SAMPLES[0])
    assert "body: |\n  Deploy it.\n\n  With SGLang.\n" in text


def test_field_order_is_common_head_then_own_then_tail() -> None:
    keys = [line.split(":")[0] for line in codec.dump_record(SAMPLES[5]).splitlines()[1:] if line and not line.startswith((" ", "-"))]
    assert keys[:4] == ["id", "kind", "title", "status"]
    assert keys[-1] == "links"
    assert keys.index("choice") < keys.index("links")


@pytest.mark.parametrize("bad", ["", "../x", "a/b", "A", "con", "lpt1", "x" * 65, "-x", "a..b", "with space", "é"])
def test_unsafe_ids_are_refused(bad: str) -> None:
    assert id_problem(bad) is not None
    with pytest.raises(StatedumpError):
        codec.load_record(f"id: '{bad}'\nkind: goal\ntitle: t\nstatus: active\n".encode(), "x.yaml")


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("id: a\nkind: goal\ntitle: t\nstatus: active\nsurprise: 1\n", "field 'surprise': unknown field"),
        ("id: a\nkind: goal\ntitle: t\nstatus: finished\n", "field 'status': must be one of"),
        ("id: a\nkind: benchmark\ntitle: t\nstatus: valid\nconcurrency: many\n", "field 'concurrency'"),
        ("id: a\nkind: spaceship\ntitle: t\n", "unknown kind"),
        ("id: a\nkind: goal\ntitle: [unclosed\n", "malformed YAML at line 4"),
        ("!!python/object/apply:os.system ['true']\n", "unsupported YAML tag"),
        ("a: &x [1]\nb: *x\n", "aliases are not allowed"),
        ("- just\n- a list\n", "expected a mapping"),
        ("", "expected a mapping"),
    ],
)
def test_bad_record_text_gives_one_clear_message(text: str, needle: str) -> None:
    with pytest.raises(StatedumpError) as err:
        codec.load_record(text.encode(), "sessions/s/goal/a.yaml")
    assert needle in str(err.value)
    assert str(err.value).startswith("sessions/s/goal/a.yaml: ")
    assert "\n" not in str(err.value)


def test_binary_and_oversized_files_are_refused() -> None:
    with pytest.raises(StatedumpError, match="NUL bytes"):
        codec.load_record(b"id: a\x00\n", "x.yaml")
    with pytest.raises(StatedumpError, match="not valid UTF-8"):
        codec.load_record(b"id: \xff\xfe\n", "x.yaml")
    with pytest.raises(StatedumpError, match="over the"):
        codec.load_record(b"title: " + b"x" * (codec.MAX_FILE_BYTES + 1), "x.yaml")


def test_enforcement_names_exactly_one_target() -> None:
    with pytest.raises(ValueError, match="exactly one"):
        Enforcement(command="launch", flag="--a", env="B")


def test_naive_times_become_utc() -> None:
    rec = codec.load_record(b"id: a\nkind: goal\ntitle: t\nstatus: active\nat: 2026-03-02 14:05:00\n", "x.yaml")
    assert rec.at == datetime(2026, 3, 2, 14, 5, tzinfo=UTC)
