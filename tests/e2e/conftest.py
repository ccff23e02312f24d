"""Real-browser fixtures: the app under `streamlit run` (subprocess) on a temp database,
talking to the real embedded LLM server, driven by a headless system Chromium."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from tests.servers import REPO, free_port

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]
PASSWORD = "e2e-password-1"


@dataclass(frozen=True)
class RunningApp:
    url: str
    database_url: str
    env: dict[str, str]


def _wait_healthy(url: str, proc: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"streamlit exited: {log.read_text()[-2000:]}")
        try:
            if httpx.get(f"{url}/_stcore/health", timeout=1).text == "ok":
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.3)
    raise RuntimeError(f"streamlit did not become healthy: {log.read_text()[-2000:]}")


@pytest.fixture(scope="module")
def running_app(
    llm_base_url: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[RunningApp]:
    """`streamlit run app/main.py` with its own temp data dir and database."""
    data = tmp_path_factory.mktemp("e2e-data")
    database_url = f"sqlite:///{data / 'e2e.db'}"
    env = {
        **os.environ,
        "LEXSPEC_DATA_DIR": str(data),
        "LEXSPEC_DATABASE_URL": database_url,
        "LEXSPEC_LLM_BASE_URL": llm_base_url,
        "LEXSPEC_LANG": "zh",
    }
    port = free_port()
    log = data / "streamlit.log"
    cmd = [
        sys.executable, "-m", "streamlit", "run", str(Path("app") / "main.py"),
        "--server.port", str(port), "--server.headless", "true",
        "--browser.gatherUsageStats", "false",
    ]  # fmt: skip
    with open(log, "wb") as out:
        proc = subprocess.Popen(cmd, cwd=REPO, env=env, stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_healthy(url, proc, log)
        yield RunningApp(url, database_url, env)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    if not CHROMIUM.exists():
        pytest.skip("no system Chromium at /usr/bin/chromium (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser: object) -> Iterator[object]:
    context = browser.new_context(viewport={"width": 1400, "height": 1500}, locale="zh-CN")  # type: ignore[attr-defined]
    pg = context.new_page()
    pg.set_default_timeout(30_000)
    yield pg
    context.close()
