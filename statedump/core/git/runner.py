"""The git binary, run for the gateway: one way to start git, one way its failure is told.

Every git command of statedump runs here. GitPython is kept for what it does without a
process per call (reading objects through one long-lived `cat-file`); a command that GitPython
would only have passed on to the binary is run directly, without GitPython's import.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import IO, TYPE_CHECKING

from statedump.core.errors import StatedumpError
from statedump.core.git.errors import failed
from statedump.core.git.identity import Identity, ask_identity

if TYPE_CHECKING:
    import git


SAFE = ("-c", "core.fsmonitor=false", "-c", "log.showSignature=false")
"""Settings given to every git command, over the repository's own: a store's config (one
copied from someone else, a tarball) can name programs git would run for a mere read — an
fsmonitor hook on `status`, gpg on `log`. statedump needs neither. Filter drivers, which
`status` runs too, have names of the repository's choosing: see `Runner.no_filters`."""

_DUBIOUS = b"detected dubious ownership"


def run_git(root: Path, *args: str, env: Mapping[str, str] | None = None, input: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    """The git binary run in `root`: never prompting, in the C locale, `env` over the process's
    own environment, its output and status given back as they are.

    A repository git refuses to open (owned by another user, `safe.directory`) is an error
    here, for every caller: a command that took git's refusal for "no commits yet" would
    answer wrongly and exit 0."""
    done = subprocess.run(_argv(root, args), capture_output=True, check=False, env=_environ(env), input=input)
    if done.returncode == 128 and _DUBIOUS in done.stderr:
        raise StatedumpError(
            "git refused the repository: it is owned by another user (git's safe.directory check)",
            where=root,
            hint=f"work in a store you own, or, if you trust its owner: `git config --global --add safe.directory {root}`",
        )
    return done


def start_git(root: Path, *args: str, env: Mapping[str, str] | None, stdin: IO[bytes] | int, stderr: IO[bytes]) -> subprocess.Popen[bytes]:
    """The git binary started in `root` as `run_git` runs it, reading `stdin` (a file, or
    `subprocess.PIPE` to feed it) while the caller goes on; its output is discarded and its
    errors go to `stderr`, a file: nothing waits on a pipe nobody reads."""
    return subprocess.Popen(_argv(root, args), stdin=stdin, stdout=subprocess.DEVNULL, stderr=stderr, env=_environ(env))


def _argv(root: Path, args: tuple[str, ...]) -> list[str]:
    return ["git", "-C", str(root), *SAFE, *args]


def _environ(env: Mapping[str, str] | None) -> dict[str, str]:
    return {**os.environ, "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C", "LANGUAGE": "C", **(env or {})}


class Runner:
    """A work tree and the git commands run in it; the base of the gateway's parts."""

    def __init__(self, root: Path):
        self.root = root
        self._repo: git.Repo | None = None
        self._identity: Identity | None = None
        self._filters: tuple[str, ...] | None = None

    def _run(self, *args: str, env: Mapping[str, str] | None = None, input: bytes | None = None) -> bytes:
        """The output of a git command that must succeed (else the translated error)."""
        done = run_git(self.root, *args, env=env, input=input)
        if done.returncode:
            raise failed(args, done.returncode, done.stderr, self.root)
        return done.stdout

    def _text(self, *args: str, env: Mapping[str, str] | None = None) -> str:
        """The output as text, one trailing newline dropped (as GitPython gave it)."""
        out = self._run(*args, env=env).decode("utf-8", errors="replace")
        return out.removesuffix("\n")

    def _lines(self, *args: str, env: Mapping[str, str] | None = None) -> list[str]:
        """The non-blank lines of the output."""
        return [line for line in self._text(*args, env=env).splitlines() if line.strip()]

    def _maybe(self, *args: str) -> str | None:
        """The output as text, or None when the command fails (a setting that is not set)."""
        done = run_git(self.root, *args)
        return None if done.returncode else done.stdout.decode("utf-8", errors="replace")

    def _ok(self, *args: str) -> bool:
        """True when the command exits 0 (a question asked of git: is it an ancestor, a ref)."""
        return run_git(self.root, *args).returncode == 0

    def no_filters(self) -> tuple[str, ...]:
        """`-c` settings that switch off every filter driver the repository's config names
        (their clean, smudge and process programs): for commands such as `status` that would
        run them while only looking. Asked of git's config once per gateway; reading the config
        runs nothing."""
        if self._filters is None:
            names = self._maybe("config", "--name-only", "--get-regexp", r"^filter\.") or ""
            drivers = sorted({n.rsplit(".", 1)[0] for n in names.split() if n.count(".") >= 2})
            self._filters = tuple(arg for d in drivers for key in ("clean", "smudge", "process") for arg in ("-c", f"{d}.{key}="))
        return self._filters

    @property
    def _repository(self) -> git.Repo:
        if self._repo is None:
            import git

            try:
                self._repo = git.Repo(self.root)
            except (git.InvalidGitRepositoryError, git.NoSuchPathError):
                raise StatedumpError("not a git repository", where=self.root, hint="run `statedump init` there first") from None
        return self._repo

    @property
    def git_dir(self) -> Path:
        """The repository's `.git` folder (found without a process when it is the usual one)."""
        plain = self.root / ".git"
        return plain if plain.is_dir() else Path(self._repository.git_dir)

    @property
    def identity(self) -> Identity:
        """Who signs statedump's commits and tags: asked of git once per gateway."""
        if self._identity is None:
            self._identity = ask_identity(lambda role: run_git(self.root, "var", f"GIT_{role}_IDENT"))
        return self._identity
