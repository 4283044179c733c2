"""Which command lines start an LLM server or a benchmark, seen through their wrappers.

A launch is written many ways: `python -m sglang.launch_server`, `sglang serve`, `vllm
serve`, `python -m vllm.entrypoints.openai.api_server`, `trtllm-serve`, each possibly
behind `exec`, `nohup`, `sudo`, `env`, `numactl`, `taskset`, `timeout`, `systemd-run`,
`uv run` or `VAR=value` prefixes, or inside `docker run IMAGE …` / `docker compose up`.
`classify` takes the words of one simple command and says which it is, so that every
importer (shell, systemd, compose) recognises the same launches.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_ASSIGN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_PYTHON = re.compile(r"^python[0-9.]*$")

SERVER_MODULES = {
    "sglang.launch_server",
    "vllm.entrypoints.openai.api_server",
    "vllm.entrypoints.api_server",
    "sglang_router.launch_server",
    "sglang_router.launch_router",
    "tensorrt_llm.commands.serve",
}
BENCH_MODULES = {"sglang.bench_serving", "sglang.bench_one_batch", "sglang.bench_one_batch_server", "sglang.bench_offline_throughput"}
BENCH_SCRIPTS = {"benchmark_serving.py", "benchmark_throughput.py", "benchmark_latency.py", "bench_serving.py"}
BENCH_PROGRAMS = {"genai-perf", "guidellm", "aiperf", "trtllm-bench"}
SERVER_PROGRAMS = {"trtllm-serve", "text-generation-launcher", "llama-server", "lmdeploy"}
MODEL_FLAGS = ("--model-path", "--model", "--model-name", "--served-model-name")

# Wrappers that run the command after them: options taking a value, per wrapper. An option
# not listed is taken as a switch (`--user`, `-E`); `--opt=value` is always one word.
_WRAPPERS: dict[str, set[str]] = {
    "exec": {"-a"},
    "nohup": set(),
    "setsid": set(),
    "time": set(),
    "command": set(),
    "stdbuf": {"-i", "-o", "-e"},
    "sudo": {"-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U"},
    "env": {"-u", "-C", "-S"},
    "nice": {"-n"},
    "ionice": {"-c", "-n", "-p"},
    "chrt": set(),
    "numactl": {"-N", "-m", "-C", "-p", "-i", "--cpunodebind", "--membind", "--physcpubind", "--preferred", "--interleave"},
    "taskset": set(),
    "timeout": {"-s", "-k", "--signal", "--kill-after"},
    "systemd-run": {"-p", "--property", "-u", "--unit", "--slice", "-E", "--setenv", "-M", "--uid", "--gid", "--nice", "-H"},
    "srun": {"-N", "-n", "-p", "-G", "-c", "-t", "--gres", "--partition", "--nodes", "--ntasks", "--gpus", "--time", "-J", "--job-name"},
}
# Wrappers whose first plain word is theirs, not the command's (a CPU mask, a duration).
_WRAPPER_ARGUMENT = {"taskset", "timeout", "chrt"}
# fmt: off
# (a table: one option per line would be 70 lines)
_DOCKER_VALUE = {
    "-e", "--env", "--env-file", "-v", "--volume", "-p", "--publish", "--name", "--device", "--shm-size",
    "--ulimit", "--gpus", "--net", "--network", "--ipc", "--security-opt", "--cap-add", "--cap-drop", "--group-add", "-w",
    "--workdir", "--entrypoint", "--runtime", "--mount", "-u", "--user", "--label", "-l", "--restart", "-m",
    "--memory", "--cpus", "--cpuset-cpus", "--add-host", "-h", "--hostname", "--log-driver", "--log-opt", "--platform", "--pull",
    "--pid", "--userns", "--uts", "--volumes-from", "--health-cmd", "--health-interval", "--health-retries", "--health-timeout", "--memory-swap", "--stop-signal",
    "--stop-timeout", "--tmpfs", "--dns", "--expose", "--cgroupns", "--cidfile", "--device-cgroup-rule", "--link", "--label-file", "--mac-address",
    "--ip", "--sysctl", "--storage-opt", "-a", "--attach",
}
# fmt: on
_DOCKER_GLOBAL_VALUE = {"--context", "-c", "-H", "--host", "--config", "-l", "--log-level"}
_COMPOSE_VALUE = {"-f", "--file", "-p", "--project-name", "--profile", "--env-file", "--project-directory", "--ansi", "--progress"}


@dataclass(frozen=True)
class Launch:
    """A server start, a benchmark run, or a container start, read from one command's words."""

    kind: str
    """`server`, `benchmark`, `container` (docker run) or `compose` (docker compose up)."""
    label: str
    """The program as people name it: `python3 -m sglang.launch_server`, `vllm serve`, `docker run IMAGE`."""
    words: list[str]
    """The program's words from the program on (wrappers left out): what its flags are read from."""
    model: str | None = None
    image: str | None = None
    inner: Launch | None = None
    """The server a container runs, when its command is one."""
    container_env: dict[str, str] = field(default_factory=dict)

    def title(self) -> str:
        if self.kind == "container":
            inner = f": {self.inner.title()}" if self.inner else ""
            return f"{self.label}{inner}"
        return f"{self.label} {self.model}" if self.model else self.label

    def flag_words(self) -> list[str]:
        """The words whose flags matter: the server's inside a container, else the program's."""
        if self.kind == "container" and self.inner is not None:
            return self.inner.words
        return self.words


def model_of(args: list[str], positional: bool = False) -> str | None:
    """The model a server is given: `--model-path X`, `--model=X`, or the first plain argument."""
    if positional and args and not args[0].startswith("-"):
        return args[0]
    for name in MODEL_FLAGS:
        for i, word in enumerate(args):
            if word == name and i + 1 < len(args):
                return args[i + 1]
            if word.startswith(name + "="):
                return word.split("=", 1)[1]
    return None


def _unwrap(words: list[str]) -> list[str]:
    """The words from the real program on: `VAR=x`, `sudo -E`, `nohup`, `systemd-run -p …` left out."""
    i = 0
    while i < len(words):
        word = words[i]
        name = word.rsplit("/", 1)[-1]
        if _ASSIGN.match(word):
            i += 1
            continue
        if name in ("uv", "conda", "poetry", "pixi", "micromamba") and i + 1 < len(words) and words[i + 1] == "run":
            i += 2
            while i < len(words) and words[i].startswith("-"):
                i += 2 if words[i] in ("-n", "--name", "-p", "--prefix", "--with", "--python") else 1
            continue
        if name not in _WRAPPERS:
            return words[i:]
        values = _WRAPPERS[name]
        i += 1
        while i < len(words) and (words[i].startswith("-") or _ASSIGN.match(words[i])):
            i += 2 if words[i] in values else 1
        if name in _WRAPPER_ARGUMENT and i < len(words):
            i += 1
    return []


def classify(words: list[str]) -> Launch | None:
    """What a command starts, or None when it is neither a server, a benchmark nor a container."""
    words = _unwrap(words)
    if not words:
        return None
    program = words[0].rsplit("/", 1)[-1]
    rest = words[1:]
    if _PYTHON.match(program):
        i = 0
        while i < len(rest) and rest[i].startswith("-") and rest[i] != "-m":
            i += 2 if rest[i] in ("-X", "-W") else 1
        if i < len(rest) and rest[i] == "-m" and i + 1 < len(rest):
            module, args = rest[i + 1], rest[i + 2 :]
            label = f"{program} -m {module}"
            # The module stands for the program: python's own switches are not its flags.
            if module in SERVER_MODULES:
                return Launch("server", label, [module, *args], model_of(args))
            if module in BENCH_MODULES or module.startswith(("vllm.benchmarks", "sglang.bench_")):
                return Launch("benchmark", label, [module, *args], model_of(args))
            return None
        if i < len(rest) and rest[i].rsplit("/", 1)[-1] in BENCH_SCRIPTS:
            return Launch("benchmark", f"{program} {rest[i].rsplit('/', 1)[-1]}", words, model_of(rest[i + 1 :]))
        return None
    sub = rest[0] if rest else ""
    if program in ("vllm", "sglang") and sub == "serve":
        return Launch("server", f"{program} serve", words, model_of(rest[1:], positional=True))
    if program == "vllm" and sub == "bench":
        label = " ".join(["vllm bench", *rest[1:2]]).strip()
        return Launch("benchmark", label, words, model_of(rest[2:]))
    if program in SERVER_PROGRAMS:
        return Launch("server", program, words, model_of(rest, positional=program == "trtllm-serve"))
    if program in BENCH_PROGRAMS:
        return Launch("benchmark", " ".join([program, *rest[:1]]) if rest and not sub.startswith("-") else program, words, model_of(rest))
    if program in ("docker", "podman", "nerdctl"):
        return _docker(program, words)
    if program == "docker-compose":
        return _compose("docker-compose", words, 1)
    return None


def _docker(program: str, words: list[str]) -> Launch | None:
    i = 1
    while i < len(words) and words[i].startswith("-"):
        i += 2 if words[i] in _DOCKER_GLOBAL_VALUE else 1
    if i < len(words) and words[i] == "container":
        i += 1
    if i >= len(words):
        return None
    if words[i] == "compose":
        return _compose(f"{program} compose", words, i + 1)
    if words[i] != "run":
        return None
    i += 1
    env: dict[str, str] = {}
    while i < len(words) and words[i].startswith("-"):
        word = words[i]
        name, eq, value = word.partition("=")
        if not eq and word in _DOCKER_VALUE and i + 1 < len(words):
            value = words[i + 1]
            i += 1
        if name in ("-e", "--env") and "=" in value:
            key, _, val = value.partition("=")
            env[key] = val
        i += 1
    if i >= len(words):
        return None
    image, command = words[i], words[i + 1 :]
    inner = classify(command) if command else None
    return Launch("container", f"{program} run {image}", words, inner.model if inner else model_of(command), image, inner, env)


def _compose(label: str, words: list[str], i: int) -> Launch | None:
    files: list[str] = []
    while i < len(words) and words[i].startswith("-"):
        if words[i] in ("-f", "--file") and i + 1 < len(words):
            files.append(words[i + 1])
        i += 2 if words[i] in _COMPOSE_VALUE else 1
    if i >= len(words) or words[i] not in ("up", "run", "start", "create"):
        return None
    shown = f"{label} {' '.join(f'-f {f}' for f in files)} {words[i]}".replace("  ", " ")
    return Launch("compose", shown, words)


_FAMILIES = (("sglang", "sglang"), ("vllm", "vllm"), ("trtllm", "trtllm"), ("tensorrt_llm", "trtllm"))


def server_family(words: list[str]) -> str | None:
    """`sglang`, `vllm` or `trtllm` when these words start one of those servers (directly or in
    a container), else None: what `drift` matches a live process with its command records by."""
    found = classify(words)
    if found is not None and found.kind == "container":
        found = found.inner
    if found is None or found.kind != "server":
        return None
    head = found.words[0].rsplit("/", 1)[-1]
    return next((family for prefix, family in _FAMILIES if head.startswith(prefix)), None)
