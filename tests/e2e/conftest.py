"""Browser tests: real Chromium (Debian's) against a real Daphne server and a scripted model.

Every test here is marked e2e; scripts/test.sh runs them in their own pytest
process (the sync Playwright fixtures leave an event loop running).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from canvasweb.testing.fake_llm import ScriptedLLM
from canvasweb.testing.fixtures import setup_canvas_in
from canvasweb.testing.servers import Cluster, sqlite_url

# Not under test-results/: pytest-playwright empties that folder at the start of every session.
SHOTS = Path(__file__).resolve().parents[2] / "var" / "e2e-screenshots"
DOC_IMG = Path(__file__).resolve().parents[2] / "docs" / "img"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-quic",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-default-apps",
    "--disable-extensions",
]
PASSWORD = "e2e-pass-123"


def pytest_collection_modifyitems(items):
    for item in items:
        if "tests/e2e/" in str(item.fspath).replace("\\", "/"):
            item.add_marker(pytest.mark.e2e)


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    executable = os.environ.get("CANVASWEB_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
    return {**browser_type_launch_args, "executable_path": executable, "args": CHROMIUM_ARGS}


@pytest.fixture(scope="session")
def scripted_model():
    server = ScriptedLLM().start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def live_server_url(tmp_path_factory, scripted_model):
    """One Daphne process on a fresh SQLite file, talking to the scripted model."""
    workdir = tmp_path_factory.mktemp("e2e-server")
    cluster = Cluster(
        database_url=sqlite_url(workdir),
        redis_url=None,
        extra_env={
            "LLM_BASE_URL": scripted_model.base_url,
            "LLM_API_KEY": "e2e",
            "LLM_MODEL": "scripted",
            "LLM_TIMEOUT_SECONDS": "10",
            "LLM_MAX_RETRIES": "0",
            "CANVASWEB_WS_OPS_PER_SECOND": "200",
            "CANVASWEB_TEST_HOOKS": "true",
            # The suite logs in well over 20 times a minute from one address: the password throttle's
            # default would answer 429 and leave a test waiting on the login page.
            "CANVASWEB_AUTH_THROTTLE_RATE": "10000/minute",
        },
    )
    cluster.migrate()
    cluster.start(1)
    cluster.e2e_setup = lambda **kw: setup_canvas_in(cluster, password=PASSWORD, **kw)
    yield cluster
    cluster.stop()


@pytest.fixture(scope="session")
def no_model_server(live_server_url):
    """A second Daphne on the same database with no LLM_* settings: chat turns end in MODEL_NOT_CONFIGURED."""
    env = {k: v for k, v in live_server_url.extra_env.items() if not k.startswith("LLM_")}
    cluster = Cluster(database_url=live_server_url.database_url, redis_url=None, extra_env=env)
    cluster.start(1)
    yield cluster
    cluster.stop()


@pytest.fixture
def server(live_server_url, scripted_model):
    scripted_model.reset()
    return live_server_url


@pytest.fixture
def shot():
    SHOTS.mkdir(parents=True, exist_ok=True)

    def take(page, name: str, doc: str | None = None) -> Path:
        """Save var/e2e-screenshots/<name>.png; with `doc`, also docs/img/<doc>.png (the README's pictures
        are re-made by running the tests that take them)."""
        path = SHOTS / f"{name}.png"
        page.screenshot(path=str(path), full_page=False)
        if doc:
            DOC_IMG.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, DOC_IMG / f"{doc}.png")
        return path

    return take


def login(page, base_url: str, username: str, password: str = PASSWORD) -> None:
    page.goto(f"{base_url}/login/")
    page.get_by_test_id("login-username").fill(username)
    page.get_by_test_id("login-password").fill(password)
    page.get_by_test_id("login-submit").click()
    # A deadline for a hang, not a speed check: logging in hashes the password, slow when suites share cores.
    # A refused login fails at once with the page's own message instead of waiting out the deadline.
    page.wait_for_function(
        "() => !location.pathname.startsWith('/login') || document.querySelector('[data-testid=login-error]')",
        timeout=30_000,
    )
    error = page.get_by_test_id("login-error")
    if "/login" in page.url and error.count():
        raise AssertionError(f"login as {username!r} was refused: {error.inner_text()!r}")
    page.wait_for_load_state("load")
