"""The size limit of one file, kept before anything is written.

A file over `codec.MAX_FILE_BYTES` can never be read back (the reader refuses it, and with it
every command that loads its session), so a record or a session that would be larger is cut
here, at write time: its longest texts are shortened, each to the same length, until the file
fits, and each cut text ends with a note that says how much was left out. A pasted log or a
huge tool output keeps its beginning, and the session stays readable by every command.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import BaseModel

from statedump.core.codec import MAX_FILE_BYTES
from statedump.core.errors import BadInput

if TYPE_CHECKING:
    from statedump.models import RecordBase, Session

M = TypeVar("M", bound=BaseModel)
R = TypeVar("R", bound="RecordBase")
S = TypeVar("S", bound="Session")

_KEEP = frozenset({"id", "kind", "title", "status", "at", "links", "command"})
"""Fields never cut: what names and places the record (and the title is short already)."""
_SHORTEST_CUT = 256
"""No text is cut below this many characters: ids and link targets (64 at most) stay whole."""
_EXPANSION = 10
"""The most bytes YAML writes for one character (`\\U000E0001`; two spaces of indent for an
empty line of a block): text under a tenth of the limit can never reach it."""


def note(dropped: int, total: int) -> str:
    """What a cut text ends with."""
    return f"\n\n[cut by statedump: {dropped} of its {total} bytes left out, to keep the record under {MAX_FILE_BYTES} bytes]"


def _size_bound(value: Any) -> int:
    """An upper bound of the bytes the value's YAML can take, found without writing it."""
    if isinstance(value, str):
        return _EXPANSION * len(value) + 16
    if isinstance(value, BaseModel):
        return 64 + sum(len(k) + 8 + _size_bound(v) for k, v in value.__dict__.items())
    if isinstance(value, dict):
        return 8 + sum(_size_bound(k) + 8 + _size_bound(v) for k, v in value.items())
    if isinstance(value, list | tuple):
        return 8 + sum(8 + _size_bound(v) for v in value)
    return 64


def _longest(value: Any) -> int:
    if isinstance(value, str):
        return len(value)
    if isinstance(value, dict):
        return max((_longest(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return max((_longest(v) for v in value), default=0)
    return 0


def _cap(value: Any, limit: int) -> Any:
    """Every text in `value` longer than `limit` characters cut to `limit`, with the note."""
    if isinstance(value, str):
        if len(value) <= limit:
            return value
        total = len(value.encode("utf-8", "surrogatepass"))
        kept = value[:limit]
        return kept + note(total - len(kept.encode("utf-8", "surrogatepass")), total)
    if isinstance(value, dict):
        return {k: _cap(v, limit) for k, v in value.items()}
    if isinstance(value, list):
        return [_cap(v, limit) for v in value]
    return value


def fit_record(record: R) -> R:
    """The record as it can be written: itself when its file fits, else cut (see `fit`)."""
    from statedump.core import codec

    return fit(record, codec.dump_record, f"{record.kind}/{record.id}")


def fit_session(session: S) -> S:
    """`fit_record` for a session's own file."""
    from statedump.core import codec

    return fit(session, codec.dump_session, f"session {session.id}")


def fit(model: M, dump: Callable[[M], str], where: str) -> M:
    """`model` itself when its file is within the limit, else a copy with its texts cut.

    The cut length is the largest that fits, found by halving (a few writes of the YAML,
    only for a model that can be too large at all: most are known to fit from their text
    lengths alone). A model whose file is too large even with every text cut short
    (thousands of tags) is refused: one line, nothing written."""
    if _size_bound(model) <= MAX_FILE_BYTES or len(dump(model).encode()) <= MAX_FILE_BYTES:
        return model
    raw = model.model_dump(mode="python")
    fixed = {k: v for k, v in raw.items() if k in _KEEP}
    free = {k: v for k, v in raw.items() if k not in _KEEP}

    def build(limit: int) -> tuple[M, bytes]:
        cut = type(model).model_validate({**fixed, **_cap(free, limit)})
        return cut, dump(cut).encode()

    low, high = _SHORTEST_CUT, _longest(free)
    best = build(low)
    if len(best[1]) > MAX_FILE_BYTES:
        raise BadInput(
            f"it would be {len(best[1])} bytes even with every text cut to {low} characters,"
            f" over the {MAX_FILE_BYTES}-byte limit of one file",
            where=where,
            hint="split it into several records, or keep the data in a file and add a `file` record that names it",
        )
    while high - low > max(64, high // 64):
        mid = (low + high) // 2
        tried = build(mid)
        if len(tried[1]) <= MAX_FILE_BYTES:
            low, best = mid, tried
        else:
            high = mid
    return best[0]
