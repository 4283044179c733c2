"""The branch, its refs and its remote: what `statedump sync` asks of git."""

from __future__ import annotations

from collections.abc import Mapping

from statedump.core.errors import StatedumpError
from statedump.core.git.errors import CommandFailed
from statedump.core.git.runner import Runner

_STOPPED = (
    ("rebase-merge", "a rebase"),
    ("rebase-apply", "a rebase"),
    ("MERGE_HEAD", "a merge"),
    ("CHERRY_PICK_HEAD", "a cherry-pick"),
    ("REVERT_HEAD", "a revert"),
)
"""The files git leaves while an operation is stopped half-way, and what each one means."""


class Branch(Runner):
    """Refs, the current branch, rebases and remotes."""

    def branch(self) -> str | None:
        """The branch HEAD is on, or None when HEAD is detached."""
        head = self._repository.head
        return None if head.is_detached else str(self._repository.active_branch.name)

    def remotes(self) -> list[str]:
        """The names of the configured remotes."""
        return [str(r.name) for r in self._repository.remotes]

    def config_get(self, key: str) -> str:
        """A config value, or "" when it is not set."""
        return (self._maybe("config", "--get", key) or "").strip()

    def rev_parse(self, rev: str, *, short: int | None = None) -> str:
        """The object id `rev` names (abbreviated to `short` digits)."""
        return self._text("rev-parse", *([f"--short={short}"] if short else []), rev).strip()

    def ref_exists(self, ref: str) -> bool:
        """True when `ref` names an object."""
        return self._ok("rev-parse", "--verify", "--quiet", ref)

    def refs(self, prefix: str) -> dict[str, str]:
        """Ref name -> object id of every ref under `prefix` (`refs/tags/`)."""
        out = {}
        for line in self._lines("for-each-ref", "--format=%(refname) %(objectname)", prefix):
            ref, sha = line.split(" ")
            out[ref] = sha
        return out

    def tag_info(self, ref: str) -> tuple[str, str, str, str, str]:
        """(tagged commit, tagger name, tagger email, raw tag date, message) of a tag; the
        commit is "" for a lightweight tag (it names the commit itself)."""
        info = self._text(
            "for-each-ref", "--format=%(*objectname)%00%(taggername)%00%(taggeremail:trim)%00%(taggerdate:raw)%00%(contents)", ref
        )
        target, tagger, email, date, message = info.split("\0", 4)
        return target, tagger, email, date, message

    def update_ref(self, ref: str, sha: str) -> None:
        self._run("update-ref", ref, sha)

    def merge_base(self, one: str, other: str) -> str | None:
        """The best common ancestor of two commits, or None when they share no history."""
        try:
            return self._text("merge-base", one, other).strip()
        except CommandFailed:
            return None

    def count(self, revs: str) -> int:
        """How many commits `revs` (`a..b`) names."""
        return int(self._text("rev-list", "--count", revs))

    def status_porcelain(self, *paths: str, untracked: str | None = None) -> list[str]:
        """`git status --porcelain` lines (`XY path`) for `paths` (all when none); `untracked`
        is `--untracked-files`' mode (git's own default when None)."""
        mode = [f"--untracked-files={untracked}"] if untracked else []
        # --no-optional-locks: looking never writes the index (which fails on a full disk).
        return self._lines(*self.no_filters(), "--no-optional-locks", "status", "--porcelain", *mode, "--", *paths)

    def fetch(self, remote: str, *refspecs: str) -> None:
        """Fetch `refspecs` from `remote`, pruning what it no longer has; no tags besides."""
        self._run("fetch", "--no-tags", "--prune", remote, *refspecs)

    def push(self, remote: str, *refspecs: str, set_upstream: bool = False) -> None:
        """Push all of `refspecs` or none (`--atomic`), without hooks."""
        self._run("push", "--atomic", "--no-verify", "--quiet", *(["--set-upstream"] if set_upstream else []), remote, *refspecs)

    def switch_tracking(self, branch: str, upstream: str) -> None:
        """Create `branch` at `upstream`, tracking it, and check it out (`switch -c --track`)."""
        self._run("switch", "--quiet", "-c", branch, "--track", upstream)

    def fast_forward(self, rev: str) -> None:
        self._run("merge", "--quiet", "--ff-only", rev)

    def reset_keep(self, rev: str) -> None:
        """Move the branch to `rev`, keeping local changes (`reset --keep`)."""
        self._run("reset", "--quiet", "--keep", rev)

    def rebase(self, *args: str, env: Mapping[str, str] | None = None) -> None:
        """`git rebase ARGS`; a stop (a conflict) is a `CommandFailed` like any failure."""
        self._run("rebase", *args, env=env)

    def rebasing(self) -> bool:
        """True while a rebase is stopped in the repository."""
        gd = self.git_dir
        return (gd / "rebase-merge").exists() or (gd / "rebase-apply").exists()

    def stopped(self) -> str | None:
        """What git is stopped in the middle of ("a rebase", "a merge", ...), or None."""
        gd = self.git_dir
        for name, what in _STOPPED:
            if (gd / name).exists():
                return what
        return None

    def check_committable(self) -> None:
        """Refuse a commit that would not land on the branch: HEAD detached (a commit there is
        lost when the rebase is aborted), or a rebase, merge or cherry-pick stopped half-way."""
        what = self.stopped()
        try:
            head = (self.git_dir / "HEAD").read_bytes()
        except OSError:
            head = b"ref: "
        if what is None and head.startswith(b"ref: "):
            return
        raise StatedumpError(
            f"git is in the middle of {what}" if what else "HEAD is detached",
            where=self.root,
            hint="finish or abort it with git first (`git status` says how); `statedump doctor` shows what the work tree is missing",
        )

    def busy(self) -> bool:
        """True while a rebase, a merge or a cherry-pick is stopped half-way."""
        return self.stopped() is not None
