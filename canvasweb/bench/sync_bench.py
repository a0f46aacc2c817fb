"""Real-time fan-out: WebSocket clients on Daphne processes (two by default; Redis channel layer), timed op by op.

Everything runs on 127.0.0.1 and is stopped at the end:

* its own `redis-server` (`testing.servers.RedisServer`);
* a throwaway database: a new Postgres database (`create_postgres_database`,
  dropped afterwards) when a server URL is given, else a temporary SQLite file;
* `--servers` Daphne processes, two by default (`testing.servers.Cluster`), migrated first.

Per client count, a fresh canvas with one owner and editors (one user per
client, API tokens, no passwords). Client i connects to server i % servers, sends
`hello`, then runs two phases of `--ops` ops each:

* `paced`: all clients together send `--rate` ops/s (each at rate/clients),
  not waiting for acks: the fan-out latency under a steady, realistic load;
* `saturated`: each client sends its next op as soon as the previous one is
  acked (closed loop): committed ops/s at full load, and latency under it;
* `pipelined` (with `--window N`, N > 1): the same closed loop, but each client
  keeps up to N unacked ops in flight, as a client sending quick edits does.

Every op carries a unique `client_op_id`; its send time is kept in this
process, and every `change` event with that id arriving at another client
gives one fan-out sample (arrival - send, same clock). At the end the change
log is read back over REST (`GET /api/canvases/{id}/changes/?since=0`,
paginated) and every acknowledged `client_op_id` must appear in it exactly
once; anything else is a lost (or doubled) acknowledged op.

This module runs the whole benchmark; its parts are in `canvasweb/bench/sync/`: clients.py
(one WebSocket client), phases.py (phases and their measurement), stack.py (the canvas, the
relay, the database) and report.py (targets, tables, Markdown).
"""

from __future__ import annotations

import asyncio
import shutil
import tempfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from canvasweb.testing.servers import Cluster, RedisServer, drop_postgres_database

from .common import Progress
from .sync.phases import fetch_change_log, paced_ops, phase_plan, phase_row, run_clients
from .sync.report import floor_ratios
from .sync.report import floor_table as floor_table
from .sync.report import floor_targets as floor_targets
from .sync.report import render_markdown as render_markdown
from .sync.report import table as table
from .sync.report import targets as targets
from .sync.stack import RelayCluster, database_for, postgres_commit_ms, postgres_version, setup_canvas

REPORT_FORMAT = "sync-bench-report/1"


# --------------------------------------------------------------------------- orchestration
# --------------------------------------------------------------------------- orchestration
@dataclass
class SyncOptions:
    clients: list[int]
    ops: int = 20
    rates: tuple[float, ...] = (5.0, 25.0)
    paced_seconds: float = 20.0
    postgres_url: str | None = None
    timeout: float = 120.0
    phases: tuple[str, ...] = ("paced", "saturated")
    ops_per_second_limit: int = 1000
    conn_max_age: int | None = None
    warmup: int = 3
    progress: bool = True
    # Also run the same clients against the bare Channels relays (canvasweb/bench/relay_asgi.py: the
    # lossy one, then the lossless one) on the same Redis and report the app's figures as ratios of theirs.
    floor: bool = False
    # Unacked ops each client keeps in flight in the `pipelined` phase (app and relay alike).
    window: int = 1
    # Daphne processes for the app (and for the relay alike); clients are spread over them in turn.
    servers: int = 2


# The lossless relay's channel-layer capacity (per process in Redis, per socket in the process): far
# above what a phase can queue (50 clients x 30 ops), so nothing is dropped.
LOSSLESS_CAPACITY = 1_000_000


def run_floor(
    options: SyncOptions, *, redis_url: str, extra_env: dict, log=print, lossless: bool = False
) -> tuple[list[dict], list[str]]:
    """The same phases with the same clients against the bare relay (relay_asgi.py): the lossy one
    (acks at once, the layer's capacity of 200), or the lossless one (acks behind the fan-out,
    a capacity that never fills)."""
    kind = "relay-lossless" if lossless else "relay"
    if lossless:
        extra_env = {
            **extra_env,
            "CANVASWEB_RELAY_LOSSLESS": "1",
            "CHANNEL_CAPACITY": str(LOSSLESS_CAPACITY),
        }
    relay = RelayCluster(database_url="sqlite:///unused", redis_url=redis_url, extra_env=extra_env)
    rows, notes = [], []
    try:
        relay.start(options.servers)
        for n in options.clients:
            phases, client_notes = asyncio.run(
                run_clients(
                    relay,
                    canvas_id=(950_000 if lossless else 900_000) + n,
                    tokens=["relay"] * n,
                    ops=options.ops,
                    rates=options.rates,
                    timeout=options.timeout,
                    phases=options.phases,
                    progress=None,
                    warmup=options.warmup,
                    paced_seconds=options.paced_seconds,
                    window=options.window,
                )
            )
            notes += [f"{kind} {n} clients: {x}" for x in client_notes]
            for phase in phases:
                if phase.name == "warmup":
                    continue
                # No change log behind the relay: every acked op counts as delivered once.
                row = phase_row(phase, clients=n, log_counts=Counter(dict.fromkeys(phase.acked, 1)))
                row["paced_rate"] = phase.paced_rate
                row["server"] = kind
                rows.append(row)
                log(
                    f"bench_sync {kind}: {n} clients {phase.name}: fan-out p50 {row['fanout_p50_ms']} ms, "
                    f"p99 {row['fanout_p99_ms']} ms, {row['committed_ops_per_s']} ops/s, "
                    f"drained in {row['drain_ms']} ms" + ("" if row["drained"] else " (NOT drained)")
                )
    finally:
        relay.stop()
    return rows, notes


def run_sync(options: SyncOptions, *, log=print) -> dict:
    workdir = Path(tempfile.mkdtemp(prefix="canvasweb-bench-sync-"))
    redis = None
    cluster = None
    db_url, db_desc, drop = None, "", False
    rows: list[dict] = []
    relay_rows: list[dict] = []
    lossless_rows: list[dict] = []
    warmups: list[dict] = []
    notes: list[str] = []
    server_version = None
    commit_ms = None
    try:
        redis = RedisServer.start()
        db_url, db_desc, drop = database_for(options, workdir)
        extra = {"CANVASWEB_WS_OPS_PER_SECOND": str(options.ops_per_second_limit)}
        if options.conn_max_age is not None:
            extra["DATABASE_CONN_MAX_AGE"] = str(options.conn_max_age)
        cluster = Cluster(database_url=db_url, redis_url=redis.url, extra_env=extra)
        log(f"bench_sync: {db_desc}; redis on {redis.port}; migrating")
        cluster.migrate()
        try:
            cluster.start(options.servers)
        except (RuntimeError, TimeoutError) as exc:
            raise RuntimeError(
                f"a Daphne process did not start: {exc}\n{cluster.log_text()[-3000:]}"
            ) from None
        log(f"bench_sync: daphne on ports {cluster.ports}")
        if drop:
            server_version = postgres_version(db_url)
            commit_ms = postgres_commit_ms(db_url)
        for n in options.clients:
            if n < 2:
                raise ValueError("at least 2 clients are needed to measure fan-out")
            data = setup_canvas(cluster, clients=n, name=f"bench_sync {n} clients")
            tokens = [data["tokens"][u] for u in data["usernames"]]
            total = n * sum(
                paced_ops(rate, options.paced_seconds, n) if rate else options.ops
                for _, rate, _ in phase_plan(options.phases, options.rates, options.window)
            )
            progress = Progress(total, label=f"sync {n} clients", enabled=options.progress)
            phases, client_notes = asyncio.run(
                run_clients(
                    cluster,
                    canvas_id=data["canvas_id"],
                    tokens=tokens,
                    ops=options.ops,
                    rates=options.rates,
                    timeout=options.timeout,
                    phases=options.phases,
                    progress=progress,
                    warmup=options.warmup,
                    paced_seconds=options.paced_seconds,
                    window=options.window,
                )
            )
            progress.close()
            notes += [f"{n} clients: {x}" for x in client_notes]
            counts = fetch_change_log(cluster.url(0), canvas_id=data["canvas_id"], token=tokens[0])
            for phase in phases:
                row = phase_row(phase, clients=n, log_counts=counts)
                row["paced_rate"] = phase.paced_rate
                if phase.name == "warmup":
                    warmups.append(row)
                    continue
                rows.append(row)
                log(
                    f"bench_sync: {n} clients {phase.name}: fan-out p50 {row['fanout_p50_ms']} ms, "
                    f"p99 {row['fanout_p99_ms']} ms, {row['committed_ops_per_s']} ops/s, "
                    f"lost acked {row['lost_acked_ops']}, drained in {row['drain_ms']} ms"
                    + ("" if row["drained"] else " (NOT drained)")
                )
        if options.floor:
            cluster.stop()  # the relay gets the machine to itself, as the app did
            if any(p.returncode not in (0, 1, -15, None) for p in cluster.procs):
                notes.append("a Daphne process exited abnormally:\n" + cluster.log_text()[-2000:])
            cluster.procs = []  # stopped on purpose; not checked again below
            relay_rows, relay_notes = run_floor(options, redis_url=redis.url, extra_env=extra, log=log)
            notes += relay_notes
            lossless_rows, relay_notes = run_floor(
                options, redis_url=redis.url, extra_env=extra, log=log, lossless=True
            )
            notes += relay_notes
    finally:
        if cluster is not None:
            cluster.stop()
            if any(p.returncode not in (0, -15, None) for p in cluster.procs):
                notes.append("a Daphne process exited abnormally:\n" + cluster.log_text()[-2000:])
        if redis is not None:
            redis.stop()
        if drop and db_url:
            try:
                drop_postgres_database(db_url)
            except Exception as exc:  # pragma: no cover - reported, the run is over anyway
                notes.append(f"could not drop {db_url}: {exc}")
        shutil.rmtree(workdir, ignore_errors=True)
    return {
        "database": db_desc,
        "servers": options.servers,
        "database_server_version": server_version,
        "database_commit_p50_ms": commit_ms,
        "rows": rows,
        "warmup": warmups,
        "floor_rows": relay_rows,
        "lossless_floor_rows": lossless_rows,
        "floor": floor_ratios(rows, relay_rows, lossless_rows) if relay_rows else [],
        "notes": notes,
        "server_env": {
            "CANVASWEB_WS_OPS_PER_SECOND": options.ops_per_second_limit,
            "DATABASE_CONN_MAX_AGE": options.conn_max_age
            if options.conn_max_age is not None
            else "unset (settings default 60 s: connections reused)",
        },
    }
