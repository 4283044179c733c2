"""The one domain error. Faces turn it into one line for the user and an exit status."""

from __future__ import annotations

import errno
import os
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pydantic import ValidationError


class StatedumpError(Exception):
    """Something the user can fix: bad input, a missing store, an unknown record.

    `where` names the file (or argument) at fault, `hint` says what to do. `status` is the
    process exit status the CLI uses; each subclass carries its own (2 for anything the user
    gave, 1 for what failed underneath), so no raise site passes one by hand. The faces map
    the subclasses by type (the MCP server answers `NotFound` as "not found"), never by the
    wording of the message.
    """

    status = 2

    def __init__(self, message: str, *, where: str | Path | None = None, hint: str | None = None):
        super().__init__(message)
        self.message = message
        self.where = str(where) if where is not None else None
        self.hint = hint

    def __str__(self) -> str:
        from statedump.core.safetext import one_line

        # The message quotes what it found (a YAML key, a `kind`, a file name), which can
        # hold anything: the line is printed with no control character, line break or
        # bidi override in it (see core/safetext.py).
        text = f"{self.where}: {self.message}" if self.where else self.message
        if self.hint:
            text += f" ({self.hint})"
        return one_line(text)


class BadInput(StatedumpError):
    """A file, a field or an argument that is not what statedump reads (exit 2)."""


class NotFound(StatedumpError):
    """A session, record, dump, revision or file that does not exist (exit 2)."""


class Unmerged(StatedumpError):
    """Two histories disagree and a person has to settle it: conflict copies left by `sync`,
    a file changed on both sides (exit 1: not the command's fault, nor fixed by retyping it)."""

    status = 1


class GitFailed(StatedumpError):
    """git refused or failed underneath a command that was right to ask (exit 1)."""

    status = 1


class LockTimeout(StatedumpError):
    """Another statedump process held the store's lock for too long (exit 1: try again)."""

    status = 1


_PLAIN = {
    "missing": "is required",
    "int_parsing": "must be a whole number",
    "int_type": "must be a whole number",
    "float_parsing": "must be a number",
    "float_type": "must be a number",
    "bool_parsing": "must be true or false",
    "bool_type": "must be true or false",
    "string_type": "must be text",
    "list_type": "must be a list",
    "dict_type": "must be a mapping (key: value)",
    "model_type": "must be a mapping of fields",
    "model_attributes_type": "must be a mapping of fields",
    "datetime_parsing": "must be a date and time like 2026-03-14T09:30:00Z",
    "datetime_from_date_parsing": "must be a date and time like 2026-03-14T09:30:00Z",
    "datetime_type": "must be a date and time like 2026-03-14T09:30:00Z",
    "string_too_short": "cannot be empty",
    "string_pattern_mismatch": "cannot be blank",
}


def from_validation(
    err: ValidationError, where: str | Path | None, hint: str | None = None, kind: str | None = None, fields: list[str] | None = None
) -> StatedumpError:
    """One readable line from pydantic's error list: each field at fault and why, in words a
    user (not a Python programmer) reads; unknown fields list the kind's real ones."""
    parts = []
    unknown = False
    missing: list[str] = []
    for e in err.errors():
        loc = ".".join(str(p) for p in e["loc"]) or "(record)"
        kind_of = e["type"]
        msg = _PLAIN.get(kind_of, e["msg"])
        if kind_of == "missing":
            missing.append(loc)
        if kind_of == "extra_forbidden":
            msg, unknown = "unknown field", True
        elif kind_of == "literal_error":
            msg = f"must be one of {e['ctx']['expected']}"
        elif kind_of in ("greater_than_equal", "greater_than", "less_than_equal", "less_than"):
            msg = e["msg"].replace("Input should be", "must be")
        elif kind_of == "value_error":
            msg = str(e["msg"]).removeprefix("Value error, ")
        elif kind_of == "string_too_long":
            msg = f"is too long (at most {e['ctx']['max_length']} characters)"
        parts.append(f"field '{loc}': {msg}")
    if hint is None:
        if missing and str(where) == "arguments":
            hint = "pass " + " ".join(f"--field {name}=..." for name in missing)
        elif unknown and fields:
            hint = f"{a(kind or 'record')} has: {', '.join(fields)}"
        else:
            hint = f"`statedump schema --show {kind}` lists its fields" if kind else "fix the field and try again"
    return BadInput("; ".join(parts), where=where, hint=hint)


_OS_HINTS = {
    errno.ENOSPC: "the disk is full: free some space and run it again",
    errno.EDQUOT: "the disk quota is used up: free some space and run it again",
    errno.EFBIG: "a file-size limit (ulimit -f) stopped the write: raise it and run it again",
    errno.EROFS: "the store is on a read-only file system: writes need a writable copy",
    errno.EACCES: "you may not write there: work in a store you own, or ask its owner",
    errno.EPERM: "you may not write there: work in a store you own, or ask its owner",
    errno.E2BIG: "too many arguments for one command",
}


def from_os_error(err: OSError) -> StatedumpError:
    """A file-system failure (disk full, a size limit, a read-only or foreign store) as one
    line naming the file and what to do; the write it interrupted has been undone."""
    reason = err.strerror or type(err).__name__
    where = err.filename if err.filename is not None else None
    hint = _OS_HINTS.get(err.errno or 0, "run `statedump doctor` if a write was under way")
    return StatedumpError(reason, where=os.fsdecode(where) if isinstance(where, (str, bytes)) else None, hint=hint)


def a(noun: str) -> str:
    """`noun` with its article, for messages: "a task", "an instruction"."""
    return f"{'an' if noun[:1].lower() in 'aeiou' else 'a'} {noun}"
