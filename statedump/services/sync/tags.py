"""Dump tags across clones: fetched into a side namespace, then adopted or renumbered."""

from __future__ import annotations

from statedump.core.git.gateway import Git

REMOTE_DUMPS = "refs/statedump/remote-dumps"
"""Where the remote's dump tags are fetched before they are compared with ours."""


def tag_objects(git: Git, prefix: str) -> dict[str, str]:
    """Ref name (without `prefix`) -> object sha of every ref under `prefix`."""
    return {ref.removeprefix(prefix): sha for ref, sha in git.refs(prefix).items()}


def adopt_dumps(git: Git, remote: str) -> list[tuple[str, str]]:
    """Take the remote's dump tags; renumber a local dump whose name the remote uses for another."""
    theirs = tag_objects(git, f"{REMOTE_DUMPS}/{remote}/")
    ours = tag_objects(git, "refs/tags/")
    renumbered = []
    for name, obj in sorted(theirs.items()):
        mine = ours.get(name)
        if mine == obj:
            continue
        if mine is not None:
            session = name.split("/")[1]
            taken = [n.rsplit("/", 1)[1] for n in [*ours, *theirs] if n.startswith(f"dump/{session}/")]
            new = f"dump/{session}/{max(int(t) for t in taken if t.isdigit()) + 1}"
            target, tagger, email, date, message = git.tag_info(f"refs/tags/{name}")
            target = target or git.rev_parse(f"refs/tags/{name}")  # a lightweight tag names the commit itself
            # The renumbered tag keeps its author and date; only its number changes.
            found = {"GIT_COMMITTER_NAME": tagger, "GIT_COMMITTER_EMAIL": email, "GIT_COMMITTER_DATE": date}
            git.tag(new, target, message.strip() or new, signer={k: v for k, v in found.items() if v})
            ours[new] = git.rev_parse(f"refs/tags/{new}")
            renumbered.append((name, new))
        git.update_ref(f"refs/tags/{name}", obj)
        ours[name] = obj
    return renumbered
