"""Small git reads and writes the sync needs, through GitPython."""

from __future__ import annotations

import io
from pathlib import Path
from typing import TYPE_CHECKING

from statedump.core.layout import SESSIONS
from statedump.models import KINDS

if TYPE_CHECKING:
    import git


def lines(text: str) -> list[str]:
    """The non-blank lines of git output."""
    return [line for line in text.splitlines() if line.strip()]


def ref_exists(repo: git.Repo, ref: str) -> bool:
    """True when `ref` names an object."""
    import git

    try:
        repo.git.rev_parse("--verify", "--quiet", ref)
        return True
    except git.GitCommandError:
        return False


def blob(repo: git.Repo, sha: str) -> bytes:
    """The bytes of a blob."""
    data: bytes = repo.odb.stream(bytes.fromhex(sha)).read()
    return data


def store_blob(repo: git.Repo, data: bytes) -> str:
    """Write `data` as a blob into the object database; returns its sha."""
    from gitdb import IStream  # type: ignore[import-untyped]

    return bytes(repo.odb.store(IStream(b"blob", len(data), io.BytesIO(data))).binsha).hex()


def record_path(path: str) -> tuple[str, str, str] | None:
    """(session, kind, id) when `path` is a record file."""
    parts = path.split("/")
    if len(parts) == 4 and parts[0] == SESSIONS and parts[2] in KINDS and parts[3].endswith(".yaml"):
        return parts[1], parts[2], parts[3][: -len(".yaml")]
    return None


def tree_blobs(repo: git.Repo, rev: str) -> dict[str, str]:
    """path -> blob sha of every file under sessions/ as of `rev`."""
    out = {}
    for line in lines(repo.git.ls_tree("-r", "--full-tree", rev, "--", SESSIONS)):
        meta, path = line.split("\t", 1)
        out[path] = meta.split()[2]
    return out


def in_progress(repo: git.Repo) -> bool:
    """True while a rebase is stopped in the repository."""
    gd = Path(repo.git_dir)
    return (gd / "rebase-merge").exists() or (gd / "rebase-apply").exists()
