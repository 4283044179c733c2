"""A docker compose file: one command record per service that runs an LLM server.

A service is taken when its image, `entrypoint:` or `command:` names vLLM, SGLang,
TensorRT-LLM or another server statedump knows; the others (a database, the app) are left
out. The record's `text` is the command the container runs as the file writes it:
`entrypoint:` then `command:` (a plain or folded `>` scalar as written, a list joined with
shell quoting). With no `entrypoint:` the image's own is not known here, so the text starts
with the image name in its place (`vllm/vllm-openai:latest --model …`), which keeps every
flag readable by `check`. The service's `environment:` is the record's `env`; compose's
`${VAR:-default}` interpolation is resolved with the defaults in the body.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any

import yaml

from statedump.core.errors import StatedumpError
from statedump.core.render.markup import code
from statedump.models import Command
from statedump.models.ids import slugify
from statedump.services.flags import parse_command
from statedump.services.ingest.commandinfo import describe
from statedump.services.ingest.jsonl import Progress, read_text
from statedump.services.ingest.launch import classify, model_of
from statedump.services.ingest.plan import ImportPlan

_SERVERS = re.compile(r"vllm|sglang|trtllm|tensorrt|text-generation|lmdeploy|llama[.-]?cpp|llama-server", re.I)
_INTERPOLATION = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::?-([^}]*))?\}")


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, list):
        return shlex.join(str(v) for v in value)
    return " ".join(str(value).split())


def _split(text: str) -> list[str]:
    try:
        return shlex.split(text)
    except ValueError:
        return text.split()


def _environment(value: Any) -> dict[str, str]:
    if isinstance(value, dict):
        return {str(k): "" if v is None else str(v) for k, v in value.items()}
    out: dict[str, str] = {}
    for item in value if isinstance(value, list) else []:
        name, _, val = str(item).partition("=")
        out[name] = val
    return out


def _defaults(text: str) -> str:
    """`${VAR:-default}` → `default`; a variable without a default stays as written."""
    return _INTERPOLATION.sub(lambda m: m.group(2) if m.group(2) is not None else m.group(0), text)


def _load(path: Path) -> dict[str, Any]:
    text = read_text(path, "docker compose")
    try:
        doc = yaml.safe_load(text)
    except RecursionError:
        raise StatedumpError("nested too deeply to be a compose file", where=path) from None
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        raise StatedumpError(f"not YAML{where}", where=path, hint="expected a docker compose file") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("services"), dict):
        raise StatedumpError("not a docker compose file: no `services:` mapping", where=path, hint="name a compose.yaml")
    services: dict[str, Any] = doc["services"]
    return services


def read(path: Path, progress: Progress | None = None) -> ImportPlan:
    """Read a compose file into a plan of command records, one per server service."""
    services = _load(path)
    plan = ImportPlan("compose", path)
    stem = slugify(path.stem or path.name)
    for name, spec in services.items():
        if not isinstance(spec, dict):
            continue
        image = str(spec.get("image") or "")
        entrypoint, command = _text(spec.get("entrypoint")), _text(spec.get("command"))
        if not _SERVERS.search(" ".join((image, entrypoint, command))):
            continue
        text = " ".join(p for p in (entrypoint or image, command) if p) or image
        if not text:
            continue
        resolved = _split(_defaults(text))
        launch = classify(resolved)
        flag_words = launch.flag_words() if launch else resolved
        model = launch.model if launch else model_of(resolved[1:])
        program = f" {launch.label}" if launch else ""
        title = f"compose service {name} ({image or 'no image'}):{program}" + (f" {model}" if model else "")
        lines = []
        if image:
            lines.append("Image: " + code(image))
        if _defaults(text) != text:
            lines.append("Runs (compose defaults put in): " + code(shlex.join(resolved)))
        if described := describe(parse_command(shlex.join(flag_words), "shell")):
            lines.append(described)
        if ports := spec.get("ports"):
            lines.append("Ports: " + ", ".join(code(str(p)) for p in ports))
        lines.append(f"Service `{name}` of {code(path.name)}.")
        plan.add(
            Command(
                id=slugify(f"{stem}-{name}")[:64].rstrip("-"),
                title=" ".join(title.split())[:300],
                form="shell",
                text=text,
                env=_environment(spec.get("environment")),
                source=f"{path.name}:{name}",
                tags=["compose"] + ([launch.kind] if launch else []),
                body="\n\n".join(lines),
            )
        )
    if not plan.records:
        raise StatedumpError(
            "no service in this compose file runs vLLM, SGLang or another LLM server",
            where=path,
            hint="name the compose file of the server",
        )
    if progress is not None:
        progress(1, 1)
    return plan
