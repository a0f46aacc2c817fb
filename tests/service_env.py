"""Services a test needs (Redis, Postgres, redis-server): CI must provide them (fail), a laptop may not (skip)."""

from __future__ import annotations

import os
import shutil

import pytest


def require_env(name: str) -> str:
    value = os.environ.get(name)
    if not value:
        if os.environ.get("CI"):
            pytest.fail(f"{name} is not set: scripts/test.sh starts the services and sets it")
        pytest.skip(f"{name} not set; run through scripts/test.sh to start Redis and Postgres")
    return value


def require_redis_server() -> None:
    if shutil.which("redis-server") is None:
        if os.environ.get("CI"):
            pytest.fail("redis-server is not installed: scripts/setup.sh installs it")
        pytest.skip("redis-server is not installed")
