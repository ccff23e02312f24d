"""docker-compose.yml, Dockerfile and .env.example fit together (parsed, no engine needed)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pytest
import yaml
from pydantic import TypeAdapter

from app.config import EndpointConfig, Settings

REPO = Path(__file__).resolve().parent.parent.parent
# ${NAME}, ${NAME:-default} / ${NAME-default}, and ${NAME:?message} (required: no default)
VAR = re.compile(r"\$\{([A-Z0-9_]+)(?::?([-?])([^}]*))?\}")
CONTAINER_PORT = {"vllm-spec": 8000, "vllm-plain": 8000, "embedded": 8001, "db": 5432}
MODEL_SERVERS = ("vllm-spec", "vllm-plain", "embedded")  # no authentication of their own
REQUIRED_VALUE = "a-password-from-env"  # what an operator's .env supplies for ${NAME:?...}


def _defaults(text: str) -> str:
    """Compose interpolation with every variable at its default ($$ is a literal $); a required
    variable takes the value an operator would set."""

    def value(m: re.Match[str]) -> str:
        return REQUIRED_VALUE if m.group(2) == "?" else m.group(3) or ""

    return VAR.sub(value, text).replace("$$", "$")


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    return yaml.safe_load(_defaults((REPO / "docker-compose.yml").read_text()))


@pytest.fixture(scope="module")
def services(compose: dict[str, Any]) -> dict[str, Any]:
    return compose["services"]


def _flag(cmd: list[str], flag: str) -> str:
    return cmd[cmd.index(flag) + 1]


def test_services_and_profiles(services: dict[str, Any]) -> None:
    assert set(services) == {"db", "vllm-spec", "vllm-plain", "app", "embedded", "app-cpu"}
    profiles = {name: tuple(s.get("profiles", ())) for name, s in services.items()}
    assert profiles == {"db": (), "vllm-spec": (), "app": (), "vllm-plain": ("ab",),
                        "embedded": ("cpu",), "app-cpu": ("cpu",)}  # fmt: skip


def test_vllm_spec_runs_target_with_draft(services: dict[str, Any]) -> None:
    spec = services["vllm-spec"]
    assert spec["image"].startswith("vllm/vllm-openai:")
    cmd = [str(c) for c in spec["command"]]
    assert cmd[0] == "Qwen/Qwen3-8B"
    config = json.loads(_flag(cmd, "--speculative-config"))
    assert config == {
        "method": "draft_model",
        "model": "Qwen/Qwen3-0.6B",
        "num_speculative_tokens": 5,
    }
    assert not any(c.startswith(("--draft-model", "--speculative-model")) for c in cmd)
    device = spec["deploy"]["resources"]["reservations"]["devices"][0]
    assert device["capabilities"] == ["gpu"]
    assert any(v.endswith(":/root/.cache/huggingface") for v in spec["volumes"])
    plain = services["vllm-plain"]
    plain_cmd = [str(c) for c in plain["command"]]
    assert plain_cmd[0] == cmd[0] and "--speculative-config" not in plain_cmd
    for s in (spec, plain):
        assert "/health" in " ".join(s["healthcheck"]["test"])
        assert _flag([str(c) for c in s["command"]], "--max-model-len") == "8192"


def test_dependencies_are_healthy_and_profile_consistent(services: dict[str, Any]) -> None:
    for name, s in services.items():
        for dep, cond in s.get("depends_on", {}).items():
            assert cond == {"condition": "service_healthy"}, (name, dep)
            assert "healthcheck" in services[dep], dep
            dep_profiles = set(services[dep].get("profiles", ()))
            assert not dep_profiles or dep_profiles & set(s.get("profiles", ())), (name, dep)
    assert set(services["app"]["depends_on"]) == {"db", "vllm-spec"}
    assert set(services["app-cpu"]["depends_on"]) == {"db", "embedded"}
    assert "pg_isready" in " ".join(services["db"]["healthcheck"]["test"])


def test_app_environment_is_real_settings(services: dict[str, Any]) -> None:
    fields = {f"LEXSPEC_{name.upper()}" for name in Settings.model_fields}
    for name in ("app", "app-cpu", "embedded"):
        env = services[name]["environment"]
        unknown = {k for k in env if k.startswith("LEXSPEC_")} - fields
        assert not unknown, (name, unknown)
        urls = [v for k, v in env.items() if k != "LEXSPEC_ENDPOINTS" and "://" in str(v)]
        endpoints = env.get("LEXSPEC_ENDPOINTS")
        if endpoints:
            parsed = TypeAdapter(dict[str, EndpointConfig]).validate_json(endpoints)
            assert set(parsed) == {"vllm-spec", "vllm-plain"}
            urls += [ep.base_url for ep in parsed.values()]
        for url in urls:
            u = urlparse(url)
            assert u.hostname in services, url  # every URL host is a service name
            assert u.port == CONTAINER_PORT[u.hostname], url
        if name != "embedded":
            assert env["LEXSPEC_DATABASE_URL"].startswith("postgresql+psycopg://")
            assert "lexspec db upgrade" in " ".join(services[name]["command"])
    assert urlparse(services["app"]["environment"]["LEXSPEC_LLM_BASE_URL"]).hostname == "vllm-spec"
    assert (
        urlparse(services["app-cpu"]["environment"]["LEXSPEC_LLM_BASE_URL"]).hostname == "embedded"
    )
    cmd = services["embedded"]["command"]
    assert cmd[:2] == ["lexspec", "serve"] and _flag(cmd, "--host") == "0.0.0.0"


def test_host_ports_do_not_collide(services: dict[str, Any]) -> None:
    host_ports = [p.split(":")[-2] for s in services.values() for p in s.get("ports", [])]
    assert len(host_ports) == len(set(host_ports))


def test_model_servers_are_published_on_localhost_only(services: dict[str, Any]) -> None:
    """vLLM and the embedded server answer anyone who reaches them: this machine only."""
    for name in MODEL_SERVERS:
        ports = services[name]["ports"]
        assert ports and all(p.startswith("127.0.0.1:") for p in ports), (name, ports)
    assert "ports" not in services["db"]


def test_postgres_password_is_required_never_defaulted() -> None:
    text = (REPO / "docker-compose.yml").read_text()
    uses = [m for m in VAR.finditer(text) if m.group(1) == "POSTGRES_PASSWORD"]
    assert len(uses) == 2  # the db service and the app's database URL
    assert all(m.group(2) == "?" and "POSTGRES_PASSWORD" in m.group(3) for m in uses)


def test_docker_compose_refuses_to_start_without_a_postgres_password(tmp_path: Path) -> None:
    cmd = _compose_command()
    if cmd is None:
        pytest.skip("neither `docker compose` nor `docker-compose` is installed")
    example = (REPO / ".env.example").read_text().splitlines()
    env_file = tmp_path / "no-password.env"
    env_file.write_text("\n".join(x for x in example if not x.startswith("POSTGRES_PASSWORD=")))
    env = {k: v for k, v in os.environ.items() if k != "POSTGRES_PASSWORD"}
    run = subprocess.run(
        [*cmd, "--env-file", str(env_file), "config", "--quiet"],
        cwd=REPO, capture_output=True, text=True, timeout=60, env=env,
    )  # fmt: skip
    assert run.returncode != 0
    assert "set POSTGRES_PASSWORD in .env" in run.stderr


def test_env_example_documents_every_variable() -> None:
    used = {m.group(1) for m in VAR.finditer((REPO / "docker-compose.yml").read_text())}
    documented = {
        line.split("=", 1)[0]
        for line in (REPO / ".env.example").read_text().splitlines()
        if "=" in line and not line.startswith("#")
    }
    assert used - documented == set()


def test_dockerfile_installs_like_install_sh_and_drops_root() -> None:
    text = (REPO / "Dockerfile").read_text()
    assert "scripts/install.sh" in text
    final_stage = text.split("\nFROM ")[-1]
    users = re.findall(r"^USER (\S+)", final_stage, flags=re.M)
    assert users and users[-1] not in ("root", "0")
    assert ".venv" in (REPO / ".dockerignore").read_text()


def _compose_command() -> list[str] | None:
    """`docker compose` (v2 plugin) or `docker-compose`, whichever answers `version`."""
    for cmd in (["docker", "compose"], ["docker-compose"]):
        if shutil.which(cmd[0]) is None:
            continue
        if subprocess.run([*cmd, "version"], capture_output=True).returncode == 0:
            return cmd
    return None


def test_docker_compose_config() -> None:
    cmd = _compose_command()
    if cmd is None:
        pytest.skip("neither `docker compose` nor `docker-compose` is installed")
    every_profile = ["--profile", "ab", "--profile", "cpu"]
    run = subprocess.run(
        [*cmd, *every_profile, "--env-file", ".env.example", "config", "--quiet"],
        cwd=REPO, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr


def test_vllm_endpoints_turn_qwen3_thinking_off(services: dict[str, Any]) -> None:
    raw = services["app"]["environment"]["LEXSPEC_ENDPOINTS"]
    endpoints = TypeAdapter(dict[str, EndpointConfig]).validate_json(raw)
    for name in ("vllm-spec", "vllm-plain"):
        assert endpoints[name].chat_template_kwargs == {"enable_thinking": False}
    env_lines = (REPO / ".env.example").read_text().splitlines()
    assert 'LEXSPEC_LLM_CHAT_TEMPLATE_KWARGS={"enable_thinking": false}' in env_lines


def test_every_port_is_published_on_localhost_by_default(services: dict[str, Any]) -> None:
    """Issue 37: the app was published on every interface over plain HTTP. Every published
    port is on 127.0.0.1 unless an operator widens APP_BIND (behind a TLS proxy, the docs say)."""
    published = {name: s.get("ports", []) for name, s in services.items()}
    for name, ports in published.items():
        assert all(p.startswith("127.0.0.1:") for p in ports), (name, ports)
    assert published["app"] and published["app-cpu"]
    raw = (REPO / "docker-compose.yml").read_text()
    assert raw.count("${APP_BIND:-127.0.0.1}:") == 2


def test_the_model_container_sees_the_corpus_only(services: dict[str, Any]) -> None:
    """Issue 37: the embedded model server mounted app-data, which holds the audit and session
    keys and the spool. It mounts the corpus read-only, the volume the app writes it to."""
    embedded = services["embedded"]
    assert embedded["volumes"] == ["corpus:/corpus:ro"]
    assert embedded["environment"]["LEXSPEC_CORPUS_DIR"] == "/corpus"
    assert "LEXSPEC_DATA_DIR" not in embedded["environment"]
    for name in ("app", "app-cpu"):
        assert set(services[name]["volumes"]) == {"app-data:/data", "corpus:/corpus"}
        assert services[name]["environment"]["LEXSPEC_CORPUS_DIR"] == "/corpus"
    dockerfile = (REPO / "Dockerfile").read_text()
    assert "chown lexspec:lexspec /data /corpus" in dockerfile  # the volume is the app's to write


def test_streamlit_listens_on_this_machine_only_by_default() -> None:
    import tomllib

    config = tomllib.loads((REPO / ".streamlit" / "config.toml").read_text(encoding="utf-8"))
    assert config["server"]["address"] == "127.0.0.1"


def test_every_launcher_starts_the_app_with_its_cookie_route() -> None:
    """app/web.py serves app/main.py and the route that sets the session cookie HttpOnly."""
    for path in ("Dockerfile", "docker-compose.yml", "app/commands/run.py"):
        text = (REPO / path).read_text(encoding="utf-8")
        assert "app/main.py" not in text and "web.py" in text, path
