"""A cache of validated records, so reading a big session neither re-parses nor re-validates every file.

Parsing a record file (even with PyYAML's C loader) and validating it are most of what
`statedump render` spends on a big session (docs/performance.md has the figures). The cache keeps each file's validated record, keyed the way git's
index keys its entries (size, mtime, ctime, inode), in one pickle inside `.git/`. The
files stay the truth:

- a file whose stat does not match its entry is parsed and validated again;
- a file changed within the last `RACY_NS` is never cached (two writes in one clock
  tick can leave the same stat behind), so it is parsed until it has settled;
- the cache names the models it was made with (a digest of their source and of
  pydantic's version); a cache made by other models is ignored, so a record is never
  served in a shape the running code did not validate;
- an unreadable, foreign or stale cache file is ignored and rewritten.

Why pickle: a record comes back as the same model object, with no parsing and no
validation, an order of magnitude faster than reading the file. Pickle can name any callable, so the file is read
only when the current user owns it (as git refuses a repository owned by someone else), and
with an unpickler that can build nothing but the record models and the date and time values
in them: a planted file is ignored, never run. Unpickled records skip validation, so a
cache is also sealed with a keyed digest whose key lives in the user's own cache folder
(`~/.cache/statedump/cache.key`), never in a repository: a planted cache, even one naming
the right models, is not sealed and is ignored; only a regular file is opened. It is never read from the working tree, a
clone or a fetch.
Nothing here is needed for correctness: deleting the cache only costs time.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import io
import os
import pickle
import time
from functools import cache
from pathlib import Path
from typing import Any, cast

from statedump.core.errors import StatedumpError
from statedump.core.layout import session_file
from statedump.core.store.parallel import read_many
from statedump.core.store.reader import parse_record, read_bytes, scan_records
from statedump.core.store.untrusted import open_regular, read_regular
from statedump.models import KINDS, RecordBase, Session

VERSION = 3
SEAL = 32
"""Bytes of the keyed digest that opens a cache file (see `_secret`)."""
RACY_NS = 2_000_000_000
"""Files changed this recently (ns) are parsed, not cached: file times are coarser than writes."""

_Key = tuple[int, int, int, int]
_Entries = dict[str, tuple[_Key, RecordBase | Session]]


def cache_path(root: Path, session: str) -> Path | None:
    """Where the cache of `session` lives: inside the repository's `.git` folder (None when `.git` is not a folder)."""
    git_dir = root / ".git"
    return git_dir / "statedump" / f"records-{session}.pickle" if git_dir.is_dir() else None


def _key(st: os.stat_result) -> _Key:
    return (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)


@cache
def models_digest() -> str:
    """A digest of the model code: a cache made by other models is not used."""
    import importlib.util

    import statedump.models

    # The parser (our codec, PyYAML's version) is part of what made a record too. Both are
    # found without importing them: a command served from the cache never needs PyYAML.
    package = Path(statedump.models.__file__).parent.parent
    yaml_spec = importlib.util.find_spec("yaml")
    salt = Path(yaml_spec.origin).read_text(encoding="utf-8") if yaml_spec and yaml_spec.origin else ""
    return source_digest(package / "models", package / "core" / "codec.py", salt=salt)


def source_digest(folder: Path, *more: Path, salt: str = "") -> str:
    """A digest of the Python files in `folder` and of `more`, this cache's version, pydantic's version and `salt`."""
    import pydantic

    digest = hashlib.sha256(f"{VERSION} {pydantic.VERSION} {salt}".encode())
    for path in [*sorted(folder.glob("*.py")), *more]:
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


_ALLOWED = {"datetime": {"datetime", "date", "timezone", "timedelta"}}
"""What a cache may name besides the model classes: the values PyYAML gives for `at`."""


class _Unpickler(pickle.Unpickler):
    """Unpickling that can build only records and their parts: a cache file that names anything
    else (a planted one that would run code) is refused, as the pickle documentation advises."""

    def find_class(self, module: str, name: str) -> Any:
        from statedump.models import base, kinds, session

        models = {m.__name__: m for m in (base, kinds, session)}
        if module in models:
            found = getattr(models[module], name, None)
            if isinstance(found, type) and issubclass(found, base.Model):
                return found
        if name in _ALLOWED.get(module, set()):
            return super().find_class(module, name)
        raise pickle.UnpicklingError(f"{module}.{name} is not part of a record")


def _secret() -> bytes | None:
    """This user's key for the caches' seals, kept outside every repository (made on first use);
    None when there is nowhere to keep one (then nothing is cached)."""
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "statedump"
    path = base / "cache.key"
    data = read_regular(path, limit=64)
    if data is not None and len(data) == 32:
        return data
    with contextlib.suppress(OSError):
        base.mkdir(parents=True, exist_ok=True)
        key = os.urandom(32)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
        with os.fdopen(fd, "wb") as fh:
            fh.write(key)
        return key
    data = read_regular(path, limit=64)  # another process made it first
    return data if data is not None and len(data) == 32 else None


def _seal(key: bytes, body: bytes) -> bytes:
    return hashlib.blake2b(body, key=key, digest_size=SEAL).digest()


_RESIDENT: dict[Path, tuple[tuple[int, int, int, int], _Entries]] = {}
"""The entries this process last read from or wrote to each cache file, by that file's stat: a
resident process (the MCP server, the TUI) reads a session for every call, and a file whose
size, times and inode are unchanged holds what it held, so it is not unpickled again."""


def _file_key(st: os.stat_result) -> tuple[int, int, int, int]:
    return (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)


def _read(path: Path | None) -> _Entries:
    if path is None:
        return {}
    key = _secret()
    fd = open_regular(path)  # a FIFO planted here would otherwise hang every read
    if fd is None or key is None:
        if fd is not None:
            os.close(fd)
        return {}
    try:
        with os.fdopen(fd, "rb") as fh:
            # Only a cache this user wrote is read (git, too, refuses repositories owned by
            # someone else), and only record classes can be built from it.
            st = os.fstat(fh.fileno())
            if st.st_uid != os.geteuid():
                return {}
            seen = _RESIDENT.get(path)
            if seen is not None and seen[0] == _file_key(st):
                return seen[1]
            data = fh.read()
        # Unpickled records were never validated: only a cache sealed with this user's key
        # (which no clone, tarball or other program has) is taken as statedump's own.
        if len(data) <= SEAL or not hmac.compare_digest(data[:SEAL], _seal(key, memoryview(data)[SEAL:].tobytes())):
            return {}
        loaded = _Unpickler(io.BytesIO(memoryview(data)[SEAL:])).load()
    except Exception:  # any damage to a cache only means it is rebuilt
        return {}
    if not isinstance(loaded, dict) or loaded.get("models") != models_digest() or not isinstance(loaded.get("entries"), dict):
        return {}
    entries: _Entries = loaded["entries"]
    _RESIDENT[path] = (_file_key(st), entries)
    return entries


def _write(path: Path, entries: _Entries) -> None:
    # Any complete file is a valid cache, so a rename is all the locking needed; a
    # store that cannot be written (read-only clone) simply goes without.
    key = _secret()
    if key is None:
        return
    with contextlib.suppress(OSError):
        path.parent.mkdir(exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        body = pickle.dumps({"models": models_digest(), "entries": entries}, protocol=pickle.HIGHEST_PROTOCOL)
        try:
            with open(tmp, "wb") as fh:
                fh.write(_seal(key, body))
                fh.write(body)
            os.replace(tmp, path)
            _RESIDENT[path] = (_file_key(os.stat(path)), entries)
        finally:
            with contextlib.suppress(OSError):
                os.unlink(tmp)


_RECENT: dict[str, tuple[bytes, RecordBase]] = {}
"""Records of files too recent for the cache (see RACY_NS), with the bytes each was parsed from.
A resident process reads the session on every call, and the files it wrote a moment ago are
all too recent: their bytes are compared (a read, no parse) instead of parsed again, then and
after they settle. Bytes, not stat, so this holds where the stat-keyed cache could not trust
a file."""


def _recent(rel: str, path: str) -> RecordBase:
    data = read_bytes(path)
    seen = _RECENT.get(path)
    if seen is None or seen[0] != data:
        if len(_RECENT) > 4096:  # a bound, not a policy: dropping entries only costs parses
            _RECENT.clear()
        seen = (data, parse_record(data, rel))
        _RECENT[path] = seen
    return seen[1]


def load_state(root: Path, session: str) -> tuple[Session, list[RecordBase]]:
    """A session's metadata and every record in the working tree, each taken from the cache
    when its file is unchanged, else read by the one parse step (`reader.parse_record`).

    Raises the same StatedumpError as reading without the cache would, for the first bad file.
    """
    path = cache_path(root, session)
    old = _read(path)
    new: _Entries = {}
    settled = time.time_ns() - RACY_NS
    changed = False

    def cached(rel: str, st: os.stat_result, expected: type) -> Any:
        hit = old.get(rel)
        if hit is not None and hit[0] == _key(st) and type(hit[1]) is expected:
            new[rel] = hit
            return hit[1]
        return None

    def keep(rel: str, st: os.stat_result, value: RecordBase | Session) -> None:
        nonlocal changed
        if max(st.st_mtime_ns, st.st_ctime_ns) < settled:
            new[rel] = (_key(st), value)
            changed = True

    rel = session_file(session)
    st = os.stat(root / rel)
    meta: Session | None = cached(rel, st, Session)
    if meta is None:
        from statedump.core import codec  # PyYAML only when a file has to be parsed

        meta = codec.load_session(read_bytes(root / rel), rel)
        keep(rel, st, meta)

    found: list[RecordBase | None] = []
    misses: list[tuple[int, str, str, os.stat_result]] = []
    recent: list[tuple[int, StatedumpError]] = []
    for rel, entry in scan_records(root, session):
        st = entry.stat()
        found.append(cached(rel, st, KINDS[rel.rsplit("/", 2)[1]]))
        if found[-1] is not None:
            continue
        if entry.path not in _RECENT and max(st.st_mtime_ns, st.st_ctime_ns) < settled:
            misses.append((len(found) - 1, rel, entry.path, st))
            continue
        # Too recent to cache, or parsed here while it was: compared by its bytes. A file that
        # settled since is not written into the cache file by this process (a rewrite of the
        # whole cache per add); the next process that parses it does.
        try:
            found[-1] = _recent(rel, entry.path)
        except StatedumpError as err:
            recent.append((len(found) - 1, err))
    try:
        parsed = read_many([(rel, p) for _, rel, p, _ in misses])
    except StatedumpError as err:
        # The first bad file in the session's order fails the read, whichever pass found it.
        at = next((i for i, rel, _, _ in misses if rel == err.where), len(found))
        raise min([(at, err), *recent], key=lambda pair: pair[0])[1] from None
    if recent:
        raise recent[0][1]
    for (index, rel, _, st), record in zip(misses, parsed, strict=True):
        found[index] = record
        keep(rel, st, record)
    records = cast("list[RecordBase]", found)
    if path is not None and (changed or new.keys() != old.keys()):
        _write(path, new)
    return meta, records
