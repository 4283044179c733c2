"""The store: a git work tree of small YAML files, one record per file.

    <store>/sessions/<session>/session.yaml
    <store>/sessions/<session>/<kind>/<record-id>.yaml

Every write is validated first, redacted, written atomically under a lock, and
committed alone with trailers; when anything fails the files and HEAD go back to
what they were.
"""

from __future__ import annotations

import contextlib
import os
import stat
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from statedump.core.clock import fixed
from statedump.core.errors import GitFailed, NotFound, StatedumpError, a
from statedump.core.git.errors import CommandFailed
from statedump.core.git.gateway import Git, find_worktree
from statedump.core.layout import SESSION_FILE, SESSIONS, RecordRef, check_id, record_path, session_path
from statedump.core.render.candidates import did_you_mean
from statedump.core.store.files import write_atomic
from statedump.core.store.journal import write_journal
from statedump.core.store.lock import store_lock
from statedump.core.store.reader import confine_session, confined, parse_record, read_bytes, scan_records
from statedump.models.ids import KIND_NAMES as KINDS
from statedump.models.ids import with_suffix

if TYPE_CHECKING:
    from statedump.models import RecordBase, Session
    from statedump.models.state import SessionState

# The codec (PyYAML), the models (pydantic) and redaction are imported where they are
# used: commands that only look at paths and history (`log`) never need them, and they
# are most of a short command's start-up time.

JOURNAL = "statedump-journal.json"
ENV_STORE = "STATEDUMP_STORE"


def commit_message(action: str, record: RecordBase | None, session: str, source: str | None, subject: str | None = None) -> str:
    """A readable subject and the trailers that history commands query."""
    lines = []
    if record is not None:
        lines.append(subject or f"{record.kind}: {action} {record.id}")
        lines += ["", record.title, ""]
        trailers = {"Statedump-Session": session, "Statedump-Record": f"{record.kind}/{record.id}", "Statedump-Action": action}
    else:
        lines += [subject or f"session: {action} {session}", ""]
        trailers = {"Statedump-Session": session, "Statedump-Action": action}
    if source:
        trailers["Statedump-Source"] = " ".join(source.split())
    lines += [f"{k}: {v}" for k, v in trailers.items()]
    return "\n".join(lines) + "\n"


def _drop_empty_folders(folder: Path, top: Path) -> None:
    """Remove `folder` and its parents up to (not including) `top` while they are empty."""
    while folder != top and top in folder.parents:
        try:
            folder.rmdir()
        except OSError:
            return
        folder = folder.parent


class Store:
    """One store: where it is, which sessions it has, and every read and write."""

    def __init__(self, root: Path):
        self.root = root
        self.git = Git(root)
        # The lock is re-entrant within one Store: a service reads a record, changes it and
        # writes it back inside one `with store.lock():`, and the write's own locking must
        # not wait for itself (flock on a second descriptor would). Threads of one process
        # (the MCP server's workers) take turns on `_guard` before the file lock.
        self._guard = threading.RLock()
        self._depth = 0
        self._durable: bool | None = None
        self._sessions_checked: dict[str, tuple[int, ...]] = {}

    # -- finding ------------------------------------------------------------
    @classmethod
    def find(cls, store: str | Path | None = None, cwd: Path | None = None) -> Store:
        """`--store`, else `$STATEDUMP_STORE`, else the git work tree around `cwd` that has `sessions/`."""
        chosen = store or os.environ.get(ENV_STORE)
        if chosen:
            root = Path(chosen).expanduser().resolve()
            if not root.is_dir():
                what = "is a file, not a store" if root.exists() else "no such folder"
                raise NotFound(what, where=root, hint="pass the store's folder with --store, or run `statedump init` to make one")
            if not (root / SESSIONS).is_dir():
                raise StatedumpError("not a statedump store (no sessions/ folder)", where=root, hint="run `statedump init` there")
            return cls(root)
        here = (cwd or Path.cwd()).resolve()
        top = find_worktree(here)
        if top is None or not (top / SESSIONS).is_dir():
            raise StatedumpError(
                "no statedump store here",
                where=here,
                hint="run `statedump init`, pass --store PATH, or set STATEDUMP_STORE",
            )
        return cls(top)

    @classmethod
    def init(cls, path: Path, when: datetime | None = None) -> Store:
        """Create a store at `path` (a new or existing git work tree); refuses an existing store."""
        path = path.resolve()
        if (path / SESSIONS).is_dir():
            raise StatedumpError("already a statedump store", where=path)
        path.mkdir(parents=True, exist_ok=True)
        from statedump.core.schema import write_schemas

        git = Git.init(path)
        written = write_schemas(path / "schemas")
        keep = path / SESSIONS / ".gitkeep"
        write_atomic(keep, b"")
        paths = [str(p.relative_to(path)) for p in [*written, keep]]
        git.commit(paths, "statedump: init store\n\nStatedump-Action: init\n", when or fixed())
        return cls(path)

    # -- paths --------------------------------------------------------------
    def session_dir(self, session: str) -> Path:
        return self.root / session_path(session)

    def record_path(self, session: str, kind: str, record_id: str) -> Path:
        return self.root / record_path(session, kind, record_id)

    def rel(self, path: Path) -> str:
        return str(path.relative_to(self.root))

    # -- reading ------------------------------------------------------------
    def session_ids(self, rev: str | None = None) -> list[str]:
        """Every session in the store, as of `rev` or in the working tree."""
        if rev is not None:
            return self.git.list_dirs(rev, SESSIONS)
        base = self.root / SESSIONS
        return sorted(p.name for p in base.iterdir() if (p / SESSION_FILE).is_file())

    def pick_session(self, session: str | None, rev: str | None = None) -> str:
        """`-s ID`, else the only session, else the most recently started active one."""
        ids = self.session_ids(rev)
        if session is not None:
            check_id(session, "session")
            if session not in ids:
                near = did_you_mean(session, ids)
                raise NotFound(
                    f"no session {session!r}",
                    where="-s",
                    hint=f"{near} `statedump sessions` lists them" if near else "`statedump sessions` lists them",
                )
            return session
        if not ids:
            raise StatedumpError("the store has no sessions", where=self.root, hint="run `statedump session new ID --title ...`")
        if len(ids) == 1:
            return ids[0]
        sessions = [self.load_session(i) for i in ids]
        active = [s for s in sessions if s.status == "active"] or sessions
        return max(active, key=lambda s: (s.started.timestamp() if s.started else 0.0, s.id)).id

    def load_session(self, session: str, rev: str | None = None) -> Session:
        from statedump.core import codec

        path = self.session_dir(session) / SESSION_FILE
        if rev is None:
            confine_session(self.root, session)
            return codec.load_session(path.read_bytes(), self.rel(path))
        data = dict(self.git.tree_files(rev, self.rel(path)))
        if not data:
            raise NotFound(f"no session {session!r} at {rev}", where="--at")
        return codec.load_session(next(iter(data.values())), f"{self.rel(path)}@{rev}")

    def record_files(self, session: str, rev: str | None = None) -> list[tuple[str, bytes]]:
        """(repository path, bytes) of every record file of a session."""
        if rev is not None:
            # Only files in kind folders are records, as in the working tree.
            return [(p, b) for p, b in self.git.tree_files(rev, session_path(session)) if RecordRef.parse(p)]
        return [(rel, read_bytes(entry.path)) for rel, entry in scan_records(self.root, session)]

    def parse_files(self, files: list[tuple[str, bytes]], on_error: Callable[[StatedumpError], None] | None = None) -> list[RecordBase]:
        """Records from files; each file must sit in its kind's folder and be named by its id."""
        records = []
        for rel, data in files:
            try:
                records.append(parse_record(data, rel))
            except StatedumpError as err:
                if on_error is None:
                    raise
                on_error(err)
        return records

    def load(self, session: str, rev: str | None = None) -> SessionState:
        """The session and all its records, from the working tree or as of `rev`."""
        from statedump.models.state import SessionState

        if rev is None:
            # The working tree is read through the record cache: a big session re-parses only what changed.
            from statedump.core.store.cache import load_state

            if not (self.session_dir(session) / SESSION_FILE).is_file():
                self.load_session(session)  # the same error as without the cache
            confine_session(self.root, session)
            return SessionState(*load_state(self.root, session))
        meta = self.load_session(session, rev)
        return SessionState(meta, self.parse_files(self.record_files(session, rev)))

    def get(self, session: str, record_id: str) -> RecordBase:
        """One record by id, from the working tree."""
        path = self.find_path(session, record_id)
        if path is None or not path.is_file():
            near = did_you_mean(record_id, (p.stem for p in self.session_dir(session).glob("*/*.yaml")))
            raise NotFound(
                f"no record {record_id!r} in session {session!r}",
                where=record_id,
                hint=f"{near} `statedump list` shows the ids" if near else "`statedump list` shows the ids",
            )
        return parse_record(confined(self.root, path).read_bytes(), self.rel(path))

    def find_path(self, session: str, record_id: str) -> Path | None:
        """The record's file in whichever kind folder holds it."""
        for kind in KINDS:
            path = self.record_path(session, kind, record_id)
            if path.exists():
                return path
        return None

    # -- writing ------------------------------------------------------------
    @contextlib.contextmanager
    def lock(self) -> Iterator[None]:
        """The store's write lock (a context manager), re-entrant in one thread of one process.

        Every read-modify-write of a record happens inside one hold of it: the read included,
        so two writers never both start from the same old record and lose one change."""
        with self._guard:
            if self._depth:
                self._depth += 1
                try:
                    yield
                finally:
                    self._depth -= 1
                return
            with store_lock(self.git.git_dir / "statedump.lock"):
                self._depth = 1
                try:
                    yield
                finally:
                    self._depth = 0

    @property
    def journal_path(self) -> Path:
        """Where an unfinished write is recorded, so `statedump doctor` can undo it after a crash."""
        return self.git.git_dir / JOURNAL

    @property
    def durable(self) -> bool:
        """Whether writes sync to disk: as git is told to sync a commit (core/git/durability.py),
        asked once per store."""
        if self._durable is None:
            from statedump.core.git.durability import syncs_loose_objects

            self._durable = syncs_loose_objects(self.git.git_dir)
        return self._durable

    def commit_files(self, files: dict[Path, bytes | None], message: str, when: datetime | None = None) -> str:
        """Write (or delete, for None) several files and commit them as one change.

        The caller holds the lock (`with store.lock():`). A journal names the files until the
        commit is made; if the process dies in between, `statedump doctor` rolls them back.
        On any error here the files and the index are restored before the error is raised.
        """
        message, backups, paths = self.begin_write(files, message)
        try:
            for path, data in files.items():
                if data is None:
                    path.unlink(missing_ok=True)
                else:
                    # No fsync of the file: the journal written first names it, so `doctor` puts
                    # it back if the writer dies before the commit; once the commit exists the
                    # file is only its work-tree copy (the import's writes reason the same).
                    write_atomic(path, data, durable=False)
            sha = self.git.commit(paths, message, when)
        except BaseException as err:
            self.undo_write(backups, paths, err)
        self.journal_path.unlink(missing_ok=True)
        return sha

    def begin_write(self, files: Iterable[Path], message: str) -> tuple[str, dict[Path, bytes | None], list[str]]:
        """Before writing `files`: the commit message redacted, what each file holds now, their
        repository paths, and the journal that names them written durably (for `doctor`)."""
        from statedump.core.redact import redact_text

        # Commit messages carry titles and sources given on the command line: never secrets.
        message = redact_text(message)
        files = list(files)
        for folder in {p.parent for p in files}:
            confined(self.root, folder)  # never written through a link that leads out of the store
        backups: dict[Path, bytes | None] = {}
        for p in files:
            try:
                link = stat.S_ISLNK(os.lstat(p).st_mode)
            except FileNotFoundError:  # a new file (most of an import's): one system call, not two
                backups[p] = None
                continue
            backups[confined(self.root, p) if link else p] = p.read_bytes() if p.exists() else None
        paths = [self.rel(p) for p in backups]
        # What each file held before (not HEAD): a repair puts an uncommitted hand edit back.
        before = dict(zip(paths, backups.values(), strict=True))
        write_journal(self.journal_path, self.git.head(), before, message.split("\n", 1)[0], durable=self.durable)
        return message, backups, paths

    def undo_write(self, backups: dict[Path, bytes | None], paths: list[str], err: BaseException) -> NoReturn:
        """After a failed write: the files and the index put back as they were, the journal
        removed, and `err` raised again (git's refusal as one line)."""
        restored = True
        for path, old in backups.items():
            try:
                if old is None:
                    path.unlink(missing_ok=True)
                elif not path.is_file() or path.read_bytes() != old:
                    write_atomic(path, old)
            except OSError:
                restored = False  # a full disk: the journal stays, and `doctor --repair` finishes this
        with contextlib.suppress(StatedumpError):
            self.git.unstage(paths)
        if restored:
            self.journal_path.unlink(missing_ok=True)
        if isinstance(err, CommandFailed):
            raise GitFailed(f"git refused the commit: {err.last}", where=self.root) from None
        raise err

    def create_session(self, session: Session, when: datetime | None = None) -> str:
        """Write `session.yaml` for a new session and commit it."""
        from statedump.core import codec
        from statedump.core.redact import redact_model
        from statedump.core.store.fit import fit_session

        session = fit_session(redact_model(session))
        path = self.session_dir(session.id) / SESSION_FILE
        with self.lock():
            if path.exists():
                raise StatedumpError(f"session {session.id!r} already exists", where=self.rel(path))
            msg = commit_message("new", None, session.id, None, f"session: new {session.id}")
            made = not path.parent.exists()
            try:
                return self.commit_files({path: codec.dump_session(session).encode()}, msg, when or fixed())
            except BaseException:
                if made:  # refused (by git, a full disk): no empty session folder left behind
                    _drop_empty_folders(path.parent, self.root / SESSIONS)
                raise

    def update_session(self, session: Session, *, action: str = "edit", source: str | None = None) -> str | None:
        """Rewrite `session.yaml` and commit it; None when nothing changed."""
        from statedump.core import codec
        from statedump.core.redact import redact_model
        from statedump.core.store.fit import fit_session

        path = self.session_dir(session.id) / SESSION_FILE
        data = codec.dump_session(fit_session(redact_model(session))).encode()
        with self.lock():
            if not path.is_file():
                raise NotFound(f"no session {session.id!r}", where="-s", hint="`statedump sessions` lists them")
            if path.read_bytes() == data and not self.git.status_porcelain(self.rel(path)):
                return None
            msg = commit_message(action, None, session.id, source, f"session: {action} {session.id}")
            return self.commit_files({path: data}, msg, fixed())

    def missing_links(self, session: str, record: RecordBase) -> list[tuple[str, str]]:
        """(relation, id) of each link whose target is not in the session's working tree."""
        return [(rel, t) for rel, t in record.link_pairs() if t != record.id and self.find_path(session, t) is None]

    def _refuse_dangling(self, session: str, record: RecordBase, where: str | None = None) -> None:
        missing = self.missing_links(session, record)
        if missing:
            rel, target = missing[0]
            more = f" (and {len(missing) - 1} more)" if len(missing) > 1 else ""
            raise StatedumpError(
                f"link {rel} -> {target!r}: no such record in session {session!r}{more}",
                where=where or f"{record.kind}/{record.id}",
                hint="add the target first, or fix the id (`statedump list` shows them)",
            )

    def add(
        self,
        session: str,
        record: RecordBase,
        *,
        unique: bool = False,
        when: datetime | None = None,
        action: str = "add",
        check_links: bool = True,
        where: str | None = None,
    ) -> tuple[RecordBase, str]:
        """Add a new record and commit it. With `unique`, a taken id gets a numeric suffix
        instead of an error (for ids statedump made up from a title)."""
        from statedump.core import codec
        from statedump.core.redact import redact_model
        from statedump.core.store.fit import fit_record

        record = fit_record(redact_model(record))
        if not (self.session_dir(session) / SESSION_FILE).is_file():
            raise NotFound(f"no session {session!r}", where="-s", hint="`statedump sessions` lists them")
        # A session whose own file is broken (or leads out of the store) takes no records: every
        # read of it would refuse them anyway. Checked again only when the folder or the file
        # changed since this store last checked it (a resident MCP server adds many).
        seen = _session_stamp(self.session_dir(session))
        if self._sessions_checked.get(session) != seen:
            self.load_session(session)
            self._sessions_checked[session] = seen
        with self.lock():
            if check_links:
                self._refuse_dangling(session, record, where)
            taken = self.find_path(session, record.id)
            if taken is not None:
                if not unique:
                    raise StatedumpError(
                        f"a record with id {record.id!r} already exists",
                        where=self.rel(taken),
                        hint="pick another --id, or `statedump edit` it",
                    )
                base, n = record.id, 2
                while taken is not None:
                    self._refuse_same_title(taken, record)
                    record = record.model_copy(update={"id": with_suffix(base, f"-{n}")})
                    taken = self.find_path(session, record.id)
                    n += 1
            path = self.record_path(session, record.kind, record.id)
            msg = commit_message(action, record, session, record.source)
            sha = self.commit_files({path: codec.dump_record(record).encode()}, msg, when or fixed())
        return record, sha

    def _refuse_same_title(self, taken: Path, record: RecordBase) -> None:
        # The id made up from the title is taken (or its `-2`, `-3`, ...): when that record is
        # of the same kind with the same title, this is almost always the same record added
        # twice (a retried command, an agent that forgot), so it is refused with the id to
        # edit instead. Another title that slugs the same still gets a suffix. Only the ids
        # the title leads to are read: an add never reads the whole session.
        existing = parse_record(taken.read_bytes(), self.rel(taken))

        def norm(title: str) -> str:
            return " ".join(title.split()).casefold()

        if existing.kind == record.kind and norm(existing.title) == norm(record.title):
            raise StatedumpError(
                f"{a(record.kind)} titled {record.title!r} already exists: {existing.id}",
                where=f"{existing.kind}/{existing.id}",
                hint=f"change it with `statedump edit {existing.id}`, or pass --id to add another",
            )

    def put(self, session: str, record: RecordBase, *, action: str = "edit", source: str | None = None) -> str | None:
        """Replace an existing record (its kind may change); None when nothing changed.

        The commit's source trailer is `source`, the source of this change: never the
        record's own `source`, which says where the record first came from."""
        with self.lock():
            if self.find_path(session, record.id) is None:
                raise NotFound(f"no record {record.id!r} in session {session!r}", where=record.id)
            return self.replace_records(session, [record], action=action, source=source)

    def replace_records(
        self,
        session: str,
        records: Sequence[RecordBase],
        *,
        remove: Sequence[str] = (),
        action: str,
        primary: RecordBase | None = None,
        subject: str | None = None,
        source: str | None = None,
        when: datetime | None = None,
    ) -> str | None:
        """Write `records` (each replacing the record of its id in whichever kind folder holds
        it, or new) and delete the records whose ids are in `remove`, as one commit; None when
        nothing changed. Links are checked against the session as it will be after the change.

        `primary` (default: the first record) names the commit's record trailer. Callers that
        read what they change hold `lock()` around the read and this call."""
        from statedump.core import codec
        from statedump.core.redact import redact_model
        from statedump.core.store.fit import fit_record

        records = [fit_record(redact_model(r)) for r in records]
        written = {r.id for r in records}
        with self.lock():
            for record in records:
                missing = [
                    (rel, t) for rel, t in record.link_pairs() if t not in written and (t in remove or self.find_path(session, t) is None)
                ]
                if missing:
                    rel, target = missing[0]
                    more = f" (and {len(missing) - 1} more)" if len(missing) > 1 else ""
                    raise StatedumpError(
                        f"link {rel} -> {target!r}: no such record in session {session!r}{more}",
                        where=f"{record.kind}/{record.id}",
                        hint="add the target first, or fix the id (`statedump list` shows them)",
                    )
            files: dict[Path, bytes | None] = {}
            for record_id in remove:
                old = self.find_path(session, record_id)
                if old is None:
                    raise NotFound(f"no record {record_id!r} in session {session!r}", where=record_id)
                files[old] = None
            for record in records:
                path = self.record_path(session, record.kind, record.id)
                old = self.find_path(session, record.id)
                if old is not None and old != path:
                    files[old] = None
                files[path] = codec.dump_record(record).encode()
            unchanged = all(
                data is not None and path.is_file() and path.read_bytes() == data and not self.git.status_porcelain(self.rel(path))
                for path, data in files.items()
            )
            if unchanged:
                return None
            head = primary or records[0]
            return self.commit_files(files, commit_message(action, head, session, source, subject), when or fixed())


def _session_stamp(folder: Path) -> tuple[int, ...]:
    """What a session's folder and file are now (link or not, inode, size, change time): equal
    stamps mean an earlier check of them still holds."""
    try:
        d, f = folder.lstat(), (folder / SESSION_FILE).lstat()
    except OSError:
        return ()
    return (d.st_mode, d.st_ino, d.st_dev, f.st_mode, f.st_ino, f.st_size, f.st_mtime_ns, f.st_ctime_ns)
