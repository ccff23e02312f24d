"""Real-browser fixtures: the app under `streamlit run` (subprocess) on a temp database,
talking to the real embedded LLM server, driven by a headless system Chromium."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from app.ops import process
from tests.servers import free_port

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
    log: Path  # what `streamlit run` printed

    def session_factory(self) -> Any:
        """Sessions on the app's installation as LexSpec opens them (its audit key signs the
        accounts they change, its checkpoints anchor what they chain): a change made here is
        one LexSpec made, as an admin's on another page would be."""
        from app import database
        from app.config import Settings

        settings = Settings(
            data_dir=Path(self.env["LEXSPEC_DATA_DIR"]), database_url=self.database_url
        )
        return database.get_session_factory(settings)


@pytest.fixture(scope="module")
def running_app(
    llm_base_url: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[RunningApp]:
    """`streamlit run app/web.py` (app/main.py, and the route that sets the session cookie)
    with its own temp data dir and database."""
    data = tmp_path_factory.mktemp("e2e-data")
    database_url = f"sqlite:///{data / 'e2e.db'}"
    env = {
        **os.environ,
        "LEXSPEC_DATA_DIR": str(data),
        "LEXSPEC_DATABASE_URL": database_url,
        "LEXSPEC_LLM_BASE_URL": llm_base_url,
        "LEXSPEC_LANG": "zh",
        # the model's drafting; an unmeasured endpoint assembles (test_first_draft_browser.py)
        "LEXSPEC_LLM_WRITING": "adapt",
    }
    port = free_port()
    cmd = [
        sys.executable, "-m", "streamlit", "run", str(Path("app") / "web.py"),
        "--server.port", str(port), "--server.headless", "true",
        "--browser.gatherUsageStats", "false",
    ]  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    with process.running(
        cmd, f"{url}/_stcore/health", log=data / "streamlit.log", env=env, accept="ok"
    ):
        yield RunningApp(url, database_url, env, data / "streamlit.log")


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    """A headless Chromium for the module (not the session: Playwright's sync API runs an event
    loop in this thread while it is open, and a later test's asyncio.run would refuse to start
    beside it)."""
    if not CHROMIUM.exists():
        pytest.skip("no system Chromium at /usr/bin/chromium (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> object:
    """Keep each phase's report on the test item, so `page` can tell a failed test."""
    report = yield
    setattr(item, f"report_{report.when}", report)
    return report


@pytest.fixture
def page(browser: object, request: pytest.FixtureRequest) -> Iterator[object]:
    context = browser.new_context(viewport={"width": 1400, "height": 1500}, locale="zh-CN")  # type: ignore[attr-defined]
    pg = context.new_page()
    pg.set_default_timeout(30_000)
    yield pg
    failed = getattr(request.node, "report_call", None)
    if failed is not None and failed.failed:  # what the page showed when the test failed
        try:
            print("--- the page when the test failed ---\n" + pg.locator("body").inner_text())
        except Exception as exc:  # noqa: BLE001 - the page may be gone: say so, keep the failure
            print(f"--- the page could not be read: {exc}")
        if "running_app" in request.fixturenames:
            log = request.getfixturevalue("running_app").log
            print("--- the app's log ---\n" + log.read_text(errors="replace")[-3000:])
    context.close()
