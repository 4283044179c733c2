"""Reading what is really deployed into one `Live` shape: a systemd unit (file or name, with
its drop-ins and environment files), running processes (`/proc/PID/cmdline` and `environ`),
a compose file or `docker inspect` output. The HTTP endpoints are in `http.py`.

Flags and environment are read by `services.flags.parse_command`, the reader `check` and
`why` use, so a live command line and a recorded one are read the same way.
"""

from __future__ import annotations

import json
import os
import re
import shlex
from pathlib import Path
from typing import Any

import yaml

from statedump.core.errors import BadInput
from statedump.models.drift import Live, Origin
from statedump.services.flags import parse_command
from statedump.services.ingest.launch import server_family


def _live(source: str, origin: Origin, text: str, form: str = "shell", env: dict[str, str] | None = None, **kw: Any) -> Live:
    parsed = parse_command(text, form, env)
    server = next((s for p in parsed.programs if (s := server_family(p))), None)
    return Live(source, origin, text, "systemd" if form == "systemd" else "shell", parsed.flags, parsed.env, server, **kw)


# -- systemd ------------------------------------------------------------------

_EXEC_RESET = re.compile(r"^\s*ExecStart\s*=\s*$")
_ENV_FILE = re.compile(r"^\s*EnvironmentFile\s*=\s*(.+?)\s*$")


def _read(path: Path, what: str) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError as err:
        raise BadInput(f"cannot read {what} {path}: {err.strerror or err}", where=str(path)) from None


def _fold_unit(parts: list[tuple[str, str]]) -> str:
    """The unit and its drop-ins as one text, in the order systemd applies them. An empty
    `ExecStart=` in a drop-in clears the ones before it, as systemd does; environment files
    are appended as `Environment=` lines, since their values win over `Environment=`."""
    lines: list[str] = []
    for name, text in parts:
        lines.append(f"# {name}")
        for line in re.sub(r"\\\r?\n", " ", text).splitlines():
            if _EXEC_RESET.match(line):
                lines = [x for x in lines if not x.lstrip().startswith("ExecStart")]
                continue
            lines.append(line)
    files = [m.group(1) for line in lines if (m := _ENV_FILE.match(line))]
    for spec in files:
        optional = spec.startswith("-")
        path = Path(spec.lstrip("-"))
        if not path.is_file() and optional:
            continue
        lines.append(f"# EnvironmentFile={spec}")
        for raw in _read(path, "environment file").splitlines():
            item = raw.strip().removeprefix("export ").strip()
            if item and not item.startswith(("#", ";")) and "=" in item:
                lines.append(f"Environment={shlex.quote(item)}")
    return "\n".join(lines) + "\n"


def read_unit(spec: str) -> Live:
    """A unit file by path (its `<file>.d/*.conf` drop-ins beside it), or a unit by name through
    `systemctl cat` (which prints the drop-ins too)."""
    path = Path(spec)
    if "/" in spec or path.exists():
        if not path.is_file():
            raise BadInput(f"cannot read unit {spec}: no such file", where="--unit")
        parts = [(str(path), _read(path, "unit"))]
        drop_ins = Path(f"{path}.d")
        if drop_ins.is_dir():
            parts += [(str(p), _read(p, "drop-in")) for p in sorted(drop_ins.glob("*.conf"))]
        return _live(f"unit {path}", "unit", _fold_unit(parts), "systemd")
    from statedump.core.systemd import systemctl_cat

    return _live(f"unit {spec}", "unit", _fold_unit([(f"systemctl cat {spec}", systemctl_cat(spec))]), "systemd")


# -- processes ------------------------------------------------------------------


def _nul_split(data: bytes) -> list[str]:
    return [w.decode("utf-8", "replace") for w in data.split(b"\0") if w]


def read_pid(pid: int) -> Live:
    """A process's command line and, when this user may read it, its environment."""
    proc = Path(f"/proc/{pid}")
    try:
        argv = _nul_split((proc / "cmdline").read_bytes())
    except OSError:
        raise BadInput(f"cannot read process {pid}: no such process (or /proc is not mounted)", where="--pid") from None
    if not argv:
        raise BadInput(f"cannot read process {pid}: it has no command line (a kernel thread, or a zombie)", where="--pid")
    try:
        env = dict(item.partition("=")[::2] for item in _nul_split((proc / "environ").read_bytes()) if "=" in item)
        known = True
    except OSError:
        env, known = {}, False  # another user's process: the command line is still readable
    live = _live(f"pid {pid}", "process", shlex.join(argv))
    live.env, live.env_known, live.whole_environment = env, known, True
    return live


def server_pids() -> list[int]:
    """Every process (but this one) whose command line is an SGLang, vLLM or TensorRT-LLM server."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            argv = _nul_split((entry / "cmdline").read_bytes())
        except OSError:
            continue  # gone, or not ours to read
        if server_family(argv):
            found.append(int(entry.name))
    return sorted(found)


# -- containers -------------------------------------------------------------------


def _words(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return shlex.split(value)
    return [str(v) for v in value]


def _env_map(value: Any) -> dict[str, str]:
    if isinstance(value, dict):
        return {str(k): "" if v is None else str(v) for k, v in value.items()}
    return dict(str(item).partition("=")[::2] for item in value or [] if "=" in str(item))


def _container(source: str, origin: Origin, argv: list[str], env: dict[str, str]) -> Live:
    return _live(source, origin, shlex.join(argv), "shell", env)


def _pick(lives: list[Live], what: str) -> list[Live]:
    servers = [lv for lv in lives if lv.server]
    if not (servers or lives):
        raise BadInput(f"{what}: no container with a command in it", where=what)
    return servers or lives


def read_compose(path: Path) -> list[Live]:
    """Each service of a compose file: `entrypoint` and `command` (string or list), `environment`
    (list or mapping). Services that run a known server are kept when there are any."""
    try:
        doc = yaml.safe_load(_read(path, "compose file"))
    except yaml.YAMLError as err:
        raise BadInput(f"cannot read compose file {path}: not YAML ({str(err).splitlines()[0]})", where="--compose") from None
    services = doc.get("services") if isinstance(doc, dict) else None
    if not isinstance(services, dict):
        raise BadInput(f"cannot read compose file {path}: no `services` mapping", where="--compose")
    lives = []
    for name, svc in services.items():
        if not isinstance(svc, dict):
            continue
        argv = _words(svc.get("entrypoint")) + _words(svc.get("command"))
        if argv:
            lives.append(_container(f"compose {path} service {name}", "compose", argv, _env_map(svc.get("environment"))))
    return _pick(lives, f"compose file {path}")


def read_inspect(path: Path) -> list[Live]:
    """`docker inspect` output (a list of containers): `Config.Entrypoint`, `Config.Cmd`, `Config.Env`."""
    try:
        doc = json.loads(_read(path, "inspect output"))
    except json.JSONDecodeError as err:
        raise BadInput(f"cannot read inspect output {path}: not JSON ({err.msg})", where="--inspect") from None
    lives = []
    for item in doc if isinstance(doc, list) else [doc]:
        config = item.get("Config") if isinstance(item, dict) else None
        if not isinstance(config, dict):
            continue
        argv = _words(config.get("Entrypoint")) + _words(config.get("Cmd"))
        name = str(item.get("Name") or item.get("Id", "?")[:12]).lstrip("/")
        if argv:
            lives.append(_container(f"container {name}", "inspect", argv, _env_map(config.get("Env"))))
    return _pick(lives, f"inspect output {path}")
