"""Two Daphne processes on Redis + Postgres (the docker-compose topology, without Docker)."""

from __future__ import annotations

import pytest

from canvasweb.testing.servers import Cluster, create_postgres_database, drop_postgres_database
from tests.service_env import require_env


@pytest.fixture(scope="module")
def cluster():
    redis_url = require_env("TEST_REDIS_URL")
    database_url = create_postgres_database(require_env("TEST_DATABASE_URL"))
    cluster = Cluster(database_url=database_url, redis_url=redis_url)
    try:
        cluster.migrate()
        cluster.start(2)
        yield cluster
    finally:
        cluster.stop()
        drop_postgres_database(database_url)
