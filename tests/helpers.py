"""What the tests share: where their data is, an isolated environment, the golden-file check,
the CLI run in-process, and git and snapshot helpers. Fixtures are in conftest.py."""

from __future__ import annotations

import os
import re
import subprocess
import time
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from benchmarks import generate
from statedump.cli import main

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
GOLDEN = TESTS / "golden"
FIXTURES = TESTS / "fixtures" / "import"
CORPUS = TESTS / "corpus"
CORPUS_REAL = TESTS / "corpus_real"

FIXED_NOW = "2026-03-15T12:00:00Z"

_IDENTITY = ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "GIT_AUTHOR_DATE", "GIT_COMMITTER_DATE")


def isolate(mp: pytest.MonkeyPatch, home: Path, now: str | None = FIXED_NOW) -> None:
    """No user git config, no identity or store from the environment, and the clock fixed at
    `now` (None: the real clock). The one way every test, fixture and child process is isolated."""
    mp.setenv("HOME", str(home))
    mp.setenv("GIT_CONFIG_GLOBAL", str(home / ".gitconfig"))
    mp.setenv("GIT_CONFIG_NOSYSTEM", "1")
    mp.delenv("STATEDUMP_STORE", raising=False)
    if now is None:
        mp.delenv("STATEDUMP_NOW", raising=False)
    else:
        mp.setenv("STATEDUMP_NOW", now)
    for var in _IDENTITY:
        mp.delenv(var, raising=False)


_SHA = re.compile(r"(?<![0-9A-Za-z])[0-9a-f]{10}(?:[0-9a-f]{30})?(?![0-9A-Za-z])")


def golden(name: str, text: str, mask_shas: bool = False) -> None:
    """Compare `text` with tests/golden/NAME (STATEDUMP_UPDATE_GOLDEN=1 rewrites it).

    `mask_shas` replaces commit ids by `<sha>`, for output that names commits of a test's own store.
    """
    if mask_shas:
        text = _SHA.sub("<sha>", text)
    path = GOLDEN / name
    if os.environ.get("STATEDUMP_UPDATE_GOLDEN"):
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8")


def git(root: Path, *args: str) -> str:
    """Run the git CLI in `root` and return its output (for assertions independent of GitPython)."""
    return subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, text=True).stdout


def snapshot(root: Path) -> tuple[str, str, dict[str, bytes]]:
    """HEAD, the porcelain status, and every file's bytes outside .git: to prove nothing changed."""
    files = {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file() and ".git" not in p.parts}
    return git(root, "rev-parse", "HEAD").strip(), git(root, "status", "--porcelain"), files


class Cli:
    """The statedump CLI run in-process against one store."""

    def __init__(self, root: Path):
        self.root = root
        self.runner = CliRunner()

    def __call__(self, *args: str, input: str | None = None, env: dict[str, str] | None = None) -> Result:
        return self.runner.invoke(
            main, list(args), input=input, env={"STATEDUMP_STORE": str(self.root), **(env or {})}, catch_exceptions=False
        )


# -- Claude Code transcript lines for tests ------------------------------------------------

CLAUDE_CODE_ENVELOPE = generate.ENVELOPE
"""The fields around every message line of a Claude Code transcript, as the benchmark's generator writes them."""


# -- the secrets corpus: every shape redaction must hide, fed through every entry point --


def _fake(prefix: str, n: int, alphabet: str = "aZ3kQ9xW7mPq2Lr8") -> str:
    # Built at run time so that no token-shaped string sits in the repository itself.
    return prefix + (alphabet * (n // len(alphabet) + 1))[:n]


SECRETS: list[tuple[str, str, str]] = [
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
    # Issue 18: shapes the first patterns missed.
    ("pgp-private-key", "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n{s}\n-----END PGP PRIVATE KEY BLOCK-----", _fake("lQOYBF", 64)),
    ("password-short", "password: {s}", "hunter2"),
    ("redis-url-no-user", "redis-cli -u redis://:{s}@cache:6379/0", "r3disPw"),
    ("url-upper-case", "HTTPS://ANN:{s}@EXAMPLE.COM/x", "Upp3rPass"),
    ("url-password-slash", "git clone https://ann:{s}@example.com/repo.git", "pa/ss9word"),
    ("aws-json-camel", 'sts said {{"AccessKeyId": "x", "SecretAccessKey": "{s}"}}', _fake("wJalrXUtnFEMIK7MDENG", 40)),
    ("curl-user", "curl -u admin:{s} https://api.example.com", "curlPass77"),
    ("mysql-p", "mysql -uroot -p{s} prod", "MyPw0rd"),
    ("db-pass-env", "DB_PASS={s} ./run", "dbpass42"),
    ("mysql-pwd-env", "MYSQL_PWD={s} mysql -uroot", "mysqlpwd42"),
    ("nvidia-api-key", "NGC key {s}", _fake("nvapi-", 64)),
    (
        "azure-account-key",
        "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey={s};EndpointSuffix=core.windows.net",
        _fake("Eby8vdM02xNOcqFl", 86) + "==",
    ),
    # Last: a block cut inside its END line hides everything after it.
    ("key-block-cut-in-end-line", "-----BEGIN RSA PRIVATE KEY-----\n{s}\n-----END RSA PRIV", _fake("MIIEpAIB", 64)),
]

ORDINARY: list[str] = [
    # Text that looks like a secret's surroundings and must stay exactly as written.
    "--max-tokens 2048 --max-new-tokens 16",
    "--tokenizer-path /models/tok",
    "HF_TOKEN=$HF_TOKEN docker run",
    "NCCL_P2P_LEVEL=SYS NCCL_IB_DISABLE=1",
    "curl -H 'Content-Type: application/json'",
    "--kv-cache-dtype bf16 --tool-call-parser qwen3_coder",
    "total_output_tokens: 128000",
    "MAX_TOKEN=4096",
    "CACHE_KEY=session-42-prefix",
    '"eos_token": "<|im_end|>", "pad_token": "<|endoftext|>"',
    "primary_key = user_id",
    "sort_key: created_at",
    "cd /srv && PWD=/srv OLDPWD=/home/ann make",
    "BYPASS=1 ./run",
    "docker run -u 1000:1000 image",
    "curl http://localhost:8000/v1/models -u",
    "see https://example.com:8443/path?mail=ann@example.com",
    "the secret: batching helps",
    "--key /etc/ssl/server.pem --eos-token </s>",
    "new OpenAI({ apiKey: customModel.api_key, token: process.env.TOKEN })",
]


def corpus_text() -> str:
    """Every corpus line, one after another: what tests feed through each entry point."""
    return "\n".join(text.format(s=secret) for _, text, secret in SECRETS)


def secrets() -> list[str]:
    return [secret for _, _, secret in SECRETS]


def find_secrets(text: str) -> list[str]:
    """The secret-looking spans of a text that redaction left in it: what the scans of files,
    outputs and history look for."""
    from statedump.core.redact import findings

    return findings(text)


# -- processes killed in tests ------------------------------------------------


def alive_in_group(group: int) -> bool:
    """True while a process of this group is still running (for kill -9 tests)."""
    # Zombies do not count: their files are closed, and PID 1 in a container may never reap them.
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[2]) == group and fields[0] != "Z":
            return True
    return False


def wait_until_gone(group: int) -> None:
    """Wait (up to 10 s) until no process of the group is left."""
    # A killed git child can outlive its parent by a moment; the crash is over when none is left.
    deadline = time.monotonic() + 10
    while alive_in_group(group) and time.monotonic() < deadline:
        time.sleep(0.01)
