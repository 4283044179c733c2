"""The one domain error. Faces turn it into one line for the user and an exit status."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pydantic import ValidationError


class StatedumpError(Exception):
    """Something the user can fix: bad input, a missing store, an unknown record.

    `where` names the file (or argument) at fault, `hint` says what to do. `status`
    is the process exit status the CLI uses: 2 for bad input, 1 for findings.
    """

    def __init__(self, message: str, *, where: str | Path | None = None, hint: str | None = None, status: int = 2):
        super().__init__(message)
        self.message = message
        self.where = str(where) if where is not None else None
        self.hint = hint
        self.status = status

    def __str__(self) -> str:
        text = f"{self.where}: {self.message}" if self.where else self.message
        if self.hint:
            text += f" ({self.hint})"
        return text


def from_validation(err: ValidationError, where: str | Path | None, hint: str | None = None) -> StatedumpError:
    """One readable line from pydantic's error list: each field at fault and why."""
    parts = []
    for e in err.errors():
        loc = ".".join(str(p) for p in e["loc"]) or "(record)"
        msg = e["msg"]
        if e["type"] == "extra_forbidden":
            msg = "unknown field"
        elif e["type"] == "literal_error":
            msg = f"must be one of {e['ctx']['expected']}"
        parts.append(f"field '{loc}': {msg}")
    return StatedumpError(
        "; ".join(parts), where=where, hint=hint or "fix the field and try again; `statedump schema` shows each kind's fields"
    )
