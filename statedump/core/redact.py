"""Secret redaction, applied to every record before it reaches disk.

Redaction keeps the shape of what it hides (`HF_TOKEN=<redacted>`,
`--api-key <redacted>`, `https://user:<redacted>@host`) so commands stay readable
and a reader can see that something was there.
"""

from __future__ import annotations

import re
from typing import Any, TypeVar

from pydantic import BaseModel

from statedump.models.base import RELATIONS, id_problem

MARK = "<redacted>"

_SECRET_NAME = r"[A-Za-z0-9_]*(?:TOKEN|SECRET|PASSWORD|PASSWD|API_KEY|ACCESS_KEY|PRIVATE_KEY|_KEY)"  # noqa: S105 - a pattern, not a password

# Order matters: whole blocks and structured forms first, bare token shapes last.
_KEEP = r"(?!<redacted>|\$|\{\{)"  # already redacted, or a variable reference rather than a value
_VALUE = r"(\"[^\"\n]*\"|'[^'\n]*'|[^\s\"'`]+)"

# Order matters: whole blocks and structured forms first, bare token shapes last.
_PATTERNS: list[tuple[re.Pattern[str], str]] = [
    (
        re.compile(r"-----BEGIN ([A-Z0-9 ]*)PRIVATE KEY-----.*?-----END \1PRIVATE KEY-----", re.S),
        r"-----BEGIN \1PRIVATE KEY-----" + MARK + r"-----END \1PRIVATE KEY-----",
    ),
    # A key block cut off before its END line (a truncated paste) still hides the rest.
    (
        re.compile(r"-----BEGIN ([A-Z0-9 ]*)PRIVATE KEY-----(?!<redacted>)(?:(?!-----END).)+\Z", re.S),
        r"-----BEGIN \1PRIVATE KEY-----" + MARK,
    ),
    (
        re.compile(r"(?i)\b(authorization\s*[:=]\s*[\"']?)(bearer|basic|token|digest)\s+(?!<redacted>)[A-Za-z0-9._~+/=-]{6,}"),
        r"\1\2 " + MARK,
    ),
    (re.compile(r"(?i)\b(bearer)\s+(?!<redacted>)[A-Za-z0-9._~+/-]{16,}=*"), r"\1 " + MARK),
    (
        re.compile(r"(?i)\b((?:x-api-key|api-key|x-auth-token|x-goog-api-key|private-token)\s*:\s*)" + _KEEP + r"[^\s\"',}]{8,}"),
        r"\1" + MARK,
    ),
    (
        re.compile(r"(?i)(--[a-z0-9-]*(?:api[-_]key|token|password|passwd|secret)(?:=|\s+))" + _KEEP + r"(?!\d+(?:\s|$))" + _VALUE),
        r"\1" + MARK,
    ),
    (re.compile(r"(?i)(\b(?:export\s+)?" + _SECRET_NAME + r"\s*=\s*)" + _KEEP + _VALUE), r"\1" + MARK),
    (re.compile(r"(?i)(\b" + _SECRET_NAME + r"\"?\s*:\s*\"?)" + _KEEP + r"([^\s\"',}]{8,})"), r"\1" + MARK),
    (re.compile(r"(?i)(aws_secret_access_key\s*[=:]\s*)(?!<redacted>)\S+"), r"\1" + MARK),
    (re.compile(r"\b([a-z][a-z0-9+.-]*://[^\s:/@]+:)(?!<redacted>)[^\s@/]+(@)"), r"\1" + MARK + r"\2"),
    (re.compile(r"(https://hooks\.slack\.com/services/)(?!<redacted>)[A-Za-z0-9/]{20,}"), r"\1" + MARK),
    (re.compile(r"\bsk-ant-[A-Za-z0-9_-]{20,}"), MARK),
    (re.compile(r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}"), MARK),
    (re.compile(r"\b[rsp]k_(?:live|test)_[A-Za-z0-9]{16,}"), MARK),
    (re.compile(r"\bAIza[0-9A-Za-z_-]{35}"), MARK),
    (re.compile(r"\bya29\.[0-9A-Za-z_-]{20,}"), MARK),
    (re.compile(r"\bhf_[A-Za-z0-9]{30,}"), MARK),
    (re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{40,})"), MARK),
    (re.compile(r"\bglpat-[A-Za-z0-9_-]{20,}"), MARK),
    (re.compile(r"\bxox[abposre]-[A-Za-z0-9-]{10,}"), MARK),
    (re.compile(r"\bxapp-\d-[A-Za-z0-9-]{10,}"), MARK),
    (re.compile(r"\bnpm_[A-Za-z0-9]{36}\b"), MARK),
    (re.compile(r"\bpypi-[A-Za-z0-9_-]{50,}"), MARK),
    (re.compile(r"\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}"), MARK),
    (re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"), MARK),
]

# Fields that hold record ids (file names); their lists (links) too.
_ID_FIELDS = {"id", "command", *RELATIONS}

_SECRET_KEY_RE = re.compile(r"(?i)^" + _SECRET_NAME + r"$")

T = TypeVar("T", bound=BaseModel)


_CLUES = re.compile(
    r'(?:token|secret|passw(?:or)?d|_key|api-key)"?\s*[:=]'
    r"|--[a-z0-9-]*(?:api[-_]key|token|passw(?:or)?d|secret)(?:=|\s)"
    r"|-----begin|authorization|bearer|://|sk-|k_live_|k_test_|aiza|ya29\.|hf_|gh[pousr]_|github_pat_|glpat-"
    r"|xox|xapp-|npm_|pypi-|eyj|akia|asia"
)
"""What every pattern's match contains, in lowercase: a secret-named key or flag with its
`=` or `:` (`HF_TOKEN=`, `"api_key":`, `--token `: the names end in token, secret, password,
passwd or _key), or the fixed start of a token shape. A text in which this finds nothing,
once lowercased (and `_FOLD`ed), cannot match any pattern, so its redaction is skipped
(prose about "tokens" is common in an agent's transcript, and running every pattern over it
was most of an import's redaction time)."""


_FOLD = str.maketrans({"\u0130": "i", "\u0131": "i", "\u017f": "s", "\u212a": "k"})
"""The only letters outside ASCII that a case-blind pattern takes for ASCII ones (dotted and
dotless i, long s, the Kelvin sign), made those letters before the text is lowercased."""


def _may_hold_secret(text: str) -> bool:
    low = text.lower() if text.isascii() else text.translate(_FOLD).lower()
    return _CLUES.search(low) is not None


def redact_text(text: str) -> str:
    """The text with every secret replaced by `<redacted>`, its surroundings kept."""
    if not _may_hold_secret(text):
        return text
    for pattern, repl in _PATTERNS:
        text = pattern.sub(repl, text)
    return text


def _slug_safe(value: str) -> str:
    # An id or a link target is a file name: a secret in it (an id made from a title that
    # held a token) is replaced by the word, so that the id stays valid.
    cleaned = redact_text(value)
    if cleaned == value:
        return value
    return cleaned.replace(MARK, "redacted")


def _walk(value: Any, key: str | None = None) -> Any:
    if isinstance(value, str):
        if key in _ID_FIELDS and id_problem(value) is None:
            return _slug_safe(value)
        return redact_text(value)
    if isinstance(value, list):
        return [_walk(v, key if key in _ID_FIELDS else None) for v in value]
    if isinstance(value, dict):
        # An environment mapping (`HF_TOKEN: hf_...`) hides its value by the key's name.
        return {
            k: (
                MARK
                if isinstance(k, str) and _SECRET_KEY_RE.match(k) and isinstance(v, str) and v
                else _walk(v, k if k in _ID_FIELDS else None)
            )
            for k, v in value.items()
        }
    return value


def _unchanged(value: Any) -> bool:
    """True when `_walk` would give the value back as it is, found without dumping a model:
    no text that may hold a secret, and no secret-named key (a field's name too, as `_walk`
    sees the dumped model) holding text other than the mark. Lists are looked into, as
    `_walk` does; tuples, sets and other values are left alone by both."""
    if isinstance(value, str):
        return not _may_hold_secret(value)
    if isinstance(value, list):
        return all(_unchanged(v) for v in value)
    if isinstance(value, BaseModel):
        items: Any = value.__dict__.items()
    elif isinstance(value, dict):
        items = value.items()
    else:
        return True
    for key, item in items:
        if isinstance(key, str) and isinstance(item, str) and item and item != MARK and _SECRET_KEY_RE.match(key):
            return False
        if not _unchanged(item):
            return False
    return True


def redact_model(model: T) -> T:
    """The model with secrets redacted in every text field; the same object when none were found."""
    # The models have no serializers or computed fields: their fields are what a dump holds.
    if _unchanged(model):
        return model
    data = model.model_dump(mode="python", exclude_unset=False)
    cleaned = _walk(data)
    if cleaned == data:
        return model
    return type(model).model_validate(cleaned)
