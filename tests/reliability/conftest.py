"""Scale knobs, service requirements and the figures file for the reliability suite.

Scale (CI defaults; `manage.py soak` raises them):
    RELIABILITY_SEEDS          convergence fuzz seeds                          (20)
    RELIABILITY_OPS            fuzz ops per client                             (40)
    RELIABILITY_STACK_CLIENTS  real-stack clients                              (6)
    RELIABILITY_STACK_OPS      real-stack ops per client                       (60)
    RELIABILITY_FAULT_CLIENTS  fault-run clients                               (6)
    RELIABILITY_FAULT_OPS      fault-run ops per client                        (60)
    RELIABILITY_EXAMPLES       hypothesis examples for the op parser           (3000)
    RELIABILITY_FRAME_EXAMPLES hypothesis examples through the consumer        (300)
    RELIABILITY_SCHEMA_EXAMPLES schemathesis examples per operation            (15)
Figures: each test adds a dict to RELIABILITY_FIGURES (a JSON-lines file) when set.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from canvasweb.testing.servers import (
    Cluster,
    RedisServer,
    create_postgres_database,
    drop_postgres_database,
    sqlite_url,
)
from tests.service_env import require_env, require_redis_server


def env_int(name: str, default: int) -> int:
    value = os.environ.get(name)
    return int(value) if value not in (None, "") else default


@pytest.fixture(scope="session")
def record_figures():
    """record_figures(test_name, {figure: value}): appended to $RELIABILITY_FIGURES as JSON lines."""
    path = os.environ.get("RELIABILITY_FIGURES")

    def record(name: str, figures: dict) -> None:
        line = {"test": name, "at": time.strftime("%Y-%m-%dT%H:%M:%S"), **figures}
        print(f"\nFIGURES {json.dumps(line, default=str)}")
        if path:
            with open(path, "a", encoding="utf-8") as handle:
                handle.write(json.dumps(line, default=str) + "\n")

    return record


@pytest.fixture(scope="session")
def pg_redis_cluster(tmp_path_factory):
    """Two Daphne processes on a private Redis and a fresh Postgres database (one per session).

    The Redis is our own (RedisServer.start): the fault tests restart and flush it.
    """
    database_server = require_env("TEST_DATABASE_URL")
    require_redis_server()
    redis = RedisServer.start()
    database_url = create_postgres_database(database_server)
    cluster = Cluster(
        database_url=database_url, redis_url=redis.url, extra_env={"CANVASWEB_WS_SYNC_CHECK_SECONDS": "2"}
    )
    cluster.redis = redis
    cluster.tmp = tmp_path_factory.mktemp("cluster")
    try:
        cluster.migrate()
        cluster.start(2)
        yield cluster
    finally:
        cluster.stop()
        redis_now = getattr(cluster, "redis", redis)
        redis_now.stop()
        drop_postgres_database(database_url)


@pytest.fixture(scope="session")
def sqlite_daphne(tmp_path_factory):
    """One Daphne process on SQLite and the in-process layer (no services needed), shared by the session.

    Small send-buffer limits so the slow-consumer test trips them within seconds.
    """
    directory = tmp_path_factory.mktemp("sqlite-daphne")
    cluster = Cluster(
        database_url=sqlite_url(Path(directory)),
        redis_url=None,
        extra_env={
            "CANVASWEB_WS_SEND_BUFFER_SOFT_BYTES": str(256 * 1024),
            "CANVASWEB_WS_SEND_STALL_SECONDS": "3",
        },
    )
    cluster.tmp = Path(directory)
    try:
        cluster.migrate()
        cluster.start(1)
        yield cluster
    finally:
        cluster.stop()
