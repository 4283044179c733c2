"""A fast-import fed while its stream is made writes what git's own commands write, says
git's refusal in one error, and when stopped leaves nothing any ref names."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from helpers import git

from statedump.core.errors import StatedumpError
from statedump.core.git.fastimport import Stream, blob_id
from statedump.core.store.store import Store


def _hash(root: Path, data: bytes) -> str:
    return (
        subprocess.run(["git", "-C", str(root), "hash-object", "--stdin"], input=data, capture_output=True, check=True)
        .stdout.decode()
        .strip()
    )


def test_blobs_fed_past_the_pipes_capacity_are_the_objects_git_makes(store: Store) -> None:
    # 3 MB of blobs: more than the widened pipe holds, so git reads while they are fed.
    blobs = [(f"blob {n}\n".encode() * 1200)[: 8000 + n] for n in range(400)]
    running = store.git.feed()
    marks = [running.stream.blob(data) for data in blobs]
    running.stream.blob(blobs[0])  # the same bytes again: one object, one mark
    ids = running.wait()
    assert len(ids) == len(blobs)
    for mark, data in zip(marks[::40], blobs[::40], strict=True):
        assert ids[f":{mark}"].strip() == blob_id(data) == _hash(store.root, data)
        assert git(store.root, "cat-file", "-t", blob_id(data)).strip() == "blob"


def test_a_stream_git_refuses_is_one_error_naming_what_git_said(store: Store) -> None:
    running = store.git.feed()
    running.stream.blob(b"fine\n")
    running.write(b"commit refs/heads/x\nnot-a-command\n")
    with pytest.raises(StatedumpError) as caught:
        running.wait()
    said = str(caught.value)
    assert "git fast-import failed: fatal: Expected committer" in said and "\n" not in said
    assert git(store.root, "for-each-ref", "refs/heads/x") == ""


def test_an_aborted_feed_leaves_no_ref_and_no_crash_report(store: Store) -> None:
    head = git(store.root, "rev-parse", "HEAD").strip()
    tree = git(store.root, "rev-parse", "HEAD^{tree}").strip()
    running = store.git.feed()
    stream: Stream = running.stream
    made = stream.commit("refs/statedump/import-checkpoints", head, tree, {"a.yaml": b"a: 1\n"}, "half\n", ("A <a@x>", "A <a@x>"), None)
    assert made > 0
    running.abort()
    assert git(store.root, "for-each-ref", "refs/statedump") == ""
    assert not list(store.git.git_dir.glob("fast_import_crash_*"))
    assert git(store.root, "rev-parse", "HEAD").strip() == head
