"""Store-level commands: init, demo, session new/edit/close, sessions, schema, validate."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from statedump.cli.common import json_option, open_store, print_json, safe, session_option, store_option
from statedump.core.errors import StatedumpError


@click.command()
@click.argument("path", type=click.Path(file_okay=False, path_type=Path), default=".")
def init(path: Path) -> None:
    """Create a store at PATH (default: here): a git work tree with sessions/ and schemas/."""
    from statedump.core.store.store import Store

    store = Store.init(path)
    click.echo(f"Initialised a statedump store in {store.root}")
    click.echo("Next: statedump session new ID --title '...'")


@click.command()
@click.argument("directory", type=click.Path(file_okay=False, path_type=Path), default="statedump-demo")
def demo(directory: Path) -> None:
    """Build the example store in DIRECTORY (default: ./statedump-demo) and print its state.

    The example session is replayed in the order it happened, one commit per record,
    with a dump tag at each state dump, so the store's history is the deployment's.
    """
    from rich.console import Console

    from statedump.core.render.terminal import print_terminal
    from statedump.services.demo import build_demo

    store, session, tags = build_demo(directory)
    console = Console()
    if sys.stdout.isatty():
        print_terminal(store.load(session), console)
    else:
        from statedump.core.render import render_markdown

        click.echo(render_markdown(store.load(session)), nl=False)
    click.echo("")
    click.echo(f"Built {store.root} with dump tags {', '.join(tags)}.", err=not sys.stdout.isatty())
    click.echo(
        f"Go on with:  cd {store.root} && statedump tui   (or: statedump why kv-cache-dtype, statedump log, statedump handoff)",
        err=not sys.stdout.isatty(),
    )


@click.group()
def session() -> None:
    """Start or change a session."""


@session.command("new")
@click.argument("session_id")
@click.option("--title", required=True, help="One line that says what the session is about.")
@click.option("--model", help="The model being deployed or tuned.")
@click.option("--hardware", help="The machine it runs on.")
@click.option("--agent", help="The coding agent or person doing the work.")
@click.option("--repo", help="Repository the work happens in.")
@click.option("--branch", help="Git branch of that repository.")
@store_option
def session_new(
    session_id: str,
    title: str,
    model: str | None,
    hardware: str | None,
    agent: str | None,
    repo: str | None,
    branch: str | None,
    store_path: Path | None,
) -> None:
    """Start a session called SESSION_ID."""
    from pydantic import ValidationError

    from statedump.core.clock import now
    from statedump.core.errors import from_validation
    from statedump.core.layout import check_id
    from statedump.models import Session

    store = open_store(store_path)
    check_id(session_id, "session")
    try:
        meta = Session(id=session_id, title=title, model=model, hardware=hardware, agent=agent, repo=repo, branch=branch, started=now())
    except ValidationError as err:
        raise from_validation(err, "arguments") from None
    sha = store.create_session(meta)
    click.echo(f"session {session_id} started ({sha[:10]})")


@session.command("edit")
@click.option("--title", help="New title.")
@click.option("--model", help="The model being deployed or tuned.")
@click.option("--hardware", help="The machine it runs on.")
@click.option("--agent", help="The coding agent or person doing the work.")
@click.option("--repo", help="Repository the work happens in.")
@click.option("--branch", help="Git branch of that repository.")
@click.option("--body", help="Longer description ('' clears it).")
@click.option("--field", "fields", multiple=True, help="Any other session field as key=value (typed as for `add`); repeat.")
@click.option("--source", help="Why, or where the change came from (commit trailer).")
@store_option
@session_option
def session_edit(fields: tuple[str, ...], source: str | None, store_path: Path | None, session: str | None, **flags: str | None) -> None:
    """Change the session's title, model, hardware, ... (one commit)."""
    from statedump.services.changes import edit_session
    from statedump.services.records import parse_field

    store = open_store(store_path)
    sid = store.pick_session(session)
    given = {k: (v or None) for k, v in flags.items() if v is not None}  # '' clears a field
    texts = dict(parse_field(f) for f in fields)
    if not given and not texts:
        raise StatedumpError("nothing to change", where="arguments", hint="pass --title, --model, ... or --field key=value")
    _, after, sha = edit_session(store, sid, given, source, texts=texts)
    click.echo(f"session {after.id} " + (f"updated ({sha[:10]})" if sha else "unchanged"))


@session.command("close")
@click.option("--source", help="Why, or where the change came from (commit trailer).")
@store_option
@session_option
def session_close(source: str | None, store_path: Path | None, session: str | None) -> None:
    """Mark the session closed; `session edit --field status=active` reopens it."""
    from statedump.services.changes import close_session

    store = open_store(store_path)
    sid = store.pick_session(session)
    _, _, sha = close_session(store, sid, source)
    click.echo(f"session {sid} closed" + (f" ({sha[:10]})" if sha else " (already)"))


@click.command()
@store_option
@json_option
def sessions(store_path: Path | None, as_json: bool) -> None:
    """List the sessions in the store."""
    store = open_store(store_path)
    metas = [store.load_session(s) for s in store.session_ids()]
    if as_json:
        print_json(metas)
        return
    width = max((len(m.id) for m in metas), default=0)
    for m in metas:
        started = m.started.strftime("%Y-%m-%d") if m.started else "-"
        click.echo(f"{m.id:<{width}}  {m.status:<6}  {started:<10}  {safe(m.title)}")


@click.command()
@click.option("--show", "show_kind", metavar="KIND", help="Print the fields of one kind (or `session`) instead of writing files.")
@click.option("--check", is_flag=True, help="Exit 1 when the files in schemas/ are missing or stale.")
@click.option(
    "--dir",
    "folder",
    type=click.Path(file_okay=False, path_type=Path),
    help="Where the schemas go (default: the store's schemas/, or ./schemas).",
)
def schema(show_kind: str | None, check: bool, folder: Path | None) -> None:
    """Write one JSON Schema per record kind, plus the session, into schemas/ (or --show a kind's fields)."""
    from statedump.core.schema import describe_fields, stale_schemas, write_schemas

    if show_kind is not None:
        click.echo(describe_fields(show_kind), nl=False)
        return

    if folder is None:
        try:
            folder = open_store(None).root / "schemas"
        except StatedumpError:
            folder = Path("schemas")
    if check:
        stale = stale_schemas(folder)
        for name in stale:
            click.echo(f"{folder / name}: stale or missing (run `statedump schema`)", err=True)
        sys.exit(1 if stale else 0)
    for path in write_schemas(folder):
        click.echo(str(path))


@click.command()
@store_option
@session_option
@json_option
def validate(store_path: Path | None, session: str | None, as_json: bool) -> None:
    """Check a whole session: schema, duplicate ids, dangling links. Exit 2 on any problem."""
    from statedump.services.validate import validate_session

    store = open_store(store_path)
    sid = store.pick_session(session)
    problems = validate_session(store, sid)
    if as_json:
        print_json([{"where": p.where, "message": p.message} for p in problems])
    else:
        for p in problems:
            click.echo(safe(str(p)), err=True)
        if not problems:
            click.echo(f"session {sid}: valid")
    sys.exit(2 if problems else 0)
