"""The error taxonomy: each kind of failure carries its exit status, and the faces map by type."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from statedump.cli import main
from statedump.core.errors import BadInput, GitFailed, LockTimeout, NotFound, StatedumpError, Unmerged
from statedump.core.store.store import Store


@pytest.mark.parametrize(
    ("cls", "status"), [(StatedumpError, 2), (BadInput, 2), (NotFound, 2), (Unmerged, 1), (GitFailed, 1), (LockTimeout, 1)]
)
def test_each_error_carries_its_exit_status(cls: type[StatedumpError], status: int) -> None:
    err = cls("it broke", where="f.yaml", hint="fix it")
    assert err.status == status
    assert str(err) == "f.yaml: it broke (fix it)"
    assert isinstance(err, StatedumpError)


def test_an_unknown_record_is_not_found_and_exits_2(store: Store) -> None:
    with pytest.raises(NotFound):
        store.get("s1", "no-such-record")
    r = CliRunner().invoke(main, ["show", "no-such-record", "--store", str(store.root)])
    assert r.exit_code == 2
    assert r.output.count("\n") == 1 and "no record 'no-such-record'" in r.output


def test_a_validation_error_is_bad_input(tmp_path: Path) -> None:
    from statedump.core import codec

    bad = tmp_path / "x.yaml"
    bad.write_text("id: x\nkind: goal\ntitle: 5\nsurprise: 1\n", encoding="utf-8")
    with pytest.raises(BadInput):
        codec.load_record(bad.read_bytes(), bad, "goal")
