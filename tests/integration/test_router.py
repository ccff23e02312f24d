"""Router, health checks and the blue/green switch against two real embedded servers."""

from __future__ import annotations

import threading
from pathlib import Path

import httpx
import pytest
from sqlalchemy import select

from app.config import EndpointConfig
from app.database import session_scope
from app.llm.router import (
    Router,
    RouterError,
    check_health,
    compare_tokenizers,
    drain_remote,
    switch_endpoint,
)
from audit.db import make_engine, make_session_factory, migrate
from audit.models import Event
from tests.servers import free_port, run_lexspec

pytestmark = pytest.mark.integration


@pytest.fixture()
def router(llm_base_url: str, plain_llm_base_url: str, tmp_path: Path) -> Router:
    endpoints = {
        "spec": EndpointConfig(base_url=llm_base_url, label="embedded, n-gram"),
        "plain": EndpointConfig(base_url=plain_llm_base_url, label="embedded, plain"),
        "dead": EndpointConfig(base_url=f"http://127.0.0.1:{free_port()}/v1"),
    }
    return Router(endpoints, state_file=tmp_path / "active.json", default="spec")


@pytest.fixture()
def session_factory(tmp_path: Path):  # type: ignore[no-untyped-def]
    engine = make_engine(f"sqlite:///{tmp_path / 'audit.db'}")
    migrate(engine)
    yield make_session_factory(engine)
    engine.dispose()


def _stream(ep: EndpointConfig, done: threading.Event, out: list[str]) -> None:
    body = {
        "model": check_health("", ep).models[0],
        "messages": [{"role": "user", "content": "请列出保密协议的五个要点。"}],
        "max_tokens": 48,
        "temperature": 0,
        "stream": True,
    }
    with httpx.stream("POST", f"{ep.base_url}/chat/completions", json=body, timeout=60) as r:
        for line in r.iter_lines():
            out.append(line)
    done.set()


def test_health_and_tokenizers(router: Router) -> None:
    spec = check_health("spec", router.endpoint("spec"))
    plain = check_health("plain", router.endpoint("plain"))
    assert spec.healthy and plain.healthy and spec.models
    dead = check_health("dead", router.endpoint("dead"), timeout_s=0.5)
    assert not dead.healthy and dead.error
    wrong_model = EndpointConfig(base_url=router.endpoint("spec").base_url, model="no-such-model")
    assert not check_health("x", wrong_model).healthy
    match = compare_tokenizers(
        router.endpoint("spec"), spec.models[0], router.endpoint("plain"), plain.models[0]
    )
    assert match.compatible and match.method == "tokenize"


def test_switch_drains_old_stream_and_is_audited(router: Router, session_factory) -> None:  # type: ignore[no-untyped-def]
    assert router.active == "spec"
    done, lines = threading.Event(), []
    worker = threading.Thread(target=_stream, args=(router.endpoint("spec"), done, lines))
    worker.start()
    with session_scope(session_factory) as session:
        result = switch_endpoint(router, "plain", actor="test", session=session)
    assert (result.previous, result.active) == ("spec", "plain")
    assert result.tokenizer is not None and result.tokenizer.compatible
    assert router.active == "plain"  # new requests go to the new endpoint
    worker.join(timeout=60)  # the stream in flight finishes on the old one
    assert done.is_set() and [x for x in lines if x][-1] == "data: [DONE]"
    assert drain_remote(router.endpoint("spec"), timeout_s=5)
    # another process (a new Router on the same state file) agrees on the active endpoint
    assert Router(router.endpoints, state_file=router.state_file, default="spec").active == "plain"
    with session_factory() as session:
        event = session.scalars(select(Event).where(Event.id == result.event_id)).one()
    assert event.kind == "endpoint.switch" and event.actor == "test"
    assert event.payload["from"] == "spec" and event.payload["to"] == "plain"


def test_refused_switches_leave_active_unchanged(router: Router) -> None:
    with pytest.raises(RouterError, match="unknown endpoint"):
        switch_endpoint(router, "nope", actor="test", session=None)
    with pytest.raises(RouterError, match="unhealthy"):
        switch_endpoint(router, "dead", actor="test", session=None)
    assert router.active == "spec"
    same = switch_endpoint(router, "spec", actor="test", session=None)
    # already active: nothing to do or audit
    assert (same.previous, same.active, same.event_id) == ("spec", "spec", None)


def test_cli_switch_persists_and_is_shared(
    llm_base_url: str, plain_llm_base_url: str, tmp_path: Path
) -> None:
    import json
    import os
    import subprocess

    endpoints = {"spec": {"base_url": llm_base_url}, "plain": {"base_url": plain_llm_base_url}}
    env = {
        **os.environ,
        "LEXSPEC_DATA_DIR": str(tmp_path),
        "LEXSPEC_DATABASE_URL": f"sqlite:///{tmp_path / 'cli.db'}",
        "LEXSPEC_ENDPOINTS": json.dumps(endpoints),
        "LEXSPEC_DEFAULT_ENDPOINT": "spec",
        "LEXSPEC_LLM_BASE_URL": llm_base_url,
    }

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return run_lexspec("endpoints", *args, env=env)

    switched = cli("switch", "plain", "--drain-timeout", "30", "--actor", "ops")
    assert switched.returncode == 0, switched.stderr
    assert "spec → plain" in switched.stdout and "identical=True" in switched.stdout
    assert json.loads((tmp_path / "active_endpoint.json").read_text())["active"] == "plain"
    listed = cli("list").stdout.splitlines()
    assert any(line.startswith("* plain") for line in listed)
    refused = cli("switch", "nope")
    assert refused.returncode == 2 and "unknown endpoint" in refused.stderr
    assert "Traceback" not in refused.stderr
