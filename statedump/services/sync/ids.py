"""The same id added on both sides: the local record is renamed before the rebase."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from statedump.core import codec
from statedump.core.errors import StatedumpError
from statedump.core.layout import SESSIONS
from statedump.core.store.store import Store
from statedump.models import Decision, Enforcement, Links, RecordBase
from statedump.services.sync.plumbing import blob, lines, record_path, store_blob, tree_blobs

if TYPE_CHECKING:
    import git


@dataclass(frozen=True)
class Renamed:
    """A local record whose id was also taken on the remote."""

    session: str
    kind: str
    old: str
    new: str


def _added(repo: git.Repo, base: str, tip: str) -> dict[tuple[str, str], str]:
    """(session, id) -> path of each record added between `base` and `tip`."""
    out = {}
    for path in lines(repo.git.diff("--name-only", "--no-renames", "--diff-filter=A", base, tip, "--", SESSIONS)):
        found = record_path(path)
        if found:
            out[(found[0], found[2])] = path
    return out


def collisions(repo: git.Repo, base: str, local: str, remote: str) -> list[Renamed]:
    """Local records whose id the remote also added, with other content, and their new ids."""
    ours, theirs = _added(repo, base, local), _added(repo, base, remote)
    taken = {(s, i) for s, _, i in filter(None, map(record_path, [*tree_blobs(repo, local), *tree_blobs(repo, remote)]))}
    out = []
    for key in sorted(ours.keys() & theirs.keys()):
        mine, other = ours[key], theirs[key]
        if mine == other and repo.git.rev_parse(f"{local}:{mine}") == repo.git.rev_parse(f"{remote}:{other}"):
            continue  # the same record added twice: the rebase drops the duplicate
        adder = lines(repo.git.log("--format=%H", "--diff-filter=A", f"{base}..{local}", "--", mine))[-1]
        session, old = key
        for width in range(7, 41):
            suffix = f"-{adder[:width]}"
            new = old[: 64 - len(suffix)].rstrip("-._") + suffix
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
    repo = store.git.repo
    commits = lines(repo.git.rev_list("--reverse", "--topo-order", f"{base}..{local}"))
    if any(len(repo.commit(c).parents) > 1 for c in commits):
        raise StatedumpError("local history has merge commits", where=store.root, hint="rebase them into a line with git, then sync")
    by_session: dict[str, dict[str, str]] = {}
    for r in renames:
        by_session.setdefault(r.session, {})[r.old] = r.new
    at_base = tree_blobs(repo, base)
    index = Path(repo.git_dir) / "statedump-sync.index"
    env = {"GIT_INDEX_FILE": str(index)}
    parent = base
    try:
        for sha in commits:
            repo.git.read_tree(sha, env=env)
            for path, sha_blob in tree_blobs(repo, sha).items():
                found = record_path(path)
                if found is None or found[0] not in by_session or sha_blob == at_base.get(path):
                    continue  # only records this clone touched can mean the local record
                session, kind, rid = found
                ids = by_session[session]
                record = codec.load_record(blob(repo, sha_blob), path, kind)
                if rid not in ids and not any(t in ids for _, t in record.link_pairs()):
                    continue
                fixed = _relink(record, ids)
                new_path = f"{SESSIONS}/{session}/{kind}/{fixed.id}.yaml"
                repo.git.update_index("--force-remove", "--", path, env=env)
                info = f"100644,{store_blob(repo, codec.dump_record(fixed).encode())},{new_path}"
                repo.git.update_index("--add", "--cacheinfo", info, env=env)
            tree = repo.git.write_tree(env=env)
            who = repo.git.log("-1", "--format=%an%x00%ae%x00%ad%x00%cn%x00%ce%x00%cd", "--date=raw", sha).split("\0")
            names = (
                "GIT_AUTHOR_NAME",
                "GIT_AUTHOR_EMAIL",
                "GIT_AUTHOR_DATE",
                "GIT_COMMITTER_NAME",
                "GIT_COMMITTER_EMAIL",
                "GIT_COMMITTER_DATE",
            )
            ids_all = {old: new for ids in by_session.values() for old, new in ids.items()}
            message = _rewrite_message(repo.git.log("-1", "--format=%B", sha), ids_all)
            parent = repo.git.commit_tree(tree, "-p", parent, "-m", message, env=dict(zip(names, who, strict=True)))
    finally:
        index.unlink(missing_ok=True)
    return parent
