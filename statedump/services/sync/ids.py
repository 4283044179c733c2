"""The same id added on both sides: the local record is renamed before the rebase."""

from __future__ import annotations

import re
from dataclasses import dataclass

from statedump.core import codec
from statedump.core.errors import StatedumpError
from statedump.core.git.gateway import Git
from statedump.core.layout import SESSIONS, RecordRef, record_path
from statedump.core.store.store import Store
from statedump.models import Decision, Enforcement, Links, RecordBase
from statedump.models.ids import with_suffix
from statedump.services.sync.scratch import SCRATCH, scratch_dir


@dataclass(frozen=True)
class Renamed:
    """A local record whose id was also taken on the remote."""

    session: str
    kind: str
    old: str
    new: str


def _added(git: Git, base: str, tip: str) -> dict[tuple[str, str], str]:
    """(session, id) -> path of each record added between `base` and `tip`."""
    out = {}
    for path in git.diff_names(base, tip, SESSIONS, added=True):
        found = RecordRef.parse(path)
        if found:
            out[(found.session, found.id)] = path
    return out


def collisions(git: Git, base: str, local: str, remote: str) -> list[Renamed]:
    """Local records whose id the remote also added, with other content, and their new ids."""
    ours, theirs = _added(git, base, local), _added(git, base, remote)
    found = map(RecordRef.parse, [*git.ls_tree(local, SESSIONS), *git.ls_tree(remote, SESSIONS)])
    taken = {(ref.session, ref.id) for ref in found if ref}
    out = []
    for key in sorted(ours.keys() & theirs.keys()):
        mine, other = ours[key], theirs[key]
        if mine == other and git.rev_parse(f"{local}:{mine}") == git.rev_parse(f"{remote}:{other}"):
            continue  # the same record added twice: the rebase drops the duplicate
        adder = git.adders(base, local, mine)[-1]
        session, old = key
        for width in range(7, 41):
            new = with_suffix(old, f"-{adder[:width]}")
            if (session, new) not in taken:
                break
        taken.add((session, new))
        kind = mine.split("/")[2]
        out.append(Renamed(session, kind, old, new))
    return out


def _relink(record: RecordBase, ids: dict[str, str]) -> RecordBase:
    """The record with links (and a decision's enforced commands) pointing at renamed ids."""
    links = Links.model_validate({rel: [ids.get(t, t) for t in getattr(record.links, rel)] for rel in Links.model_fields})
    update: dict[str, object] = {"links": links, "id": ids.get(record.id, record.id)}
    if isinstance(record, Decision):
        update["enforces"] = [
            Enforcement.model_validate({**e.model_dump(), "command": ids.get(e.command, e.command)}) for e in record.enforces
        ]
    return type(record).model_validate({**record.model_dump(), **update})


def _rewrite_message(message: str, ids: dict[str, str]) -> str:
    rows = message.splitlines()
    for n, line in enumerate(rows):
        if n == 0 or line.startswith("Statedump-Record: "):
            for old, new in ids.items():
                line = re.sub(rf"(?<![\w.-]){re.escape(old)}(?![\w.-])", new, line)
            rows[n] = line
    return "\n".join(rows) + "\n"


def rename_locally(store: Store, base: str, local: str, renames: list[Renamed]) -> str:
    """Rewrite the local commits `base..local` with the renames applied; returns the new tip."""
    git = store.git
    commits = git.commits_between(base, local)
    if git.merges_between(base, local):
        raise StatedumpError("local history has merge commits", where=store.root, hint="rebase them into a line with git, then sync")
    by_session: dict[str, dict[str, str]] = {}
    for r in renames:
        by_session.setdefault(r.session, {})[r.old] = r.new
    ids_all = {old: new for ids in by_session.values() for old, new in ids.items()}
    at_base = git.ls_tree(base, SESSIONS)
    parent = base
    scratch_dir(git)
    with git.scratch_index(f"{SCRATCH}/sync-rename.index") as index:
        for sha in commits:
            index.read_tree(sha)
            for path, sha_blob in git.ls_tree(sha, SESSIONS).items():
                ref = RecordRef.parse(path)
                if ref is None or ref.session not in by_session or sha_blob == at_base.get(path):
                    continue  # only records this clone touched can mean the local record
                ids = by_session[ref.session]
                record = codec.load_record(git.blob(sha_blob), path, ref.kind)
                if ref.id not in ids and not any(t in ids for _, t in record.link_pairs()):
                    continue
                fixed = _relink(record, ids)
                index.remove(path)
                index.add_blob(record_path(ref.session, ref.kind, fixed.id), git.store_blob(codec.dump_record(fixed).encode()))
            message = _rewrite_message(git.message(sha), ids_all)
            parent = git.commit_tree(index.write_tree(), parent, message, git.signature_env(sha))
    return parent
