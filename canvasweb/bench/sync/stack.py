"""The throwaway stack under bench_sync: the canvas and its users, the bare relay, the database.

Everything runs on 127.0.0.1 and is stopped (a Postgres database dropped) by the caller at the end.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import TYPE_CHECKING

from canvasweb.testing.servers import Cluster, create_postgres_database, sqlite_url

from ..common import percentile

if TYPE_CHECKING:
    from ..sync_bench import SyncOptions

DATABASE_ENV = ("BENCH_DATABASE_URL", "TEST_DATABASE_URL")


SETUP_SCRIPT = """
import json
from django.contrib.auth import get_user_model
from rest_framework.authtoken.models import Token
from canvasweb.canvases import services
from canvasweb.canvases.actors import user_actor
spec = json.loads('''{spec}''')
User = get_user_model()
out = {{"tokens": {{}}, "users": {{}}}}
for name in spec["users"]:
    user = User.objects.filter(username=name).first()
    if user is None:
        # Token auth only: an unusable password costs no hashing (PBKDF2 is ~0.5 s per user).
        user = User.objects.create_user(username=name, password=None)
    out["tokens"][name] = Token.objects.get_or_create(user=user)[0].key
    out["users"][name] = user.pk
owner = User.objects.get(username=spec["owner"])
canvas = services.canvas_create(user=owner, name=spec["name"])
for name, role in spec["members"].items():
    services.member_set(actor=user_actor(owner), canvas_id=canvas.pk, username=name, role=role)
out["canvas_id"] = canvas.pk
print("SETUP-JSON" + json.dumps(out))
"""


def setup_canvas(cluster: Cluster, *, clients: int, name: str) -> dict:
    """Users bench-0..N-1 (bench-0 owns the canvas, the rest edit it), their tokens and a new canvas."""
    users = [f"bench-{i}" for i in range(clients)]
    spec = json.dumps(
        {"users": users, "owner": users[0], "members": dict.fromkeys(users[1:], "editor"), "name": name}
    )
    output = cluster.manage("shell", "-c", SETUP_SCRIPT.format(spec=spec))
    line = next(line for line in output.splitlines() if line.startswith("SETUP-JSON"))
    data = json.loads(line[len("SETUP-JSON") :])
    data["usernames"] = users
    return data


class RelayCluster(Cluster):
    """Two Daphne processes serving the bare relay instead of the app (no database use)."""

    def start_one(self, port: int | None = None) -> int:
        import subprocess
        import sys

        from canvasweb.testing.servers import ROOT, free_port, wait_for_port

        port = port or free_port()
        log = self.workdir / f"relay-{port}.log"
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "daphne",
                "-b",
                "127.0.0.1",
                "-p",
                str(port),
                "canvasweb.bench.relay_asgi:application",
            ],
            cwd=ROOT,
            env=self.env(),
            stdout=log.open("wb"),
            stderr=subprocess.STDOUT,
        )
        wait_for_port(port, proc=proc, timeout=30)
        self.ports.append(port)
        self.procs.append(proc)
        self.logs.append(log)
        return port


def database_for(options: SyncOptions, workdir: Path) -> tuple[str, str, bool]:
    """(database URL, description, is a Postgres database we must drop)."""
    server = options.postgres_url or next((os.environ[k] for k in DATABASE_ENV if os.environ.get(k)), None)
    if server:
        url = create_postgres_database(server)
        return url, "PostgreSQL (throwaway database " + url.rsplit("/", 1)[-1] + ")", True
    return sqlite_url(workdir), "SQLite file (temporary; no Postgres URL given)", False


def postgres_commit_ms(url: str, *, samples: int = 30) -> float | None:
    """Median time of a one-row INSERT + COMMIT (a WAL flush): the floor under every committed op."""
    try:
        import psycopg

        with psycopg.connect(url) as conn:
            conn.execute("CREATE TABLE bench_commit_probe (x int)")
            conn.commit()
            times = []
            for _ in range(samples):
                t = time.perf_counter()
                conn.execute("INSERT INTO bench_commit_probe VALUES (1)")
                conn.commit()
                times.append((time.perf_counter() - t) * 1000)
            conn.execute("DROP TABLE bench_commit_probe")
            conn.commit()
        median = percentile(times, 0.5)
        return round(median, 2) if median is not None else None
    except Exception:  # pragma: no cover - informational only
        return None


def postgres_version(url: str) -> str | None:
    try:
        import psycopg

        with psycopg.connect(url) as conn:
            row = conn.execute("SHOW server_version").fetchone()
            return row[0] if row is not None else None
    except Exception:  # pragma: no cover
        return None
