"""Writing a record in $EDITOR without ever losing what was typed.

When the text does not make a valid record, the editor opens again with the error at the
top; without a terminal to open it in (a script, an agent), or when the record changed
meanwhile, the text is saved as a draft file whose path the error line names.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import click

from statedump.core.errors import BadInput, StatedumpError

T = TypeVar("T")
_MARK = "#! "  # the error lines put above the text; removed before the text is read


def require_editor(what: str) -> None:
    # An agent or a script has no one at the keyboard: opening vim there would hang or
    # spray escape codes, so without a terminal (and no $EDITOR set) say what to pass instead.
    if not (sys.stdin.isatty() or os.environ.get("VISUAL") or os.environ.get("EDITOR")):
        raise BadInput(
            f"nothing to {what} and no terminal to open an editor in",
            where="arguments",
            hint="pass fields as flags (--title, --field key=value) or the whole record with --from FILE",
        )


def drafts_dir() -> Path:
    """Where unsaved edits are kept: $XDG_STATE_HOME/statedump/drafts (~/.local/state/...)."""
    state = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(state) / "statedump" / "drafts"


def save_draft(text: str, name: str) -> Path:
    """Keep `text` in a new private file under `drafts_dir()`; returns its path."""
    from statedump.core.redact import redact_text

    folder = drafts_dir()
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    path = folder / f"{name}-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}.yaml"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(redact_text(text))  # a draft is on disk like any record: never a secret
    return path


def _without_marks(text: str) -> str:
    lines = text.splitlines(keepends=True)
    while lines and lines[0].startswith(_MARK.rstrip()):
        lines.pop(0)
    return "".join(lines)


def _is_empty(text: str) -> bool:
    return all(not line.strip() or line.lstrip().startswith("#") for line in text.splitlines())


def _with_error(text: str, err: StatedumpError) -> str:
    head = [
        f"{_MARK}statedump could not save this:",
        *(f"{_MARK}  {line}" for line in str(err).splitlines()),
        f"{_MARK}Fix it, save and quit to try again; empty the file to cancel.",
    ]
    return "\n".join(head) + "\n" + text


def edit_until_valid(text: str, accept: Callable[[bytes], T], *, draft: str, retry: str) -> T | None:
    """Open $EDITOR on `text` and pass what is saved to `accept` until it takes it.

    None when the user cancels (an empty or unchanged file). A refused text reopens with the
    error on top while there is a terminal; otherwise it is saved as a draft and the error
    (exit 2, or 1 for a conflict) names the draft and `retry` (the command that takes it back
    with `--from`)."""
    current, first = text, True
    while True:
        edited = click.edit(current, extension=".yaml", require_save=True)
        if edited is None:
            if first:
                return None
            edited = current  # quit without saving after an error: the text is kept below
        body = _without_marks(edited)
        if _is_empty(body) or (first and body == text):
            return None
        first = False
        try:
            return accept(body.encode())
        except StatedumpError as err:
            if err.status == 2 and sys.stdin.isatty() and edited is not current:
                current = _with_error(body, err)
                continue
            path = save_draft(body, draft)
            kept = f"your text is saved in {path}: fix it there and run `{retry} --from {path}`"
            raise type(err)(err.message, where=err.where, hint=kept) from None
