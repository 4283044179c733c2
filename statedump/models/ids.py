"""What a record or session id may be, and the kind names: plain Python, no pydantic.

The models validate ids with these rules; commands that only look records up (`log`,
`why`'s path lookups) use them without importing the models, which costs start-up time.
"""

from __future__ import annotations

import re

ID_MAX = 64
_ID_RE = re.compile(r"^[a-z0-9](?:[a-z0-9._-]*[a-z0-9])?$")
# Windows device names stay reserved even with an extension, and a store may be
# cloned onto Windows, so they are refused everywhere.
_RESERVED = {"con", "prn", "aux", "nul", "clock$"} | {f"com{i}" for i in range(10)} | {f"lpt{i}" for i in range(10)}

KIND_NAMES = ("goal", "instruction", "discovery", "compat", "benchmark", "decision", "task", "command", "component", "file", "reference")
"""Every record kind, in the order the state document presents them (the keys of `models.KINDS`)."""


def id_problem(value: str) -> str | None:
    """Say what is wrong with a record or session id, or None when it is safe."""
    if not value:
        return "an id cannot be empty"
    if len(value) > ID_MAX:
        return f"an id is at most {ID_MAX} characters (this one has {len(value)})"
    if "/" in value or "\\" in value or ".." in value:
        return "an id cannot contain '/', '\\' or '..'"
    if not _ID_RE.match(value):
        return "an id uses lowercase letters, digits, '-', '_' and '.', and starts and ends with a letter or digit"
    if value.split(".")[0] in _RESERVED:
        return f"'{value}' is a reserved file name on some systems"
    return None


def slug_words(text: str, limit: int) -> str:
    """`text` as lowercase words joined by `-`, at most `limit` characters.

    A longer text is cut after the last whole word that fits, so slugs read as words, as
    adr-tools' file names do; only a first word longer than the limit is cut inside."""
    slug = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    if len(slug) > limit:
        window = slug[: limit + 1]  # one more: a word that ends right at the limit is kept whole
        cut = window.rsplit("-", 1)[0] if "-" in window else ""
        slug = cut or slug[:limit]
    return slug


def slugify(text: str, limit: int = 48, fallback: str = "record") -> str:
    """A readable, safe id from a title: `BF16 KV cache instead of FP8` -> `bf16-kv-cache-instead-of-fp8`."""
    limit = min(limit, ID_MAX)
    slug = slug_words(text, limit) or fallback
    # A slug that is not a safe id (a reserved device name such as `con`) gets a prefix.
    return slug if id_problem(slug) is None else slug_words(f"r-{slug}", limit)


def with_suffix(record_id: str, suffix: str) -> str:
    """`record_id` with `suffix` added, cut so that the whole stays within `ID_MAX`."""
    return record_id[: ID_MAX - len(suffix)].rstrip("-._") + suffix
