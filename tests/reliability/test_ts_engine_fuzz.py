"""The shipped TypeScript client (frontend/src/sync/engine.ts + apply.ts) under faults, against real servers.

Node runs several SyncEngines exactly as the browser does, over real WebSockets to the two Daphne
processes of `pg_redis_cluster` (Redis + Postgres), with change frames dropped, reordered and
duplicated, sockets killed without a close frame, offline spells, a viewer whose writes are refused,
and one client sending far over the server's rate limit. Every seed must end with nothing pending, no
op lost (a RATE_LIMITED op may never surface as a final reject) and every client's document equal to
the server's snapshot for its role. A second check has one client send ops that break when reordered
(create then link, many moves of one node) far over the rate limit: the server must end exactly where
the client's queue says.

Scale: RELIABILITY_TS_SEEDS (3), RELIABILITY_TS_OPS ops per writer (40), RELIABILITY_TS_ORDER_OPS (300).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest

from canvasweb.testing.fixtures import setup_canvas_in
from canvasweb.testing.servers import ROOT

from .conftest import env_int

pytestmark = [pytest.mark.crossprocess, pytest.mark.redis, pytest.mark.postgres]

FRONTEND = ROOT / "frontend"
SEEDS = env_int("RELIABILITY_TS_SEEDS", 3)
OPS = env_int("RELIABILITY_TS_OPS", 40)
ORDER_OPS = env_int("RELIABILITY_TS_ORDER_OPS", 300)


def test_shipped_engine_converges_and_keeps_order(pg_redis_cluster, record_figures, tmp_path):
    if shutil.which("npx") is None or not (FRONTEND / "node_modules").is_dir():
        pytest.fail("node and frontend/node_modules are needed (scripts/setup.sh runs npm ci)")
    users = {"fz_owner": "owner", "fz_ed1": "editor", "fz_ed2": "editor", "fz_viewer": "viewer"}
    info = setup_canvas_in(
        pg_redis_cluster,
        users=list(users),
        owner="fz_owner",
        members={u: r for u, r in users.items() if r != "owner"},
        name="engine fuzz users",
    )
    config = {
        "apiUrls": [pg_redis_cluster.url(i) for i in range(len(pg_redis_cluster.ports))],
        "wsUrls": [
            pg_redis_cluster.url(i).replace("http://", "ws://") for i in range(len(pg_redis_cluster.ports))
        ],
        "origin": "http://127.0.0.1",
        "users": [{"username": u, "token": info["tokens"][u], "role": r} for u, r in users.items()],
        "seeds": list(range(1, SEEDS + 1)),
        "clients": 5,
        "opsPerClient": OPS,
        "faults": {"dropChange": 0.1, "reorder": 0.05, "duplicate": 0.05},
        "killEvery": 25,
        "convergeTimeoutMs": 20_000,
        "orderOps": ORDER_OPS,
    }
    config_path, out_path = tmp_path / "fuzz.json", tmp_path / "out.json"
    config_path.write_text(json.dumps(config))
    env = {
        **os.environ,
        "ENGINE_FUZZ_CONFIG": str(config_path),
        "ENGINE_FUZZ_OUT": str(out_path),
        "CI": "true",
    }
    proc = subprocess.run(
        ["npx", "vitest", "run", "--config", "vitest.fuzz.config.ts"],
        cwd=FRONTEND,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert out_path.exists(), f"the fuzz wrote no results:\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}"
    result = json.loads(out_path.read_text())
    seeds, order = result["seeds"], result["order"]
    figures = {
        "seeds": len(seeds),
        "clients": config["clients"],
        "ops": sum(s["ops"] for s in seeds),
        "acked": sum(s["acked"] for s in seeds),
        "lost": sum(s["lost"] for s in seeds),
        "diverged_seeds": sum(1 for s in seeds if s["diverged"]),
        "rate_limited": sum(s["stats"]["rate_limited"] for s in seeds),
        "kills": sum(s["stats"]["kills"] for s in seeds),
        "dropped_changes": sum(s["stats"]["dropped"] for s in seeds),
        "rejected": {
            code: sum(s["rejected"].get(code, 0) for s in seeds)
            for code in sorted({c for s in seeds for c in s["rejected"]})
        },
        "max_converged_ms": max((s["converged_ms"] or 0) for s in seeds),
        "order_ops": order["ops"],
        "order_rate_limited": order["rate_limited"],
        "order_diverged": len(order["diverged"]),
        "order_drained_ms": order["drained_ms"],
    }
    record_figures("ts_engine_fuzz", figures)
    problems = [
        f"seed {s['seed']}: lost {s['lost']}, {s['diverged'][:5]}"
        for s in seeds
        if s["lost"] or s["diverged"]
    ]
    assert not problems, "\n".join(problems) + f"\n{proc.stdout[-2000:]}"
    assert order["diverged"] == [], order["diverged"]
    assert proc.returncode == 0, proc.stdout[-3000:]
    # The run must have exercised what it claims to.
    assert figures["acked"] > 0 and figures["kills"] > 0 and figures["dropped_changes"] > 0
    assert figures["order_rate_limited"] > 0, "the order check never hit the rate limit"
    assert figures["rejected"].get("FORBIDDEN", 0) > 0, "the viewer's writes were never refused"
