"""The commit HEAD names, read from the files of `.git` without starting git.

Every write asks for HEAD twice (for the journal before, for the commit's id after): as
`git rev-parse` that was two of a write's four processes, half of what an add through the
MCP server costs over a bare `git add` + `git commit`. git keeps refs in plain files (the
"files" backend, gitrepository-layout(5)): `HEAD` holds `ref: refs/heads/main` or a commit id,
the branch's loose file `refs/heads/main` its id, and `packed-refs` the ids of refs that
`git pack-refs` moved there. git replaces each of these files by renaming a new one into
place, so a read sees the old content or the new, never half.

Anything else (a reftable repository, a `.git` file of a linked work tree, a symbolic ref
that leads to another symbolic ref, a file that is not what git writes) is not read here:
`head` answers UNKNOWN and the gateway asks git.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Final

UNKNOWN: Final = "unknown"
"""`head`'s answer when the files do not settle it; ask git."""

_SHA = re.compile(rb"^[0-9a-f]{40}(?:[0-9a-f]{24})?$")
_REF = re.compile(rb"^refs/[A-Za-z0-9._/-]+$")


def head(git_dir: Path) -> str | None:
    """The id of the commit HEAD points at, None on a branch with no commit yet, or UNKNOWN."""
    try:
        if not git_dir.is_dir() or (git_dir / "reftable").exists() or (git_dir / "commondir").exists():
            return UNKNOWN
        text = (git_dir / "HEAD").read_bytes().strip()
        if _SHA.match(text):
            return text.decode()
        if not text.startswith(b"ref: "):
            return UNKNOWN
        name = text[5:].strip()
        if not _REF.match(name) or b".." in name:
            return UNKNOWN
        loose = git_dir / name.decode()
        if loose.is_file():
            value = loose.read_bytes().strip()
            return value.decode() if _SHA.match(value) else UNKNOWN
        return _packed(git_dir / "packed-refs", name)
    except OSError:
        return UNKNOWN


def _packed(path: Path, name: bytes) -> str | None:
    # Read after the loose file: `pack-refs` writes packed-refs before it deletes loose files,
    # so a ref that is in neither place has no commit yet.
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    for line in data.splitlines():
        if line.endswith(b" " + name):
            value = line[: -len(name) - 1]
            return value.decode() if _SHA.match(value) else UNKNOWN
    return None
