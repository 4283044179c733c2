"""Secret redaction: a corpus of shapes, each hidden with its surroundings kept, and nothing
in the example session touched."""

from __future__ import annotations

import pytest

from statedump.core.redact import MARK, find_secrets, redact_model, redact_text
from statedump.core.render import render_markdown
from statedump.models import Command
from statedump.services.demo import load_example


def _fake(prefix: str, n: int, alphabet: str = "aZ3kQ9xW7mPq2Lr8") -> str:
    # Built at run time so that no token-shaped string sits in the repository itself.
    return prefix + (alphabet * (n // len(alphabet) + 1))[:n]


CORPUS: list[tuple[str, str, str]] = [
    # (shape, text as it would appear, the secret that must disappear)
    ("openai", "OpenAI key {s} in the log", _fake("sk-", 48)),
    ("openai-project", "key={s}", _fake("sk-proj-", 64)),
    ("anthropic", "use {s} for claude", _fake("sk-ant-api03-", 80)),
    ("google", "maps {s}", _fake("AIza", 35)),
    ("huggingface", "huggingface-cli login --token {s}", _fake("hf_", 34)),
    ("github-classic", "git clone with {s}", _fake("ghp_", 36)),
    ("github-oauth", "oauth {s}", _fake("gho_", 36)),
    ("github-app", "app {s}", _fake("ghs_", 36)),
    ("github-fine-grained", "pat {s}", _fake("github_pat_", 82)),
    ("gitlab", "gitlab {s}", _fake("glpat-", 20)),
    ("slack-bot", "slack {s}", _fake("xoxb-1234567890-", 24)),
    ("slack-user", "slack {s}", _fake("xoxp-1234567890-", 24)),
    ("slack-webhook", "curl -X POST https://hooks.slack.com/services/{s}", _fake("T0000/B0000/", 24)),
    ("aws-access-key", "aws key {s}", "AKIA" + "QWERTYUIOPASDFGH"),
    ("aws-secret-key", "aws_secret_access_key = {s}", _fake("wJalrXUtnFEMI/", 26)),
    ("bearer-header", "curl -H 'Authorization: Bearer {s}' http://x", _fake("tok", 30)),
    ("basic-header", "Authorization: Basic {s}", "dXNlcjpwYXNzd29yZDEyMw=="),
    ("api-key-flag", "python -m sglang.launch_server --api-key {s} --port 30000", "mysecretvalue123"),
    ("token-flag", "vllm serve m --token={s}", "anothersecret987"),
    ("hf-token-env", "HF_TOKEN={s} python run.py", "plainvalue-not-a-prefix"),
    ("openai-key-env", "export OPENAI_API_KEY={s}", "literal-value-42"),
    ("client-secret-env", "CLIENT_SECRET='{s}'", "quoted value here"),
    ("password-env", "PASSWORD={s}", "hunter2hunter2"),
    ("db-password-env", "DB_PASSWORD={s} ./migrate", "c0rrect-h0rse"),
    ("url-credentials", "git remote add origin https://ann:{s}@example.com/repo.git", "p4ssw0rd"),
    ("private-key", "-----BEGIN RSA PRIVATE KEY-----\n{s}\n-----END RSA PRIVATE KEY-----", _fake("MIIEow", 64)),
    ("openssh-key", "-----BEGIN OPENSSH PRIVATE KEY-----\n{s}\n-----END OPENSSH PRIVATE KEY-----", _fake("b3BlbnNzaC", 70)),
    ("stripe", "stripe {s}", _fake("sk_live_", 24)),
    ("npm", "//registry.npmjs.org/:_authToken={s}", _fake("npm_", 36)),
    ("pypi", "twine upload -p {s}", _fake("pypi-AgEIcHlwaS5vcmc", 60)),
    ("jwt", "cookie {s}", _fake("eyJhbGciOiJIUzI1NiJ9", 0) + "." + _fake("eyJzdWIiOiIxMjM0NTY3ODkwIn0", 0) + "." + _fake("SflKxwRJSM", 30)),
    ("json-api-key", '{{"api_key": "{s}"}}', "json-embedded-secret"),
    ("x-api-key-header", "-H 'x-api-key: {s}'", _fake("k", 32)),
]


def corpus_text() -> str:
    """Every corpus line, one after another: what tests feed through each entry point."""
    return "\n".join(text.format(s=secret) for _, text, secret in CORPUS)


def secrets() -> list[str]:
    return [secret for _, _, secret in CORPUS]


def test_corpus_has_at_least_twenty_shapes() -> None:
    assert len({shape for shape, _, _ in CORPUS}) >= 20


@pytest.mark.parametrize(("shape", "text", "secret"), CORPUS, ids=[c[0] for c in CORPUS])
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
