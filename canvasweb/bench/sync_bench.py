"""Real-time fan-out: WebSocket clients on two Daphne processes (Redis channel layer), timed op by op.

Everything runs on 127.0.0.1 and is stopped at the end:

* its own `redis-server` (`testing.servers.RedisServer`);
* a throwaway database: a new Postgres database (`create_postgres_database`,
  dropped afterwards) when a server URL is given, else a temporary SQLite file;
* two Daphne processes (`testing.servers.Cluster`), migrated first.

Per client count, a fresh canvas with one owner and editors (one user per
client, API tokens, no passwords). Client i connects to server i % 2, sends
`hello`, then runs two phases of `--ops` ops each:

* `paced`: all clients together send `--rate` ops/s (each at rate/clients),
  not waiting for acks: the fan-out latency under a steady, realistic load;
* `saturated`: each client sends its next op as soon as the previous one is
  acked (closed loop): committed ops/s at full load, and latency under it.

Every op carries a unique `client_op_id`; its send time is kept in this
process, and every `change` event with that id arriving at another client
gives one fan-out sample (arrival - send, same clock). At the end the change
log is read back over REST (`GET /api/canvases/{id}/changes/?since=0`,
paginated) and every acknowledged `client_op_id` must appear in it exactly
once; anything else is a lost (or doubled) acknowledged op.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import tempfile
import time
import urllib.request
import uuid
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from canvasweb.testing.servers import (
    Cluster,
    RedisServer,
    create_postgres_database,
    drop_postgres_database,
    sqlite_url,
)

from .common import Progress, percentile

if TYPE_CHECKING:
    from websockets.asyncio.client import ClientConnection

REPORT_FORMAT = "sync-bench-report/1"
DATABASE_ENV = ("BENCH_DATABASE_URL", "TEST_DATABASE_URL")
ORIGIN = "http://127.0.0.1"
TARGETS = {"fanout_p50_ms": 15.0, "fanout_p99_ms": 80.0, "committed_ops_per_s": 500.0, "lost_acked_ops": 0}

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


# --------------------------------------------------------------------------- clients
@dataclass
class PhaseState:
    name: str
    tag: str = ""  # unique per phase in a run: prefixes client_op_ids
    paced_rate: float | None = None
    sent: dict[str, tuple[int, float]] = field(default_factory=dict)  # cid -> (client index, send time)
    acked: dict[str, float] = field(default_factory=dict)  # cid -> ack latency ms
    ack_revision: dict[str, int] = field(default_factory=dict)
    duplicates: int = 0
    rejected: Counter = field(default_factory=Counter)
    errors: Counter = field(default_factory=Counter)
    fanout: list[float] = field(default_factory=list)
    delivered_late: int = 0  # reached a client only through the `changes` answer to its catch_up
    fanout_cross: list[float] = field(default_factory=list)
    delivered: set = field(default_factory=set)  # (cid, receiver)
    waiters: dict[str, asyncio.Future] = field(default_factory=dict)
    first_send: float | None = None
    last_ack: float | None = None


class BenchClient:
    def __init__(self, index: int, *, url: str, token: str, server: int, servers_of: dict[int, int]) -> None:
        self.index = index
        self.url = url
        self.token = token
        self.server = server
        self.servers_of = servers_of
        self.ws: ClientConnection | None = None
        self.phase: PhaseState | None = None
        self.reader: asyncio.Task | None = None
        self.node_id: str | None = None
        self.closed_reason: str | None = None
        self.revision = 0  # the newest revision this client has seen

    async def connect(self) -> None:
        import websockets
        from websockets.typing import Origin

        ws = self.ws = await websockets.connect(
            self.url,
            origin=Origin(ORIGIN),
            additional_headers={"Authorization": f"Token {self.token}"},
            max_size=2**22,
            open_timeout=20,
        )
        await ws.send(json.dumps({"type": "hello", "last_revision": None}))
        welcome = json.loads(await asyncio.wait_for(ws.recv(), 20))
        if welcome.get("type") != "welcome":
            raise RuntimeError(f"client {self.index}: expected welcome, got {welcome}")
        snapshot = json.loads(await asyncio.wait_for(ws.recv(), 20))
        self.revision = int(snapshot.get("revision") or 0)
        self.reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        import websockets

        try:
            async for raw in self._socket():
                now = time.perf_counter()
                phase = self.phase
                if phase is None:
                    continue
                msg = json.loads(raw)
                kind = msg.get("type")
                cid = msg.get("client_op_id")
                if kind == "change":
                    revision = msg.get("revision") or 0
                    if revision > self.revision + 1:
                        # A gap, as docs/protocol.md tells clients to handle it: with two servers a later
                        # revision can overtake an earlier one, which the socket then skips.
                        await self._socket().send(json.dumps({"type": "catch_up", "since": self.revision}))
                    self.revision = max(self.revision, revision)
                    self._delivered(phase, cid, now)
                elif kind == "changes":
                    for event in msg.get("events") or ():
                        if self._delivered(phase, event.get("client_op_id"), now):
                            phase.delivered_late += 1
                    self.revision = max(self.revision, msg.get("to") or 0)
                elif kind in ("ack", "reject") and cid in phase.sent:
                    if kind == "ack":
                        phase.acked[cid] = (now - phase.sent[cid][1]) * 1000
                        phase.ack_revision[cid] = msg.get("revision")
                        phase.duplicates += int(bool(msg.get("duplicate")))
                        phase.last_ack = now
                    else:
                        phase.rejected[(msg.get("error") or {}).get("code", "?")] += 1
                    fut = phase.waiters.pop(cid, None)
                    if fut is not None and not fut.done():
                        fut.set_result(kind)
                elif kind == "error":
                    phase.errors[f"error:{(msg.get('error') or {}).get('code', '?')}"] += 1
                elif kind == "resync":
                    phase.errors["resync"] += 1
        except websockets.ConnectionClosed as exc:
            self.closed_reason = f"closed {exc.code}"
        except Exception as exc:  # pragma: no cover - reported, never hangs the run
            self.closed_reason = f"reader failed: {exc!r}"

    def _delivered(self, phase: PhaseState, cid: str | None, now: float) -> bool:
        origin = phase.sent.get(cid) if cid else None
        if origin is None or origin[0] == self.index or (cid, self.index) in phase.delivered:
            return False
        phase.delivered.add((cid, self.index))
        ms = (now - origin[1]) * 1000
        phase.fanout.append(ms)
        if self.servers_of[origin[0]] != self.server:
            phase.fanout_cross.append(ms)
        return True

    def _socket(self) -> ClientConnection:
        if self.ws is None:  # the callers run only after connect(); they report the failure
            raise RuntimeError(f"client {self.index} is not connected")
        return self.ws

    def _op(self, k: int) -> dict:
        if self.node_id is None or k % 5 == 0:
            self.node_id = str(uuid.uuid4())
            return {
                "type": "node.create",
                "node": {
                    "id": self.node_id,
                    "content": f"bench client {self.index} op {k}",
                    "x": float(self.index * 50),
                    "y": float(k * 10),
                },
            }
        return {"type": "node.move", "id": self.node_id, "x": float(self.index * 50 + k), "y": float(k * 10)}

    async def send_op(self, phase: PhaseState, k: int, *, wait: bool, timeout: float) -> None:
        cid = f"{phase.tag}-{self.index}-{k}-{uuid.uuid4().hex[:12]}"
        frame = json.dumps({"type": "op", "client_op_id": cid, "op": self._op(k)})
        fut = asyncio.get_running_loop().create_future() if wait else None
        if fut is not None:
            phase.waiters[cid] = fut
        now = time.perf_counter()
        phase.sent[cid] = (self.index, now)
        if phase.first_send is None:
            phase.first_send = now
        try:
            await self._socket().send(frame)
        except Exception:
            phase.errors["send_failed"] += 1
            phase.waiters.pop(cid, None)
            return
        if fut is not None:
            try:
                await asyncio.wait_for(fut, timeout)
            except TimeoutError:
                phase.errors["ack_timeout"] += 1

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()
        if self.reader is not None:
            try:
                await asyncio.wait_for(self.reader, 5)
            except (TimeoutError, asyncio.CancelledError):
                self.reader.cancel()


async def _run_phase(
    clients: Sequence[BenchClient],
    *,
    name: str,
    tag: str,
    ops: int,
    paced_rate: float | None,
    timeout: float,
    progress: Progress | None,
) -> PhaseState:
    phase = PhaseState(name=name, tag=tag, paced_rate=paced_rate)
    for c in clients:
        c.phase = phase
        c.node_id = None
    deadline = time.monotonic() + timeout

    async def closed_loop(c: BenchClient) -> None:
        for k in range(ops):
            left = deadline - time.monotonic()
            if left <= 0:
                phase.errors["phase_timeout"] += 1
                return
            await c.send_op(phase, k, wait=True, timeout=min(left, 30.0))
            if progress:
                progress.advance()

    async def paced(c: BenchClient, i: int, rate: float) -> None:
        interval = len(clients) / rate
        start = time.perf_counter() + (i / len(clients)) * interval  # stagger the clients evenly
        for k in range(ops):
            delay = start + k * interval - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            if time.monotonic() > deadline:
                phase.errors["phase_timeout"] += 1
                return
            await c.send_op(phase, k, wait=False, timeout=0)
            if progress:
                progress.advance()

    if paced_rate:
        await asyncio.gather(*(paced(c, i, paced_rate) for i, c in enumerate(clients)))
    else:
        await asyncio.gather(*(closed_loop(c) for c in clients))
    # Wait for the outstanding acks and for the fan-out to drain (bounded).
    others = len(clients) - 1
    settle_until = min(deadline, time.monotonic() + 15.0)
    while time.monotonic() < settle_until:
        answered = len(phase.acked) + sum(phase.rejected.values())
        expected = len(phase.acked) * others
        if answered >= len(phase.sent) and len(phase.delivered) >= expected:
            break
        await asyncio.sleep(0.05)
    return phase


def _summ(values: Sequence[float]) -> dict[str, float | None]:
    def r(v):
        return None if v is None else round(v, 2)

    return {
        "p50": r(percentile(values, 0.50)),
        "p95": r(percentile(values, 0.95)),
        "p99": r(percentile(values, 0.99)),
        "max": r(max(values) if values else None),
        "n": len(values),
    }


def _phase_row(phase: PhaseState, *, clients: int, log_counts: Counter) -> dict:
    acked_new = list(phase.acked)
    duration = ((phase.last_ack or phase.first_send or 0) - (phase.first_send or 0)) or None
    lost = sum(1 for c in acked_new if log_counts.get(c, 0) != 1)
    phantom = sum(1 for c in phase.sent if c not in phase.acked and log_counts.get(c, 0) > 0)
    fan = _summ(phase.fanout)
    cross = _summ(phase.fanout_cross)
    ack = _summ(list(phase.acked.values()))
    expected = len(phase.acked) * (clients - 1)
    return {
        "clients": clients,
        "phase": phase.name,
        "ops_sent": len(phase.sent),
        "acked": len(phase.acked),
        "duplicate_acks": phase.duplicates,
        "rejected": dict(phase.rejected),
        "unanswered": len(phase.sent) - len(phase.acked) - sum(phase.rejected.values()),
        "errors": dict(phase.errors),
        "duration_s": round(duration, 3) if duration else None,
        "committed_ops_per_s": round(len(acked_new) / duration, 1) if duration else None,
        "ack_p50_ms": ack["p50"],
        "ack_p95_ms": ack["p95"],
        "ack_p99_ms": ack["p99"],
        "fanout_p50_ms": fan["p50"],
        "fanout_p95_ms": fan["p95"],
        "fanout_p99_ms": fan["p99"],
        "fanout_max_ms": fan["max"],
        "fanout_samples": fan["n"],
        "fanout_cross_process_p50_ms": cross["p50"],
        "fanout_cross_process_p99_ms": cross["p99"],
        "deliveries_expected": expected,
        "deliveries_received": len(phase.delivered),
        "deliveries_missed": max(0, expected - len(phase.delivered)),
        "deliveries_late": phase.delivered_late,
        "lost_acked_ops": lost,
        "committed_but_not_acked": phantom,
    }


def fetch_change_log(base_url: str, *, canvas_id: int, token: str) -> Counter:
    """client_op_id -> how many change-log revisions carry it (REST catch-up, paginated)."""
    counts: Counter = Counter()
    since = 0
    for _ in range(100_000):
        req = urllib.request.Request(
            f"{base_url}/api/canvases/{canvas_id}/changes/?since={since}&limit=1000",
            headers={"Authorization": f"Token {token}", "Accept": "application/json"},
        )
        with urllib.request.urlopen(req, timeout=60) as resp:
            page = json.loads(resp.read().decode("utf-8"))
        for event in page.get("events", []):
            if event.get("client_op_id"):
                counts[event["client_op_id"]] += 1
        if not page.get("has_more") or page.get("to") == since:
            break
        since = page["to"]
    return counts


def paced_ops(rate: float, seconds: float, clients: int) -> int:
    """Ops per client in a paced phase: `rate` ops/s in total for about `seconds` (at least 1 each)."""
    return max(1, round(rate * seconds / clients))


async def run_clients(
    cluster: Cluster,
    *,
    canvas_id: int,
    tokens: list[str],
    ops: int,
    rates: Sequence[float],
    timeout: float,
    phases: Sequence[str],
    progress: Progress | None,
    warmup: int = 0,
    paced_seconds: float = 20.0,
) -> tuple[list, list[str]]:
    servers_of = {i: i % len(cluster.ports) for i in range(len(tokens))}
    clients = [
        BenchClient(
            i,
            url=cluster.ws_url(servers_of[i], canvas_id),
            token=tokens[i],
            server=servers_of[i],
            servers_of=servers_of,
        )
        for i in range(len(tokens))
    ]
    notes: list[str] = []
    await asyncio.gather(*(c.connect() for c in clients))
    results = []
    try:
        if warmup:
            # Not reported: the first ops on each server process pay for lazy imports and new connections.
            warm = await _run_phase(
                clients, name="warmup", tag="w", ops=warmup, paced_rate=None, timeout=timeout, progress=None
            )
            results.append(warm)
        plan = [(name, rate) for name in phases for rate in (rates if name == "paced" else [None])]
        for i, (name, rate) in enumerate(plan):
            n = paced_ops(rate, paced_seconds, len(clients)) if rate else ops
            phase = await _run_phase(
                clients,
                name=name,
                tag=f"{name[0]}{i}",
                ops=n,
                paced_rate=rate,
                timeout=timeout,
                progress=progress,
            )
            results.append(phase)
    finally:
        for c in clients:
            if c.closed_reason:
                notes.append(f"client {c.index}: {c.closed_reason}")
        await asyncio.gather(*(c.close() for c in clients), return_exceptions=True)
    return results, notes


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
    # Also run the same clients against a bare Channels relay (canvasweb/bench/relay_asgi.py) on the
    # same Redis and report the app's figures as ratios of the relay's.
    floor: bool = False


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


def run_floor(
    options: SyncOptions, *, redis_url: str, extra_env: dict, log=print
) -> tuple[list[dict], list[str]]:
    """The same phases with the same clients against the bare relay."""
    relay = RelayCluster(database_url="sqlite:///unused", redis_url=redis_url, extra_env=extra_env)
    rows, notes = [], []
    try:
        relay.start(2)
        for n in options.clients:
            phases, client_notes = asyncio.run(
                run_clients(
                    relay,
                    canvas_id=900_000 + n,
                    tokens=["relay"] * n,
                    ops=options.ops,
                    rates=options.rates,
                    timeout=options.timeout,
                    phases=options.phases,
                    progress=None,
                    warmup=options.warmup,
                    paced_seconds=options.paced_seconds,
                )
            )
            notes += [f"relay {n} clients: {x}" for x in client_notes]
            for phase in phases:
                if phase.name == "warmup":
                    continue
                # No change log behind the relay: every acked op counts as delivered once.
                row = _phase_row(phase, clients=n, log_counts=Counter(dict.fromkeys(phase.acked, 1)))
                row["paced_rate"] = phase.paced_rate
                row["server"] = "relay"
                rows.append(row)
                log(
                    f"bench_sync relay: {n} clients {phase.name}: fan-out p50 {row['fanout_p50_ms']} ms, "
                    f"p99 {row['fanout_p99_ms']} ms, {row['committed_ops_per_s']} ops/s"
                )
    finally:
        relay.stop()
    return rows, notes


def floor_ratios(rows: Sequence[dict], relay_rows: Sequence[dict]) -> list[dict]:
    """App / relay per (clients, phase): ops/s, fan-out p50 and p99, missed deliveries of both."""
    relay = {(r["clients"], r["phase"], r.get("paced_rate")): r for r in relay_rows}
    out = []
    for r in rows:
        f = relay.get((r["clients"], r["phase"], r.get("paced_rate")))
        if f is None:
            continue

        def ratio(key: str, r: dict = r, f: dict = f) -> float | None:
            a, b = r.get(key), f.get(key)
            return round(a / b, 2) if a is not None and b else None

        out.append(
            {
                "clients": r["clients"],
                "phase": r["phase"],
                "paced_rate": r.get("paced_rate"),
                "app_ops_per_s": r["committed_ops_per_s"],
                "relay_ops_per_s": f["committed_ops_per_s"],
                "ops_ratio": ratio("committed_ops_per_s"),
                "app_fanout_p50_ms": r["fanout_p50_ms"],
                "relay_fanout_p50_ms": f["fanout_p50_ms"],
                "fanout_p50_ratio": ratio("fanout_p50_ms"),
                "app_fanout_p99_ms": r["fanout_p99_ms"],
                "relay_fanout_p99_ms": f["fanout_p99_ms"],
                "fanout_p99_ratio": ratio("fanout_p99_ms"),
                "app_ack_p50_ms": r["ack_p50_ms"],
                "relay_ack_p50_ms": f["ack_p50_ms"],
                "app_missed": r["deliveries_missed"],
                "relay_missed": f["deliveries_missed"],
            }
        )
    return out


def floor_targets(ratios: Sequence[dict]) -> list[dict]:
    out = []
    for r in ratios:
        if r["phase"] == "saturated" and r["clients"] in (10, 50):
            out.append(
                {
                    "name": f"saturated ops/s vs relay @ {r['clients']} clients",
                    "value": r["ops_ratio"],
                    "target": ">= 0.7",
                    "met": r["ops_ratio"] is not None and r["ops_ratio"] >= 0.7,
                }
            )
            out.append(
                {
                    "name": f"missed deliveries, saturated @ {r['clients']} clients",
                    "value": r["app_missed"],
                    "target": "== 0",
                    "met": r["app_missed"] == 0,
                }
            )
        if r["phase"] == "paced" and r["clients"] >= 50:
            out.append(
                {
                    "name": f"paced fan-out p50 vs relay @ {r['clients']} clients ({r['paced_rate']:g}/s)",
                    "value": r["fanout_p50_ratio"],
                    "target": "<= 1.3",
                    "met": r["fanout_p50_ratio"] is not None and r["fanout_p50_ratio"] <= 1.3,
                }
            )
    return out


FLOOR_COLUMNS = (
    ("clients", "clients"),
    ("phase", "phase"),
    ("app_ops_per_s", "app ops/s"),
    ("relay_ops_per_s", "relay ops/s"),
    ("ops_ratio", "ratio"),
    ("app_fanout_p50_ms", "app fan-out p50"),
    ("relay_fanout_p50_ms", "relay p50"),
    ("fanout_p50_ratio", "ratio"),
    ("app_fanout_p99_ms", "app p99"),
    ("relay_fanout_p99_ms", "relay p99"),
    ("app_missed", "app missed"),
    ("relay_missed", "relay missed"),
)


def floor_table(ratios: Sequence[dict]) -> tuple[list[str], list[list]]:
    rows = []
    for r in ratios:
        r = dict(r, phase=r["phase"] + (f" {r['paced_rate']:g}/s" if r.get("paced_rate") else ""))
        rows.append([r.get(k) for k, _ in FLOOR_COLUMNS])
    return [h for _, h in FLOOR_COLUMNS], rows


def database_for(options: SyncOptions, workdir: Path) -> tuple[str, str, bool]:
    """(database URL, description, is a Postgres database we must drop)."""
    server = options.postgres_url or next((os.environ[k] for k in DATABASE_ENV if os.environ.get(k)), None)
    if server:
        url = create_postgres_database(server)
        return url, "PostgreSQL (throwaway database " + url.rsplit("/", 1)[-1] + ")", True
    return sqlite_url(workdir), "SQLite file (temporary; no Postgres URL given)", False


def run_sync(options: SyncOptions, *, log=print) -> dict:
    workdir = Path(tempfile.mkdtemp(prefix="canvasweb-bench-sync-"))
    redis = None
    cluster = None
    db_url, db_desc, drop = None, "", False
    rows: list[dict] = []
    relay_rows: list[dict] = []
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
            cluster.start(2)
        except (RuntimeError, TimeoutError) as exc:
            raise RuntimeError(
                f"a Daphne process did not start: {exc}\n{cluster.log_text()[-3000:]}"
            ) from None
        log(f"bench_sync: daphne on ports {cluster.ports}")
        if drop:
            server_version = _postgres_version(db_url)
            commit_ms = postgres_commit_ms(db_url)
        for n in options.clients:
            if n < 2:
                raise ValueError("at least 2 clients are needed to measure fan-out")
            data = setup_canvas(cluster, clients=n, name=f"bench_sync {n} clients")
            tokens = [data["tokens"][u] for u in data["usernames"]]
            total = n * sum(
                paced_ops(rate, options.paced_seconds, n) if rate else options.ops
                for name in options.phases
                for rate in (options.rates if name == "paced" else [None])
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
                )
            )
            progress.close()
            notes += [f"{n} clients: {x}" for x in client_notes]
            counts = fetch_change_log(cluster.url(0), canvas_id=data["canvas_id"], token=tokens[0])
            for phase in phases:
                row = _phase_row(phase, clients=n, log_counts=counts)
                row["paced_rate"] = phase.paced_rate
                if phase.name == "warmup":
                    warmups.append(row)
                    continue
                rows.append(row)
                log(
                    f"bench_sync: {n} clients {phase.name}: fan-out p50 {row['fanout_p50_ms']} ms, "
                    f"p99 {row['fanout_p99_ms']} ms, {row['committed_ops_per_s']} ops/s, "
                    f"lost acked {row['lost_acked_ops']}"
                )
        if options.floor:
            cluster.stop()  # the relay gets the machine to itself, as the app did
            if any(p.returncode not in (0, 1, -15, None) for p in cluster.procs):
                notes.append("a Daphne process exited abnormally:\n" + cluster.log_text()[-2000:])
            cluster.procs = []  # stopped on purpose; not checked again below
            relay_rows, relay_notes = run_floor(options, redis_url=redis.url, extra_env=extra, log=log)
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
        "database_server_version": server_version,
        "database_commit_p50_ms": commit_ms,
        "rows": rows,
        "warmup": warmups,
        "floor_rows": relay_rows,
        "floor": floor_ratios(rows, relay_rows) if relay_rows else [],
        "notes": notes,
        "server_env": {
            "CANVASWEB_WS_OPS_PER_SECOND": options.ops_per_second_limit,
            "DATABASE_CONN_MAX_AGE": options.conn_max_age
            if options.conn_max_age is not None
            else "unset (settings default 0: a new connection per request)",
        },
    }


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


def _postgres_version(url: str) -> str | None:
    try:
        import psycopg

        with psycopg.connect(url) as conn:
            row = conn.execute("SHOW server_version").fetchone()
            return row[0] if row is not None else None
    except Exception:  # pragma: no cover
        return None


def targets(rows: Sequence[dict], *, postgres: bool, warmup: Sequence[dict] = ()) -> list[dict]:
    out = []
    big = [r for r in rows if r["clients"] >= 50]
    for r in big:
        if r["phase"] == "paced":
            out.append(
                {
                    "name": f"fan-out p50 @ {r['clients']} clients (paced {r['paced_rate']:g} ops/s)",
                    "value": r["fanout_p50_ms"],
                    "target": "<= 15 ms",
                    "met": r["fanout_p50_ms"] is not None and r["fanout_p50_ms"] <= 15,
                }
            )
            out.append(
                {
                    "name": f"fan-out p99 @ {r['clients']} clients (paced {r['paced_rate']:g} ops/s)",
                    "value": r["fanout_p99_ms"],
                    "target": "<= 80 ms",
                    "met": r["fanout_p99_ms"] is not None and r["fanout_p99_ms"] <= 80,
                }
            )
    if postgres:
        best = max((r["committed_ops_per_s"] or 0 for r in rows if r["phase"] == "saturated"), default=None)
        if best is not None:
            out.append(
                {
                    "name": "committed ops/s on Postgres (best saturated run)",
                    "value": best,
                    "target": ">= 500",
                    "met": best >= 500,
                }
            )
    lost = sum(r["lost_acked_ops"] for r in list(rows) + list(warmup))
    out.append(
        {
            "name": "lost acknowledged ops (all runs, warm-up included)",
            "value": lost,
            "target": "== 0",
            "met": lost == 0,
        }
    )
    return out


COLUMNS = (
    ("clients", "clients"),
    ("phase", "phase"),
    ("ops_sent", "ops"),
    ("acked", "acked"),
    ("committed_ops_per_s", "ops/s"),
    ("ack_p50_ms", "ack p50"),
    ("ack_p99_ms", "ack p99"),
    ("fanout_p50_ms", "fan-out p50"),
    ("fanout_p95_ms", "p95"),
    ("fanout_p99_ms", "p99"),
    ("fanout_cross_process_p50_ms", "cross-proc p50"),
    ("deliveries_missed", "missed deliveries"),
    ("deliveries_late", "late (catch-up)"),
    ("errors_total", "errors"),
    ("lost_acked_ops", "lost acked"),
)


def table(rows: Sequence[dict]) -> tuple[list[str], list[list]]:
    out = []
    for r in rows:
        r = dict(
            r,
            errors_total=sum(r["errors"].values()) + sum(r["rejected"].values()) + r["unanswered"],
            phase=r["phase"] + (f" {r['paced_rate']:g}/s" if r.get("paced_rate") else ""),
        )
        out.append([r.get(k) for k, _ in COLUMNS])
    return [h for _, h in COLUMNS], out


def render_markdown(report: dict) -> str:
    from .common import md_table

    m = report["machine"]
    headers, rows = table(report["rows"])
    lines = [
        "# Real-time fan-out",
        "",
        f"Two Daphne processes + Redis, database: {report['database']}"
        + (f" {report['database_server_version']}" if report.get("database_server_version") else "")
        + f". Paced phases: {', '.join(f'{r:g}' for r in report['rates'])} ops/s in total (all clients "
        f"together) for about {report['paced_seconds']:g} s each; saturated: {report['ops']} ops per client. "
        f"Run {report['finished_at']} on {m['cpu_model']} ({m['cpu_count']} cores, {m['ram_gb']} GB RAM, "
        f"load average {m.get('load_average')}); clients, servers, Redis and the database share the machine. "
        f"Times in ms."
        + (
            f" A one-row INSERT + COMMIT on this database takes {report['database_commit_p50_ms']} ms (p50)."
            if report.get("database_commit_p50_ms") is not None
            else ""
        ),
        "",
        md_table(headers, rows, align=["r", "l"] + ["r"] * (len(headers) - 2)),
        "",
        "## Targets",
        "",
        md_table(
            ["target", "value", "goal", "met"],
            [
                [t["name"], t["value"], t["target"], "yes" if t["met"] else "**no**"]
                for t in report["targets"]
            ],
            align=["l", "r", "l", "l"],
        ),
        "",
    ]
    if report.get("floor"):
        fh, fr = floor_table(report["floor"])
        lines += [
            "## Against the floor (a bare Channels relay, same clients, same Redis, same run)",
            "",
            md_table(fh, fr, align=["r", "l"] + ["r"] * (len(fh) - 2)),
            "",
        ]
    if report.get("notes"):
        lines += ["## Notes", ""] + [f"- {n}" for n in report["notes"]] + [""]
    return "\n".join(lines)
