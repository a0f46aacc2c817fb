"""The ASGI entry point sets the server process up: the GIL switch interval from its setting."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _switch_interval_in_server(env_value: str | None) -> float:
    env = {k: v for k, v in os.environ.items() if k != "CANVASWEB_GIL_SWITCH_INTERVAL_US"}
    env["DJANGO_SETTINGS_MODULE"] = "canvasweb.config.settings"
    if env_value is not None:
        env["CANVASWEB_GIL_SWITCH_INTERVAL_US"] = env_value
    out = subprocess.run(
        [sys.executable, "-c", "import sys, canvasweb.config.asgi; print(sys.getswitchinterval())"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return float(out.stdout.strip().splitlines()[-1])


def test_the_server_hands_the_gil_over_every_half_millisecond_unless_told_otherwise():
    assert abs(_switch_interval_in_server(None) - 0.0005) < 1e-9
    assert abs(_switch_interval_in_server("2000") - 0.002) < 1e-9
