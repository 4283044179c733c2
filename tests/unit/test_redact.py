"""Secret redaction: a corpus of shapes, each hidden with its surroundings kept, and nothing
in the example session touched."""

from __future__ import annotations

import pytest
from helpers import SECRETS, find_secrets

from statedump.core.redact import MARK, redact_model, redact_text
from statedump.core.render import render_markdown
from statedump.models import Command
from statedump.services.demo import load_example


def test_corpus_has_at_least_twenty_shapes() -> None:
    assert len({shape for shape, _, _ in SECRETS}) >= 20


@pytest.mark.parametrize(("shape", "text", "secret"), SECRETS, ids=[c[0] for c in SECRETS])
def test_each_shape_is_found_and_redacted(shape: str, text: str, secret: str) -> None:
    line = text.format(s=secret)
    assert find_secrets(line), shape
    out = redact_text(line)
    assert secret not in out
    assert MARK in out
    assert find_secrets(out) == []
    assert redact_text(out) == out  # idempotent


def test_redaction_keeps_the_shape() -> None:
    assert redact_text("HF_TOKEN=abc123abc123 python x.py") == "HF_TOKEN=<redacted> python x.py"
    assert redact_text("serve --api-key abcdefgh123 --port 1") == "serve --api-key <redacted> --port 1"
    assert redact_text("https://ann:pw123456@host/x") == "https://ann:<redacted>@host/x"
    assert redact_text("Authorization: Bearer abcdefghijklmnopqrstuvwxyz") == "Authorization: Bearer <redacted>"


def test_ordinary_flags_and_variables_are_left_alone() -> None:
    for text in (
        "--max-tokens 2048 --max-new-tokens 16",
        "--tokenizer-path /models/tok",
        "HF_TOKEN=$HF_TOKEN docker run",
        "NCCL_P2P_LEVEL=SYS NCCL_IB_DISABLE=1",
        "curl -H 'Content-Type: application/json'",
        "--kv-cache-dtype bf16 --tool-call-parser qwen3_coder",
        "total_output_tokens: 128000",
    ):
        assert redact_text(text) == text, text
        assert find_secrets(text) == [], text


def test_no_false_positives_on_the_example_session() -> None:
    state = load_example()
    for record in state.records:
        assert redact_model(record) is record, record.id
    assert redact_model(state.session) is state.session
    assert find_secrets(render_markdown(state)) == []


def test_redact_model_hides_env_values_by_name() -> None:
    cmd = Command(id="c", title="t", text="python x.py", env={"HF_TOKEN": "plainvalue", "NCCL_PROTO": "Simple"})
    out = redact_model(cmd)
    assert out.env == {"HF_TOKEN": MARK, "NCCL_PROTO": "Simple"}
