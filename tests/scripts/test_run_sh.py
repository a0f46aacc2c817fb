"""scripts/run.sh tells the truth about passwords: it points at them only on the run that printed them."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _run_until_ready(db: Path, port: int | None = None) -> str:
    env = {
        **os.environ,
        "SKIP_SETUP": "1",
        "PORT": str(port or _free_port()),
        "DATABASE_URL": f"sqlite:///{db}",
        "CANVASWEB_SQLITE_PATH": str(db),
    }
    env.pop("REDIS_URL", None)
    proc = subprocess.Popen(
        ["bash", str(ROOT / "scripts" / "run.sh")],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    lines: list[str] = []
    deadline = time.monotonic() + 240
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.append(line)
            if "Canvasweb is running at" in line or time.monotonic() > deadline:
                break
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=30)
    return "".join(lines)


@pytest.mark.slow
def test_password_hint_matches_what_was_printed(tmp_path):
    port = _free_port()
    first = _run_until_ready(tmp_path / "run.sqlite3", port)
    assert "Canvasweb is running at" in first, first[-2000:]
    assert f"Log in at http://127.0.0.1:{port}/ as alice" in first  # the port it serves, not the default
    assert "see the passwords printed above" in first
    assert "alice" in first.split("Canvasweb is running at")[0]  # the seed printed alice's password before

    second = _run_until_ready(tmp_path / "run.sqlite3")
    assert "Canvasweb is running at" in second, second[-2000:]
    assert "see the passwords printed above" not in second
    assert "passwords were printed on the first run" in second
