"""Dump tags across clones: fetched into a side namespace, then adopted or renumbered."""

from __future__ import annotations

from typing import TYPE_CHECKING

from statedump.services.sync.plumbing import lines

if TYPE_CHECKING:
    import git

REMOTE_DUMPS = "refs/statedump/remote-dumps"
"""Where the remote's dump tags are fetched before they are compared with ours."""


def tag_objects(repo: git.Repo, prefix: str) -> dict[str, str]:
    """Ref name (without `prefix`) -> object sha of every ref under `prefix`."""
    out = {}
    for line in lines(repo.git.for_each_ref("--format=%(refname) %(objectname)", prefix)):
        ref, sha = line.split(" ")
        out[ref.removeprefix(prefix)] = sha
    return out


def adopt_dumps(repo: git.Repo, remote: str) -> list[tuple[str, str]]:
    """Take the remote's dump tags; renumber a local dump whose name the remote uses for another."""
    theirs = tag_objects(repo, f"{REMOTE_DUMPS}/{remote}/")
    ours = tag_objects(repo, "refs/tags/")
    renumbered = []
    for name, obj in sorted(theirs.items()):
        mine = ours.get(name)
        if mine == obj:
            continue
        if mine is not None:
            session = name.split("/")[1]
            taken = [n.rsplit("/", 1)[1] for n in [*ours, *theirs] if n.startswith(f"dump/{session}/")]
            new = f"dump/{session}/{max(int(t) for t in taken if t.isdigit()) + 1}"
            info = repo.git.for_each_ref(
                "--format=%(*objectname)%00%(taggername)%00%(taggeremail:trim)%00%(taggerdate:raw)%00%(contents)", f"refs/tags/{name}"
            )
            target, tagger, email, date, message = info.split("\0", 4)
            target = target or repo.git.rev_parse(f"refs/tags/{name}")  # a lightweight tag names the commit itself
            # The renumbered tag keeps its author and date; only its number changes.
            found = {"GIT_COMMITTER_NAME": tagger, "GIT_COMMITTER_EMAIL": email, "GIT_COMMITTER_DATE": date}
            env = {k: v for k, v in found.items() if v}
            repo.git.tag("-a", new, "-m", message.strip() or new, target, env=env)
            ours[new] = repo.git.rev_parse(f"refs/tags/{new}")
            renumbered.append((name, new))
        repo.git.update_ref(f"refs/tags/{name}", obj)
        ours[name] = obj
    return renumbered
