"""The example store: the reference session replayed into a fresh git repository."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from statedump.core import codec
from statedump.core.errors import StatedumpError
from statedump.core.layout import SESSION_FILE, session_path
from statedump.core.store.reader import parse_record, read_bytes, scan_folder
from statedump.core.store.store import Store
from statedump.models.state import SessionState
from statedump.services.refs import tag_dump

EXAMPLE = "qwen35-397b-a17b-nvfp4"


def example_dir() -> Path:
    """Where the example session's files are: inside the wheel, or in the checkout."""
    packaged = Path(str(resources.files("statedump"))) / "example" / EXAMPLE
    if (packaged / SESSION_FILE).is_file():
        return packaged
    checkout = Path(__file__).resolve().parents[2] / session_path(EXAMPLE)
    if (checkout / SESSION_FILE).is_file():
        return checkout
    raise StatedumpError("the example session is missing from this installation", where=str(packaged), hint="reinstall statedump")


def load_example(folder: Path | None = None) -> SessionState:
    """The example session as data, read straight from its files."""
    folder = folder or example_dir()
    meta = codec.load_session((folder / SESSION_FILE).read_bytes(), folder / SESSION_FILE)
    records = [parse_record(read_bytes(entry.path), rel) for rel, entry in scan_folder(folder, session_path(EXAMPLE))]
    return SessionState(meta, records)


def build_demo(directory: Path) -> tuple[Store, str, list[str]]:
    """Replay the example into a new store at `directory`, one commit per record, dated by
    the record's `at`, with a dump tag at each checkpoint. Refuses a non-empty directory."""
    if directory.exists() and (not directory.is_dir() or any(directory.iterdir())):
        raise StatedumpError("the directory is not empty", where=directory, hint="name a new or empty directory")
    state = load_example()
    # Dated like the rest of the replay, so the same example gives the same commits.
    store = Store.init(directory, when=state.session.started)
    sid = state.session.id
    store.create_session(state.session, when=state.session.started)
    checkpoints = sorted(state.session.checkpoints, key=lambda c: c.at)
    tags: list[str] = []
    for record in state.records:
        while checkpoints and record.at is not None and checkpoints[0].at < record.at:
            point = checkpoints.pop(0)
            tags.append(tag_dump(store, sid, _dump_message(point.source, point.message), point.at).name)
        # Links may point forward in time; the whole example is validated by the tests.
        store.add(sid, record, when=record.at, check_links=False)
    for point in checkpoints:
        tags.append(tag_dump(store, sid, _dump_message(point.source, point.message), point.at).name)
    return store, sid, tags


def _dump_message(source: str | None, message: str | None) -> str:
    head = f"State dump ({source})" if source else "State dump"
    return f"{head}: {message}" if message else head
