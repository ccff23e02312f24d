"""Endpoint registry, health checks and the blue/green draft switch.

vLLM cannot swap a draft model inside a running server, so switching drafts without downtime
means: start a second server with the new draft, check it, route new requests to it, and let
requests already streaming finish on the old one (`drain_remote` waits for the old server's
own count of running requests, which covers every process). The active name is kept in a small JSON file under Settings.data_dir so the app
and the CLI agree on it.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

import httpx

from app.config import EndpointConfig, Settings
from app.domain import BilingualError, EventKind
from app.llm import net
from audit.files import write_private

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

STATE_FILE = "active_endpoint.json"
TOKENIZE_SAMPLE = (
    "根据《中华人民共和国个人信息保护法》第三十八条，个人信息处理者向境外提供个人信息。"
)


class RouterError(BilingualError, ValueError):
    """An unknown endpoint name or a switch that was refused."""


@dataclass(frozen=True)
class Health:
    """Result of GET /health and GET /v1/models on one endpoint."""

    name: str
    base_url: str
    healthy: bool
    models: tuple[str, ...] = ()
    latency_ms: float | None = None
    error: str | None = None


def server_root(base_url: str) -> str:
    return base_url.rstrip("/").removesuffix("/v1")


def _headers(ep: EndpointConfig) -> dict[str, str]:
    return {} if ep.api_key in ("", "not-needed") else {"Authorization": f"Bearer {ep.api_key}"}


def check_health(name: str, ep: EndpointConfig, *, timeout_s: float = 3.0) -> Health:
    """GET /health then /v1/models with a short timeout; never raises."""
    start = time.perf_counter()
    try:
        with net.client(timeout=timeout_s, headers=_headers(ep)) as session:
            session.get(f"{server_root(ep.base_url)}/health").raise_for_status()
            resp = session.get(f"{ep.base_url.rstrip('/')}/models")
            resp.raise_for_status()
            ids = tuple(str(m["id"]) for m in resp.json().get("data", []))
    except (httpx.HTTPError, ValueError, KeyError, TypeError) as exc:
        return Health(name, ep.base_url, False, error=f"{type(exc).__name__}: {exc}")
    ms = (time.perf_counter() - start) * 1000
    if ep.model and ep.model not in ids:
        return Health(name, ep.base_url, False, ids, ms, f"model {ep.model!r} not served ({ids})")
    return Health(name, ep.base_url, True, ids, ms)


def tokenize(
    ep: EndpointConfig, model: str, text: str, *, timeout_s: float = 5.0
) -> list[int] | None:
    """POST /tokenize (vLLM and the embedded server); None where the server has no such route."""
    try:
        resp = net.post(
            f"{server_root(ep.base_url)}/tokenize",
            json={"model": model, "prompt": text},
            headers=_headers(ep),
            timeout=timeout_s,
        )
        resp.raise_for_status()
        return [int(t) for t in resp.json()["tokens"]]
    except (httpx.HTTPError, ValueError, KeyError, TypeError):
        return None


@dataclass(frozen=True)
class TokenizerMatch:
    compatible: bool
    method: str  # tokenize | model-id
    detail: str


def compare_tokenizers(
    current: EndpointConfig, cur_model: str, new: EndpointConfig, new_model: str
) -> TokenizerMatch:
    """Same tokens for a sample text on both servers (or, without /tokenize, the same model id)."""
    a = tokenize(current, cur_model, TOKENIZE_SAMPLE)
    b = tokenize(new, new_model, TOKENIZE_SAMPLE) if a is not None else None
    if a is not None and b is not None:
        same = a == b
        return TokenizerMatch(same, "tokenize", f"{len(a)} vs {len(b)} tokens, identical={same}")
    same = cur_model == new_model
    return TokenizerMatch(same, "model-id", f"{cur_model} vs {new_model}")


class Router:
    """The active endpoint; thread-safe; persists the active name to a file."""

    def __init__(
        self, endpoints: dict[str, EndpointConfig], *, state_file: Path, default: str
    ) -> None:
        if default not in endpoints:
            raise RouterError(f"未知端点：{default}", f"unknown endpoint: {default}")
        self.endpoints = dict(endpoints)
        self.state_file = state_file
        self._default = default
        self._lock = threading.Lock()

    @classmethod
    def from_settings(cls, settings: Settings) -> Router:
        return cls(
            settings.all_endpoints(),
            state_file=settings.data_dir / STATE_FILE,
            default=settings.default_endpoint,
        )

    def _read_state(self) -> dict[str, object]:
        try:
            data = json.loads(self.state_file.read_text(encoding="utf-8"))
            return data if isinstance(data, dict) else {}
        except (OSError, ValueError):
            return {}

    @property
    def active(self) -> str:
        """The persisted active name if it is still a known endpoint, else the default."""
        name = self._read_state().get("active")
        return name if isinstance(name, str) and name in self.endpoints else self._default

    def endpoint(self, name: str) -> EndpointConfig:
        if name not in self.endpoints:
            known = ", ".join(self.endpoints)
            raise RouterError(
                f"未知端点：{name}（已配置：{known}）", f"unknown endpoint: {name} (known: {known})"
            )
        return self.endpoints[name]

    def switch(self, name: str, *, actor: str = "") -> str:
        """Make `name` active for new requests (atomic file replace); returns the previous name."""
        self.endpoint(name)
        with self._lock:
            previous = self.active
            state = {
                "active": name,
                "previous": previous,
                "switched_at": datetime.now(UTC).isoformat(timespec="seconds"),
                "actor": actor,
            }
            write_private(self.state_file, json.dumps(state, ensure_ascii=False).encode("utf-8"))
            return previous


@dataclass(frozen=True)
class SwitchResult:
    previous: str
    active: str
    health: Health
    tokenizer: TokenizerMatch | None
    event_id: int | None
    drained: bool | None = None


def remote_running(ep: EndpointConfig) -> float | None:
    """Requests the server itself reports as running (vllm:num_requests_running), all clients."""
    from app.llm.metrics_parse import RUNNING, scrape

    snap = scrape(ep)
    return snap.gauges.get(RUNNING) if snap.ok else None


def drain_remote(ep: EndpointConfig, timeout_s: float, *, poll_s: float = 0.5) -> bool:
    """Wait until the old server has no running requests (from any process) or it is gone."""
    deadline = time.monotonic() + timeout_s
    while True:
        running = remote_running(ep)
        if not running:  # 0, or the server is unreachable: nothing left to wait for
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(poll_s)


def _served_model(ep: EndpointConfig, health: Health) -> str:
    return ep.model or (health.models[0] if health.models else "")


def switch_endpoint(
    router: Router,
    name: str,
    *,
    actor: str,
    session: Session | None,
    force: bool = False,
) -> SwitchResult:
    """Check `name` (health, models, tokenizer vs the current target), make it active, and
    audit it as an event in `session` (None: not recorded), which the caller commits.

    Raises RouterError (bilingual) when the new endpoint is unhealthy or its tokenizer differs
    (unless force). Draining the old endpoint is left to the caller (drain_remote).
    """
    new_ep = router.endpoint(name)
    previous = router.active
    health = check_health(name, new_ep)
    if not health.healthy:
        raise RouterError(
            f"端点 {name} 不健康，未切换：{health.error}",
            f"endpoint {name} is unhealthy, not switched: {health.error}",
        )
    if previous == name:
        return SwitchResult(previous, name, health, None, None)
    match: TokenizerMatch | None = None
    old_ep = router.endpoint(previous)
    old_health = check_health(previous, old_ep)
    if old_health.healthy:  # an old endpoint that is down cannot be compared; switch anyway
        match = compare_tokenizers(
            old_ep, _served_model(old_ep, old_health), new_ep, _served_model(new_ep, health)
        )
    if match is not None and not match.compatible and not force:
        raise RouterError(
            f"分词器与当前目标模型不一致，未切换（{match.method}：{match.detail}）；--force 可强制切换",
            f"tokenizer differs from the current target, not switched "
            f"({match.method}: {match.detail}); --force to override",
        )
    router.switch(name, actor=actor)
    event_id = None
    if session is not None:
        from audit.store import append_event

        event_id = append_event(
            session=session,
            actor=actor,
            kind=EventKind.ENDPOINT_SWITCH,
            payload={
                "from": previous,
                "to": name,
                "base_url": new_ep.base_url,
                "models": list(health.models),
                "label": new_ep.label,
                "tokenizer_check": match.method if match else "skipped",
                "forced": force,
            },
        )
    return SwitchResult(previous, name, health, match, event_id)
