"""The log index answers exactly as `git log -- <file>` does, follows HEAD, and steps aside when it cannot."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from helpers import git

from benchmarks import generate
from statedump.core.git import logindex
from statedump.core.git.gateway import LOG_ARGS, log_commit, parse_log


def _from_git(root: Path, paths: list[str]) -> list[logindex.Row]:
    out = subprocess.run(["git", "-C", str(root), *LOG_ARGS, "HEAD", "--", *paths], capture_output=True, check=True).stdout
    return [(log_commit(sha, parents, at, message), tuple(names)) for sha, parents, at, message, names in parse_log(out)]


def _from_index(root: Path, paths: list[str]) -> list[logindex.Row] | None:
    return logindex.touching(root, root / ".git", paths)


def _files(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in (root / "sessions").rglob("*.yaml"))


def _as_someone(root: Path, *args: str) -> str:
    return git(root, "-c", "user.name=Ann", "-c", "user.email=ann@example.org", *args)


def _commit(root: Path, message: str) -> None:
    git(root, "add", "--all")
    _as_someone(root, "commit", "--quiet", "--allow-empty", "-m", message)


def test_same_answers_as_git_through_edits_moves_and_deletes(tmp_path: Path) -> None:
    built = generate.build_store(tmp_path / "s", 40)
    root = built.root
    files = _files(root)
    assert all(_from_index(root, [p]) == _from_git(root, [p]) for p in files)
    # History goes on after the index was made: an edit, a move to another kind folder, a deletion.
    edited, moved, deleted = files[0], files[1], files[2]
    (root / edited).write_text((root / edited).read_text() + "# edited\n")
    _commit(root, "edit one")
    target = root / "sessions" / built.session / "goal" / Path(moved).name
    (root / moved).rename(target)
    _commit(root, "move one")
    (root / deleted).unlink()
    _commit(root, "delete one")
    gone = [edited, moved, str(target.relative_to(root)), deleted]
    for paths in [[p] for p in gone] + [gone, files[:7]]:
        assert _from_index(root, paths) == _from_git(root, paths), paths
    assert _from_index(root, [moved])[0][0].subject == "move one"  # type: ignore[index]


def test_rewritten_history_is_read_again(tmp_path: Path) -> None:
    built = generate.build_store(tmp_path / "s", 12)
    root = built.root
    path = _files(root)[0]
    assert _from_index(root, [path]) == _from_git(root, [path])
    (root / path).write_text((root / path).read_text() + "# amended\n")
    _as_someone(root, "commit", "--quiet", "--all", "--amend", "-m", "rewritten")
    assert _from_index(root, [path]) == _from_git(root, [path])
    git(root, "reset", "--quiet", "--hard", "HEAD~3")
    assert _from_index(root, [path]) == _from_git(root, [path])


def test_globs_folders_and_merges_are_left_to_git(tmp_path: Path) -> None:
    built = generate.build_store(tmp_path / "s", 8)
    root = built.root
    assert _from_index(root, [f"sessions/{built.session}/*/x.yaml"]) is None
    assert _from_index(root, [f"sessions/{built.session}/"]) is None
    path = _files(root)[0]
    git(root, "checkout", "--quiet", "-b", "side")
    (root / path).write_text((root / path).read_text() + "# side\n")
    _commit(root, "on the side")
    git(root, "checkout", "--quiet", "main")
    _commit(root, "on main")
    _as_someone(root, "merge", "--quiet", "--no-ff", "-m", "merge", "side")
    # git's history simplification decides what a log shows through merges: the index does not guess.
    assert _from_index(root, [path]) is None


def test_no_commit_yet_and_an_unreadable_index(tmp_path: Path) -> None:
    root = tmp_path / "empty"
    root.mkdir()
    git(root, "init", "--quiet")
    assert _from_index(root, ["sessions/x/goal/a.yaml"]) is None
    built = generate.build_store(tmp_path / "s", 5)
    index = built.root / ".git" / "statedump" / "log.sqlite"
    index.parent.mkdir(parents=True, exist_ok=True)
    index.write_bytes(b"not a database" * 100)
    path = _files(built.root)[0]
    assert _from_index(built.root, [path]) is None  # damaged: git is asked instead
    index.unlink()
    assert _from_index(built.root, [path]) == _from_git(built.root, [path])


def test_readers_in_parallel_build_one_index(tmp_path: Path) -> None:
    built = generate.build_store(tmp_path / "s", 30)
    path = _files(built.root)[3]
    code = "import sys; from pathlib import Path; from statedump.core.git import logindex; r = Path(sys.argv[1]); "
    code += "print(len(logindex.touching(r, r / '.git', [sys.argv[2]]) or []))"
    procs = [subprocess.Popen([sys.executable, "-c", code, str(built.root), path], stdout=subprocess.PIPE) for _ in range(4)]
    outs = [p.communicate()[0].decode().strip() for p in procs]
    assert outs == [str(len(_from_git(built.root, [path])))] * 4
    assert _from_index(built.root, [path]) == _from_git(built.root, [path])


def test_a_record_separator_in_a_message_changes_nothing(tmp_path: Path) -> None:
    built = generate.build_store(tmp_path / "s", 6)
    root = built.root
    path = _files(root)[0]
    (root / path).write_text((root / path).read_text() + "# odd\n")
    git(root, "add", "--all")
    _as_someone(root, "commit", "--quiet", "-m", "odd\x1etitle\x1e0123\n\nbody\x1e")
    index = _from_index(root, [path])
    assert index == _from_git(root, [path]) and index is not None
    assert index[0][0].subject == "odd\x1etitle\x1e0123"


def test_shallow_clones_grafts_and_replace_refs_are_left_to_git(tmp_path: Path) -> None:
    built = generate.build_store(tmp_path / "s", 6)
    shallow = tmp_path / "shallow"
    git(tmp_path, "clone", "--quiet", "--depth", "1", f"file://{built.root}", str(shallow))
    path = _files(shallow)[0]
    # Deepening the clone changes what `git log -- <file>` shows under the same HEAD.
    assert _from_index(shallow, [path]) is None
    git(shallow, "fetch", "--quiet", "--unshallow")
    assert _from_index(shallow, [path]) == _from_git(shallow, [path])
    head = git(shallow, "rev-parse", "HEAD").strip()
    parent = git(shallow, "rev-parse", "HEAD~1").strip()
    git(shallow, "replace", head, parent)
    assert _from_index(shallow, [path]) is None


def test_the_root_commit_lists_its_files_whatever_log_show_root_says(tmp_path: Path) -> None:
    root = tmp_path / "r"
    root.mkdir()
    git(root, "init", "--quiet", "-b", "main")
    git(root, "config", "log.showRoot", "false")
    (root / "a.yaml").write_text("a\n")
    _commit(root, "root")
    (root / "a.yaml").write_text("b\n")
    _commit(root, "second")
    index = _from_index(root, ["a.yaml"])
    assert index == _from_git(root, ["a.yaml"]) and index is not None
    assert [c.subject for c, _ in index] == ["second", "root"] and index[1][1] == ("a.yaml",)
