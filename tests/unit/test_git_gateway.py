"""The git gateway: the one translation of git's failures, the one identity lookup, and the
sync's git work done through it. Real repositories, no mocks."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from helpers import ROOT, git

from statedump.core.errors import GitFailed, NotFound, StatedumpError
from statedump.core.git.errors import CommandFailed, failed, subcommand
from statedump.core.git.gateway import Git
from statedump.core.git.identity import FALLBACK_EMAIL, FALLBACK_NAME
from statedump.core.store.store import Store
from statedump.models import Goal, Session
from statedump.services.ingest.checkpoints import write_tags
from statedump.services.sync import sync


@pytest.fixture
def store(tmp_path: Path) -> Store:
    made = Store.init(tmp_path / "store")
    made.create_session(Session(id="s1", title="One"))
    return made


def test_a_failed_command_is_git_failed_with_git_s_own_words(store: Store) -> None:
    with pytest.raises(CommandFailed) as caught:
        store.git.update_ref("refs/heads/x", "0" * 39)
    err = caught.value
    assert isinstance(err, GitFailed)
    assert err.status == 1
    assert err.returncode != 0
    assert err.message.startswith("git update-ref failed: fatal:")
    assert err.last == err.lines[-1]
    assert err.where == str(store.root)


def test_the_subcommand_is_named_past_global_options() -> None:
    assert subcommand(["-c", "log.showRoot=true", "log", "--no-color"]) == "log"
    assert subcommand(["--no-pager", "-C", "/x", "status"]) == "status"


def test_quoted_stderr_reads_as_gitpython_gave_it() -> None:
    err = failed(
        ["push", "origin"], 1, b"To /r.git\n ! [rejected] main -> main (fetch first)\nerror: failed to push some refs to '/r'\n", "/s"
    )
    assert isinstance(err, CommandFailed)
    assert err.says("fetch first")
    assert err.last == "error: failed to push some refs to '/r"
    silent = failed(["push", "origin"], 1, b"", "/s")
    assert isinstance(silent, CommandFailed)
    assert silent.last == "cmdline: git push origin"


def test_outside_a_repository_is_the_user_s_error(tmp_path: Path) -> None:
    (tmp_path / "plain").mkdir()
    with pytest.raises(StatedumpError, match="not a git repository") as caught:
        Git(tmp_path / "plain").summary()
    assert not isinstance(caught.value, GitFailed)
    assert caught.value.status == 2


def test_unknown_revisions_are_not_found(store: Store) -> None:
    with pytest.raises(NotFound, match="no commit named 'nope'"):
        store.git.resolve("nope")
    assert store.git.merge_base("HEAD", "HEAD") == store.git.head()


def test_a_refused_commit_keeps_its_message(store: Store) -> None:
    # --no-verify skips hooks, so a commit is refused by a lock file instead; git's last line
    # (where it says what to do) is the message.
    (store.git.git_dir / "index.lock").write_text("")
    try:
        with pytest.raises(GitFailed, match=r"git refused the commit: remove the file manually to continue\.$"):
            store.add("s1", Goal(id="g", title="A goal"))
    finally:
        (store.git.git_dir / "index.lock").unlink()
    assert not (store.root / "sessions/s1/goal/g.yaml").exists()


def _git_processes(trace: Path, command: str) -> int:
    return sum(1 for line in trace.read_text().splitlines() if "built-in: git" in line and f" {command} " in f"{line} ")


def test_identity_is_asked_once_for_commits_and_tags(store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    trace = tmp_path / "trace"
    monkeypatch.setenv("GIT_TRACE", str(trace))
    fresh = Store(store.root)
    fresh.add("s1", Goal(id="one", title="First"))
    fresh.add("s1", Goal(id="two", title="Second"))
    with fresh.lock():
        write_tags(fresh, [("dump/s1/1", fresh.git.head() or "", "a dump", None)])
    # One `git var` per role, whatever was written.
    assert _git_processes(trace, "var") == 2
    tagger = git(store.root, "for-each-ref", "--format=%(taggername) %(taggeremail)", "refs/tags/dump/s1/1")
    assert tagger.strip() == f"{FALLBACK_NAME} <{FALLBACK_EMAIL}>"


def test_the_identity_is_git_s_own_when_it_has_one(store: Store) -> None:
    git(store.root, "config", "user.name", "Ada")
    git(store.root, "config", "user.email", "ada@example.org")
    fresh = Git(store.root)
    assert fresh.identity_env() == {}
    assert fresh.signers() == ("Ada <ada@example.org>", "Ada <ada@example.org>")


def test_sync_runs_its_git_through_the_gateway(store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bare = tmp_path / "remote.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(store.root), str(bare)], check=True)
    git(store.root, "remote", "add", "origin", str(bare))
    store.add("s1", Goal(id="later", title="Later"))
    trace = tmp_path / "trace"
    monkeypatch.setenv("GIT_TRACE", str(trace))
    result = sync(store)
    assert result.pushed
    assert git(bare, "log", "-1", "--format=%s").strip() == "goal: add later"
    # The push ran with the gateway's environment: git never prompts for a password.
    assert _git_processes(trace, "push") == 1
    # A failing git command in the sync is told as one line, as before.
    git(store.root, "remote", "set-url", "origin", str(tmp_path / "missing.git"))
    store.add("s1", Goal(id="again", title="Again"))
    with pytest.raises(GitFailed, match=r"git failed: and the repository exists\.$") as caught:
        sync(store)
    assert not isinstance(caught.value, CommandFailed)


@pytest.mark.parametrize("layer", ["services", "core/store", "cli", "tui", "mcpserver"])
def test_no_git_but_through_the_gateway(layer: str) -> None:
    root = ROOT / "statedump" / layer
    for path in root.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        for word in ("import git\n", "from git ", "gitdb", "import subprocess", ".repo.", "repo.git."):
            assert word not in text, f"{path}: {word.strip()} (git goes through statedump.core.git)"
