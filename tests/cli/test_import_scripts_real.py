"""Launch scripts, unit files and compose files as people write them (tests/corpus_real/files/scripts).

Each behaviour is shown on a real corpus file where one has it, on a small inline script
otherwise. The corpus's hand-written expectations (expected/scripts/*.yaml) are checked too:
every fact is a record of that kind and status holding the match, and no junk is a title.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from helpers import CORPUS_REAL, Cli, snapshot

from statedump.core.store.store import Store
from statedump.models import Command
from statedump.services.ingest import read_plan

SCRIPTS = CORPUS_REAL / "files" / "scripts"
EXPECTED = sorted((CORPUS_REAL / "expected" / "scripts").glob("*.yaml"))


def _commands(fmt: str, path: Path) -> list[Command]:
    records = read_plan(fmt, path).records
    assert all(isinstance(r, Command) for r in records)
    return records  # type: ignore[return-value]


def _real(name: str) -> list[Command]:
    fmt = "systemd" if name.endswith(".service") else "compose" if name.endswith((".yml", ".yaml")) else "shell"
    return _commands(fmt, SCRIPTS / name)


def _inline(tmp_path: Path, text: str, name: str = "run.sh", fmt: str = "shell") -> list[Command]:
    path = tmp_path / name
    path.write_text(text)
    return _commands(fmt, path)


def _blob(c: Command) -> str:
    return "\n".join([c.title, c.body or "", c.text, c.purpose or "", *(f"{k}={v}" for k, v in c.env.items())]).lower()


@pytest.mark.parametrize("expected", EXPECTED, ids=[p.name for p in EXPECTED])
def test_corpus_facts_are_captured_and_no_junk_is_a_title(expected: Path) -> None:
    case: dict[str, Any] = yaml.safe_load(expected.read_text())
    records = _commands(case["format"], CORPUS_REAL / case["source"])
    for fact in case["facts"]:
        assert any(c.kind == fact["kind"] and c.status == fact["status"] and fact["match"].lower() in _blob(c) for c in records), fact
    for junk in case.get("junk", []):
        bare = junk.lstrip("# ").strip().lower()
        assert not any(bare in c.title.lower() for c in records), junk
    for c in records:  # a title is the program, never a test, a case or a flag
        assert not c.title.startswith(("[[", "[ ", "case", "if ", "--", "echo")), c.title


def test_one_record_per_launch_in_a_notes_file() -> None:
    # Six launches; `docker pull` and `docker exec` are steps, not records.
    records = _real("sglang_h200_docker_dev_commands.txt")
    assert [c.tags[1] for c in records] == ["container", "server", "server", "server", "server", "benchmark"]
    assert records[0].title == "docker run lmsysorg/sglang:latest (sglang_h200_docker_dev_commands.txt)"
    assert "`docker pull lmsysorg/sglang:dev`" in (records[0].body or "")
    # Section headings stay out of titles; the comment right above a launch is its purpose.
    assert records[1].purpose == "Benchmarking Llama 3.3 70B on 4 x H200 (bf16)"


def test_commented_out_launches_are_previous_records() -> None:
    (vllm, sglang) = _real("sglang_mistral_commented_vllm.sh")
    assert vllm.status == "previous" and "commented-out" in vllm.tags
    # The commented continuation line belongs to it, without the `#`.
    assert vllm.text == (
        "python -m vllm.entrypoints.openai.api_server --model mistralai/Mistral-7B-Instruct-v0.3 --port 8000 --tokenizer-mode mistral \\\n"
        "    --dtype bfloat16"
    )
    assert sglang.status == "current" and sglang.text.startswith("CUDA_VISIBLE_DEVICES=0 python -m sglang.launch_server --port 7501")
    assert "`CUDA_VISIBLE_DEVICES=0`" in (sglang.body or "")


def test_commented_flag_fragments_and_notes_are_not_commands() -> None:
    live, debug = _real("sglang_deepseek_r1_mi300x_run_server.sh")
    assert (live.status, debug.status) == ("current", "previous")
    assert debug.text.startswith("ZZD=1 python -m sglang.launch_server") and debug.purpose == "for vscode debug"
    # `# --dp 8 --enable-dp-attention` is a fragment, not a launch.
    assert all("--dp 8" not in c.text for c in (live, debug))


def test_commented_install_instructions_are_not_commands(tmp_path: Path) -> None:
    records = _inline(
        tmp_path,
        "# Install:\n#   pip install vllm\n#   sudo systemctl enable --now vllm\n# docker pull vllm/vllm-openai\n"
        "vllm serve Qwen/Qwen3-8B --port 8000\n",
    )
    assert [c.status for c in records] == ["current"]
    assert records[0].title == "vllm serve Qwen/Qwen3-8B (run.sh)"


def test_variables_are_resolved_and_the_text_stays_verbatim() -> None:
    (launch,) = _real("vllm_start_guarded_exec_nvfp4.sh")
    assert '--model "$MODEL"' in launch.text and launch.text.startswith('exec "$HOME/miniconda3/envs/llm/bin/python"')
    assert "--model RedHatAI/Qwen3.5-122B-A10B-NVFP4" in (launch.body or "")
    assert launch.title.startswith("python -m vllm.entrypoints.openai.api_server RedHatAI/Qwen3.5-122B-A10B-NVFP4")
    assert launch.env["CUDA_VISIBLE_DEVICES"] == "0" and launch.env["VLLM_WORKER_MULTIPROC_METHOD"] == "spawn"
    # The guard's `pgrep` and `echo` lines are not records; the page-cache drop is a step before it.
    assert "`sudo sysctl vm.drop_caches=3`" in (launch.body or "")


def test_arrays_and_conditional_appends() -> None:
    (launch,) = _real("vllm_server_args_array_mtp.sh")
    assert launch.text == 'vllm serve "${ARGS[@]}"'
    body = launch.body or ""
    assert "`--tool-call-parser qwen3_coder`" in body and "`--max-model-len 262144`" in body
    assert 'Only when `if [ "${NUM_SPEC_TOKENS}" -gt 0 ]`' in body and "num_speculative_tokens" in body
    # LANGUAGE_ONLY defaults to false, so that append is not in what runs, only named.
    assert 'Only when `if [ "${LANGUAGE_ONLY}" = "true" ] (false with the script\'s values)`: `--language-model-only`' in body
    assert "--language-model-only" not in body.split("\n\n")[0]
    # `SCRIPT_DIR=$(cd …)` and the other script variables are not environment variables.
    assert launch.env == {} and "SCRIPT_DIR=" not in body


def test_functions_case_and_if(tmp_path: Path) -> None:
    records = _inline(
        tmp_path,
        "MODEL=meta-llama/Llama-3.1-8B-Instruct\nARGS=(--tp 2)\nARGS+=(--port 30000)\n"
        'start() {\n  python -m sglang.launch_server --model-path "$MODEL" "${ARGS[@]}" --host "$1"\n}\n'
        'if [[ -n "$DEBUG" ]]; then\n  ARGS+=(--log-level debug)\nfi\n'
        'case "$1" in\n  bench) python -m sglang.bench_serving --backend sglang --num-prompts 10 ;;\n'
        "  *) start 0.0.0.0 ;;\nesac\n",
    )
    bench, server = sorted(records, key=lambda c: c.tags[1])
    assert bench.tags[1] == "benchmark" and 'Inside: `case "$1" in bench)`' in (bench.body or "")
    assert server.title == "python -m sglang.launch_server meta-llama/Llama-3.1-8B-Instruct (run.sh)"
    body = server.body or ""
    assert "--tp 2 --port 30000 --log-level debug --host 0.0.0.0" in body and "Inside: `function start`" in body
    assert 'Only when `if [[ -n "$DEBUG" ]]`: `--log-level debug`' in body


def test_conditions_known_from_the_script_decide_what_runs(tmp_path: Path) -> None:
    (launch,) = _inline(
        tmp_path,
        'MODE=fast\nTP=1\nif [ "$MODE" = "fast" ]; then TP=4; else TP=8; fi\n'
        'EXTRA=()\nif [ -z "$MODE" ]; then EXTRA+=(--enforce-eager); fi\n'
        'if [ -n "$UNSET_FROM_OUTSIDE" ]; then EXTRA+=(--debug); fi\n'
        'vllm serve Qwen/Qwen3-8B --tensor-parallel-size "$TP" "${EXTRA[@]}"\n',
    )
    runs = (launch.body or "").split("\n\n")[0]
    assert runs == "Runs: `vllm serve Qwen/Qwen3-8B --tensor-parallel-size 4 --debug`"  # unknown: kept, and named


def test_docker_run_wraps_the_launch() -> None:
    (run,) = _real("sglang_rocm_docker_run_deepseek_r1.sh")
    assert run.title.startswith("docker run rocm/sgl-dev:20250701: python3 -m sglang.launch_server /mnt/resource_nvme/DeepSeek-R1-0528")
    body = run.body or ""
    assert "`--chunked-prefill-size 131072`" in body and "`--device" not in body  # the server's flags, not docker's
    assert "`HSA_NO_SCRATCH_RECLAIM=1`" in body and "Image: `rocm/sgl-dev:20250701`" in body


def test_systemd_run_wrapper_and_exports() -> None:
    (launch,) = _real("vllm_systemd_run_scope_72b_tp8.sh")
    assert launch.title.startswith("python3 -m vllm.entrypoints.openai.api_server Qwen/Qwen2.5-72B-Instruct-GPTQ-Int8")
    assert launch.text.startswith("systemd-run --user --scope -p MemoryMax=90%")
    assert launch.env["NCCL_P2P_DISABLE"] == "1"


def test_unparsable_script_and_bad_files_are_one_line_exit_2(cli: Cli, store: Store, tmp_path: Path) -> None:
    broken = tmp_path / "broken.sh"
    broken.write_text('if [ -d x ]; then\n  echo "open\nfi (((\n')
    binary = tmp_path / "blob.sh"
    binary.write_bytes(b"\x7fELF\x00\x01" * 100)
    huge = tmp_path / "huge.sh"
    huge.write_text("# padding\n" * 500_000)
    compose = tmp_path / "compose.yml"
    compose.write_text("services:\n  db:\n    image: postgres:16\n")
    before = snapshot(store.root)
    for fmt, path, says in (
        ("shell", broken, "syntax error at line"),
        ("shell", binary, "binary"),
        ("shell", huge, "limit"),
        ("compose", compose, "no service"),
        ("compose", SCRIPTS / "vllm_ornith.service", "compose"),
    ):
        r = cli("import", fmt, str(path))
        assert r.exit_code == 2 and r.stderr.count("\n") == 1 and says in r.stderr, (path, r.stderr)
    assert snapshot(store.root) == before


def test_syntax_error_beside_a_launch_is_a_skipped_line(tmp_path: Path) -> None:
    path = tmp_path / "run.sh"
    path.write_text("vllm serve Qwen/Qwen3-8B --port 8000\nfi )\n")
    plan = read_plan("shell", path)
    assert len(plan.records) == 1 and [s.line for s in plan.skipped] == [2]


def test_systemd_continuations_environment_and_steps() -> None:
    (unit,) = _real("vllm_ornith.service")
    body = unit.body or ""
    assert unit.title == "systemd unit vllm_ornith.service: vllm serve"
    assert "`--quantization gptq_marlin`" in body and "`VLLM_ATTENTION_BACKEND=FLASH_ATTN`" in body
    (wrapper,) = _real("vllm_user_unit_qwen36_spark.service")
    assert wrapper.title == "systemd unit vllm_user_unit_qwen36_spark.service: vllm-server.sh"
    assert "`MODEL_REPO=cyankiwi/Qwen3.6-35B-A3B-AWQ-4bit`" in (wrapper.body or "")


def test_systemd_docker_compose_unit_keeps_its_steps(tmp_path: Path) -> None:
    (unit,) = _inline(
        tmp_path,
        "[Unit]\nDescription=vLLM in compose\n\n[Service]\nEnvironmentFile=-/etc/vllm.env\n"
        "ExecStartPre=-/usr/bin/docker compose -f /opt/vllm/compose.yml pull\n"
        "ExecStart=/usr/bin/docker compose -f /opt/vllm/compose.yml up\n"
        "ExecStartPost=/usr/local/bin/wait-healthy http://localhost:8000/health\n"
        "ExecStop=/usr/bin/docker compose -f /opt/vllm/compose.yml down\n",
        name="vllm.service",
        fmt="systemd",
    )
    assert unit.title == "systemd unit vllm.service: docker compose -f /opt/vllm/compose.yml up"
    body = unit.body or ""
    assert "After start (`ExecStartPost`): `/usr/local/bin/wait-healthy http://localhost:8000/health`" in body
    assert "Stop (`ExecStop`): `/usr/bin/docker compose -f /opt/vllm/compose.yml down`" in body
    assert "Before start (`ExecStartPre`)" in body and "Environment file: `/etc/vllm.env`" in body


def test_systemd_docker_run_and_variables(tmp_path: Path) -> None:
    (unit,) = _inline(
        tmp_path,
        "[Service]\nEnvironment=MODEL=Qwen/Qwen3-8B TP=2\n"
        "ExecStart=/usr/bin/docker run --rm --gpus all -p 8000:8000 \\\n"
        "    vllm/vllm-openai:v0.11.0 \\\n"
        "# a comment inside the continuation is skipped\n"
        "    vllm serve ${MODEL} --tensor-parallel-size $TP\n",
        name="vllm-docker.service",
        fmt="systemd",
    )
    assert unit.title == "systemd unit vllm-docker.service: docker run vllm/vllm-openai:v0.11.0"
    body = unit.body or ""
    assert "`--tensor-parallel-size 2`" in body and "`-p 8000:8000`" not in body
    assert "vllm serve Qwen/Qwen3-8B --tensor-parallel-size 2" in body


def test_compose_entrypoint_and_plain_multiline_command() -> None:
    (svc,) = _real("compose_sglang_official.yaml")
    assert svc.id == "compose-sglang-official-sglang"
    assert svc.text == "python3 -m sglang.launch_server --model-path meta-llama/Meta-Llama-3.1-8B-Instruct --host 0.0.0.0 --port 30000"
    assert svc.title.startswith("compose service sglang (lmsysorg/sglang:latest): python3 -m sglang.launch_server")
    assert set(svc.env) == {"HF_TOKEN"}


def test_compose_folded_command_and_interpolation() -> None:
    (svc,) = _real("compose_vllm_gemma_healthcheck.yml")
    assert svc.text.startswith("vllm/vllm-openai:latest --model ${VLLM_MODEL:-google/gemma-4-E4B-it} --tensor-parallel-size")
    assert "`--max-model-len 32768`" in (svc.body or "") and svc.env == {"HF_TOKEN": "${HF_TOKEN:-}"}
    assert svc.title == "compose service vllm (vllm/vllm-openai:latest): google/gemma-4-E4B-it"


@pytest.mark.parametrize(
    ("fmt", "name"),
    [("shell", "vllm_server_args_array_mtp.sh"), ("systemd", "vllm_qwen_vl.service"), ("compose", "compose_sglang_official.yaml")],
)
def test_second_import_adds_nothing(cli: Cli, store: Store, fmt: str, name: str) -> None:
    first = cli("import", fmt, str(SCRIPTS / name))
    assert first.exit_code == 0 and "1 added" in first.stdout, first.output
    before = snapshot(store.root)
    again = cli("import", fmt, str(SCRIPTS / name))
    assert again.exit_code == 0 and "0 added, 0 changed" in again.stdout and "nothing to write" in again.stdout
    assert snapshot(store.root) == before


def test_the_parser_is_loaded_only_when_a_script_is_read() -> None:
    code = (
        "import sys\nfrom statedump.cli import main\n"
        "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
        "import statedump.services.ingest.shell\n"
        "assert 'tree_sitter' not in sys.modules, 'loaded too early'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, capture_output=True)
