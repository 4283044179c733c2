"""Secret redaction: a corpus of shapes, each hidden with its surroundings kept, and nothing
in the example session touched."""

from __future__ import annotations

import pytest
from helpers import ORDINARY, SECRETS, find_secrets

from statedump.core.redact import MARK, redact_model, redact_text, secret_name, slug_text
from statedump.core.render import render_markdown
from statedump.models import Benchmark, Command, Compat
from statedump.models.ids import slugify
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


@pytest.mark.parametrize("text", ORDINARY)
def test_ordinary_flags_and_variables_are_left_alone(text: str) -> None:
    assert redact_text(text) == text
    assert find_secrets(text) == []


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


def test_redact_model_hides_secrets_in_mapping_keys() -> None:
    key = "AKIA" + "QWERTYUIOPASDFGH"
    cmd = Command(id="c", title="t", text="x", env={key: "1", "https://ann:pw9word@host": "2", "DB_PASS": "dbpass42", "MAX_TOKEN": "4096"})
    out = redact_model(cmd)
    assert out.env == {MARK: "1", "https://ann:<redacted>@host": "2", "DB_PASS": MARK, "MAX_TOKEN": "4096"}
    bench = Benchmark(id="b", title="t", environment={"sk-" + "a" * 40: "x", "sk-" + "b" * 40: "y"})
    assert redact_model(bench).environment == {MARK: "x", f"{MARK}-2": "y"}
    compat = Compat(id="k", title="t", component="c", option="o", target="t", versions={"ghp_" + "Ab3" * 12: "1.0"})
    assert redact_model(compat).versions == {MARK: "1.0"}


def test_slug_text_hides_a_secret_before_an_id_is_made() -> None:
    title = "rotated key AKIA" + "QX3D7KJ2M5N8P4RT yesterday"
    assert slugify(slug_text(title)) == "rotated-key-redacted-yesterday"
    assert slugify(slug_text("pw https://u:hunter2xx@h/x")) == "pw-https-u-redacted-h-x"


def test_secret_names_and_their_look_alikes() -> None:
    for name in ("HF_TOKEN", "DB_PASS", "MYSQL_PWD", "SecretAccessKey", "AccountKey", "PGPASSWORD", "api-key", "_authToken", "token"):
        assert secret_name(name), name
    for name in ("MAX_TOKEN", "eos_token", "CACHE_KEY", "primary_key", "PWD", "OLDPWD", "BYPASS", "key", "max_tokens", "tokenizer"):
        assert not secret_name(name), name
