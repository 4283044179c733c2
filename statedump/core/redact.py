"""Secret redaction, applied to every record before it reaches disk.

Redaction keeps the shape of what it hides (`HF_TOKEN=<redacted>`,
`--api-key <redacted>`, `https://user:<redacted>@host`) so commands stay readable
and a reader can see that something was there.
"""

from __future__ import annotations

import functools
import re
from typing import Any, TypeVar

from pydantic import BaseModel

from statedump.models.base import RELATIONS, id_problem

MARK = "<redacted>"

_FOLD = str.maketrans({"\u0130": "i", "\u0131": "i", "\u017f": "s", "\u212a": "k"})
"""The only letters outside ASCII that a case-blind pattern takes for ASCII ones (dotted and
dotless i, long s, the Kelvin sign), made those letters before the text is lowercased."""

# -- names: which keys, variables and flags hold a secret --------------------------------

_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
_SECRET_WORDS = ("password", "passwd", "passphrase", "secret", "token", "credentials", "credential", "apikey")
_KEY_OWNERS = {
    "api", "access", "private", "secret", "auth", "account", "master", "signing", "encryption", "client",
    "service", "app", "license", "deploy", "ssh", "session", "sas", "shared", "storage", "subscription",
    "admin", "webhook", "consumer", "secure", "x",
}  # fmt: skip
"""`<owner>_key` names a secret (`API_KEY`, `AccountKey`, `SecretAccessKey`); any other key
is a lookup key (`CACHE_KEY`, `primary_key`, `sort_key`) and is left alone."""
_NOT_SECRET_TOKEN = {"max", "min", "num", "total", "eos", "bos", "pad", "unk", "sep", "cls", "mask", "start", "end", "stop", "special"}
"""A token name with one of these words is a count (`MAX_TOKEN`) or a tokenizer's special token
(`eos_token`), never a credential."""
_NOT_A_PASS = {"first", "second", "third", "last", "next", "single", "multi", "forward", "backward", "fast", "full", "dry", "by"}


def secret_name(name: str) -> bool:
    """True when a key, a variable or a flag of this name holds a secret (`HF_TOKEN`, `DB_PASS`,
    `MYSQL_PWD`, `SecretAccessKey`, `--api-key`), false for look-alikes that hold ordinary
    values (`MAX_TOKEN`, `eos_token`, `CACHE_KEY`, `PWD`, `BYPASS`)."""
    # Remembered for short names: every record's field names are asked about on every write.
    return _known_name(name) if len(name) <= 200 else _secret_name(name)


def _secret_name(name: str) -> bool:
    words = [w.lower() for w in _WORD.findall(name.translate(_FOLD))]
    if not words:
        return False
    last, before = words[-1], words[:-1]
    if last == "key" or last.endswith(("apikey", "accesskey", "secretkey", "privatekey", "accountkey", "authkey", "masterkey")):
        return last != "key" or (bool(before) and before[-1] in _KEY_OWNERS)
    if last in ("pass", "pwd"):
        return bool(before) and before[-1] not in _NOT_A_PASS
    if not last.endswith(_SECRET_WORDS):
        return False
    if last.endswith("token"):
        return not (_NOT_SECRET_TOKEN & {*before, last.removesuffix("token")})
    return True


_known_name = functools.lru_cache(maxsize=16_384)(_secret_name)


_NOT_SECRET_VALUE = re.compile(r"(?i)[-+]?\d+(?:\.\d+)?[kmgb]?|<[^<>\s]*>|true|false|none|null|yes|no|on|off|required|optional|\*+|x+")
_CODE_VALUE = re.compile(r"(?i)[a-z_][a-z0-9_]*(?:\.[a-z_][a-z0-9_]*)+(?:\(\)?)?")
"""Values that hold no secret: a number (`MAX_TOKEN=4096`), a special token or placeholder in
angle brackets (`<|im_end|>`, `</s>`, `<your-key>`), a word for yes/no/nothing, a mask.
`_CODE_VALUE`: a dotted name in code (`apiKey: config.api_key`, `token=os.environ.get(`), no
secret unless the name is a password's (`PASSWORD=correct.horse.battery` is one)."""


def _secret_value(value: str, least: int = 1) -> bool:
    inner = value[1:-1] if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'" else value
    if len(inner) < least or inner.startswith(("$", "{{", "%(", MARK, "-")):
        return False
    return _NOT_SECRET_VALUE.fullmatch(inner) is None


def _hide(value: str) -> str:
    quote = value[0] if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'" else ""
    return quote + MARK + quote


_NAME_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-")


def _assignment(m: re.Match[str]) -> str:
    """`NAME=value`, `name: value`, `"name": "value"`: the match starts at the secret word that
    ends the name (matching from the word, not from every letter, is what keeps this fast);
    the rest of the name is read backwards from there."""
    text, begin = m.string, m.start()
    while begin > 0 and text[begin - 1] in _NAME_CHARS:
        begin -= 1
    name = text[begin : m.end(1)]
    sep, value = m.group(2), m.group(3)
    rest = ""
    colon = ":" in sep
    if colon and value[0] not in "\"'":
        cut = min((i for i in (value.find(","), value.find("}")) if i >= 0), default=len(value))
        value, rest = value[:cut], value[cut:]
    if (begin and text[begin - 1] == "$") or not value or not secret_name(name.lstrip("-._")):
        return m.group(0)
    if not _secret_value(value, 4 if colon else 1):
        return m.group(0)
    low = name.translate(_FOLD).lower()
    if "pass" not in low and "pwd" not in low and _CODE_VALUE.fullmatch(value):
        return m.group(0)
    if colon and name.isalpha() and value.isalpha() and "pass" not in low:
        return m.group(0)  # prose ("the secret: batching"), not a `token: value` pair
    return m.group(1) + sep + _hide(value) + rest


def _flag(m: re.Match[str]) -> str:
    flag, value = m.group(1), m.group(2)
    if not secret_name(flag.strip("-= \t")) or not _secret_value(value):
        return m.group(0)
    return flag + _hide(value)


_WORDS = r"token|secret|pass(?:w(?:or)?d|phrase)?|pwd|key|credentials?"
_QUOTED = r"\"[^\"\n]*\"|'[^'\n]*'"

_BLOCK = r"-----BEGIN ((?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?)-----"

# Order matters: whole blocks and structured forms first, bare token shapes last.
_PATTERNS: list[tuple[re.Pattern[str], Any]] = [
    (re.compile(_BLOCK + r"(?!<redacted>).*?-----END \1-----", re.S), r"-----BEGIN \1-----" + MARK + r"-----END \1-----"),
    # A key block cut off before the end of its END line (a truncated paste) hides all the rest.
    (re.compile(_BLOCK + r"(?!<redacted>)(?:(?!-----END \1-----).)+\Z", re.S), r"-----BEGIN \1-----" + MARK),
    (
        re.compile(r"(?i)\b(authorization\s*[:=]\s*[\"']?)(bearer|basic|token|digest)\s+(?!<redacted>)[A-Za-z0-9._~+/=-]{6,}"),
        r"\1\2 " + MARK,
    ),
    (re.compile(r"(?i)\b(bearer)\s+(?!<redacted>)[A-Za-z0-9._~+/-]{16,}=*"), r"\1 " + MARK),
    (
        re.compile(r"(?i)\b((?:x-api-key|api-key|x-auth-token|x-goog-api-key|private-token)\s*:\s*)(?!<redacted>|\$)[^\s\"',}]{8,}"),
        r"\1" + MARK,
    ),
    # A flag that takes a secret: `--api-key X`, `--db-password=X`.
    (
        re.compile(
            r"(?i)(--[a-z0-9-]*(?:key|token|pass(?:w(?:or)?d|phrase)?|pwd|secret|credentials?)(?:=|[ \t]+))(" + _QUOTED + r"|[^\s\"'`]+)"
        ),
        _flag,
    ),
    # `NAME=value` (shell, .env, connection strings: `AccountKey=...;`), any length, and
    # `name: value` / `"name": "value"` (YAML, JSON, headers), four characters or more.
    (re.compile(r"(?i)(" + _WORDS + r")(\"?\s*[=:]\s*)(" + _QUOTED + r"|[^\s\"'`;]+)"), _assignment),
    # URL credentials, any scheme and case, the user name possibly empty (`redis://:pw@host`);
    # the password may hold `/`, but a port (`host:8080/...@`) is no password.
    (re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://[^\s:/@]*:)(?!<redacted>|\$|\d+(?:/|@|$))([^\s@]+)(@)"), r"\1" + MARK + r"\3"),
    # `curl -u user:password`, `mysql -pPASSWORD`: a password given to a client's own flag.
    (re.compile(r"(\bcurl\b[^\n]*?\s(?:-u|--user)(?:[ \t]+|=)?['\"]?[^\s:'\"]*:)(?!<redacted>|\$)[^\s'\"]+"), r"\1" + MARK),
    (re.compile(r"(\bmysql(?:dump|admin|sh|import)?\b[^\n]*?[ \t]-p)(?!<redacted>|\$)[^\s'\"]+"), r"\1" + MARK),
    (re.compile(r"(https://hooks\.slack\.com/services/)(?!<redacted>)[A-Za-z0-9/]{20,}"), r"\1" + MARK),
    (re.compile(r"\bsk-ant-[A-Za-z0-9_-]{20,}"), MARK),
    (re.compile(r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}"), MARK),
    (re.compile(r"\b[rsp]k_(?:live|test)_[A-Za-z0-9]{16,}"), MARK),
    (re.compile(r"\bAIza[0-9A-Za-z_-]{35}"), MARK),
    (re.compile(r"\bya29\.[0-9A-Za-z_-]{20,}"), MARK),
    (re.compile(r"\bhf_[A-Za-z0-9]{30,}"), MARK),
    (re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{40,})"), MARK),
    (re.compile(r"\bglpat-[A-Za-z0-9_-]{20,}"), MARK),
    (re.compile(r"\bnvapi-[A-Za-z0-9_-]{20,}"), MARK),
    (re.compile(r"\bxox[abposre]-[A-Za-z0-9-]{10,}"), MARK),
    (re.compile(r"\bxapp-\d-[A-Za-z0-9-]{10,}"), MARK),
    (re.compile(r"\bnpm_[A-Za-z0-9]{36}\b"), MARK),
    (re.compile(r"\bpypi-[A-Za-z0-9_-]{50,}"), MARK),
    (re.compile(r"\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}"), MARK),
    (re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"), MARK),
]

# Fields that hold record ids (file names); their lists (links) too.
_ID_FIELDS = {"id", "command", *RELATIONS}

T = TypeVar("T", bound=BaseModel)


_CLUE_WORDS = ("token", "secret", "pass", "pwd", "key", "credential")
_NAMED_CLUES = (
    re.compile(r'(?:token|secret|pass|pwd|key|credential)[a-z]*"?\s*[:=]'),
    re.compile(r"--[a-z0-9-]*(?:key|token|pass|pwd|secret|credential)[a-z]*(?:=|\s)"),
)
_FIXED_CLUES = (
    "-----begin", "authorization", "bearer", "://", "curl", "mysql", "sk-", "k_live_", "k_test_", "aiza", "ya29.", "hf_",
    "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "glpat-", "nvapi-", "xox", "xapp-", "npm_", "pypi-", "eyj", "akia", "asia",
)  # fmt: skip
"""What every pattern's match contains, in lowercase: a name with a secret's word and its
`=` or `:` (`HF_TOKEN=`, `"api_key":`, `--token `, `_NAMED_CLUES`, each holding one of
`_CLUE_WORDS`), or the fixed start of a token shape or client (`sk-`, `curl`). A text in which
none is found, once lowercased (and `_FOLD`ed), cannot match any pattern, so its redaction is
skipped (prose about "tokens" is common in an agent's transcript, and running every pattern
over it was most of an import's redaction time). The fixed starts are looked for with `in`
and the named forms only in a text that holds one of their words: one alternation of them all
scanned 5 MB/s, a third of an import's redaction time."""
_CACHED_CLUES = 256
"""Texts up to this long have their answer remembered: field names and mapping keys, titles
and short values are asked about again for every record and every checkpoint that holds them
(at most a few MB kept in a long-running process; remembering longer texts saved nothing)."""


def _may_hold_secret(text: str) -> bool:
    return _short_may_hold(text) if len(text) <= _CACHED_CLUES else _clue_in(text)


def _clue_in(text: str) -> bool:
    low = text.lower() if text.isascii() else text.translate(_FOLD).lower()
    for fixed in _FIXED_CLUES:
        if fixed in low:
            return True
    return any(word in low for word in _CLUE_WORDS) and any(named.search(low) is not None for named in _NAMED_CLUES)


_short_may_hold = functools.lru_cache(maxsize=16_384)(_clue_in)


def findings(text: str) -> list[str]:
    """The spans of `text` that redaction would hide: what the tests' scans look for."""
    if not _may_hold_secret(text):
        return []
    found = []
    for pattern, repl in _PATTERNS:
        for m in pattern.finditer(text):
            if (repl(m) if callable(repl) else m.expand(repl)) != m.group(0):
                found.append(m.group(0))
    return found


def slug_text(text: str) -> str:
    """`text` made safe to derive an id (a file name, a commit subject) from: each secret is
    the word `redacted`. Ids are made from this, never from the raw title: once slugged,
    `AKIA...` is lowercase and no pattern would know it again."""
    return redact_text(text).replace(MARK, " redacted ")


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


def _hidden_by_name(key: Any, value: Any) -> bool:
    # An environment mapping (`HF_TOKEN: hf_...`) hides its value by the key's name.
    return isinstance(key, str) and isinstance(value, str) and secret_name(key) and _secret_value(value)


def _key(key: Any, taken: dict[Any, Any]) -> Any:
    # A mapping key is text that reaches the file too (`versions`, `env`, a result's metrics);
    # two keys that redact alike stay two entries.
    if not isinstance(key, str):
        return key
    cleaned = redact_text(key)
    if cleaned != key:
        base, n = cleaned, 2
        while cleaned in taken:
            cleaned, n = f"{base}-{n}", n + 1
    return cleaned


def _walk(value: Any, key: str | None = None) -> Any:
    if isinstance(value, str):
        if key in _ID_FIELDS and id_problem(value) is None:
            return _slug_safe(value)
        return redact_text(value)
    if isinstance(value, list):
        return [_walk(v, key if key in _ID_FIELDS else None) for v in value]
    if isinstance(value, dict):
        out: dict[Any, Any] = {}
        for k, v in value.items():
            out[_key(k, out)] = MARK if _hidden_by_name(k, v) else _walk(v, k if k in _ID_FIELDS else None)
        return out
    return value


def _unchanged(value: Any) -> bool:
    """True when `_walk` would give the value back as it is, found without dumping a model:
    no text (a mapping's keys included) that may hold a secret, and no secret-named key (a
    field's name too, as `_walk` sees the dumped model) holding a value that is a secret. Lists are looked into, as
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
        if isinstance(key, str) and (_may_hold_secret(key) or _hidden_by_name(key, item)):
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
