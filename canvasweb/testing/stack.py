"""Real-stack sync runs: SyncClients over real WebSockets against a Daphne cluster, with faults.

`run_stack` connects N clients (an owner, editors and one viewer) to the
cluster's Daphne processes (a random live process on every reconnect), has each
submit `ops` random operations (`OpGenerator`, at most `window` unanswered at a
time, offline edits while disconnected), kills random client sockets along the
way, optionally injects server faults at given fractions of the run, then
measures how long the clients take to equal the database and checks the
invariants (`canvasweb.testing.invariants`) inside the cluster's own database.

Used by tests/reliability (items 2, 3, 9) and `manage.py soak`.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import subprocess
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .fixtures import setup_canvas_in
from .invariants import check_in_cluster, client_report
from .opgen import OpGenerator
from .sync_client import SyncClient, WebSocketRunner, document_diff

if TYPE_CHECKING:
    from .servers import Cluster, RedisServer

ORIGIN = "http://127.0.0.1"


@dataclass
class Fault:
    name: str
    at: float  # fraction of all ops submitted
    action: Callable[[StackRun], Awaitable[None]]
    started: float | None = None
    recovered: float | None = None
    revision_at_recovery: int | None = None
    caught_up_after: float | None = None


@dataclass
class StackRun:
    cluster: Cluster
    canvas_id: int
    tokens: dict
    user_ids: dict
    roles: dict  # username -> role
    clients: list[SyncClient] = field(default_factory=list)
    runners: list[WebSocketRunner] = field(default_factory=list)
    users: list[str] = field(default_factory=list)  # username per client
    alive: set = field(default_factory=set)  # indexes of live Daphne processes
    kills: int = 0
    events: list[str] = field(default_factory=list)

    def log(self, text: str) -> None:
        self.events.append(f"{time.monotonic():.3f} {text}")

    def live_url(self) -> str:
        index = random.choice(sorted(self.alive)) if self.alive else 0
        return self.cluster.ws_url(index, self.canvas_id)

    # --- database view through the REST API (the same selectors the sockets use) ---------

    async def api(self, client, path: str, username: str) -> dict:
        index = sorted(self.alive)[0] if self.alive else 0
        return await asyncio.to_thread(get_json, f"{self.cluster.url(index)}{path}", self.tokens[username])

    async def snapshots(self, client) -> dict[str, dict]:
        result = {}
        for role in sorted(set(self.roles.values())):
            username = next(u for u, r in self.roles.items() if r == role)
            snap = await self.api(client, f"/api/canvases/{self.canvas_id}/snapshot/", username)
            result[role] = {
                "revision": snap["revision"],
                "nodes": {n["id"]: n for n in snap["nodes"]},
                "edges": {e["id"]: e for e in snap["edges"]},
            }
        return result

    async def db_revision(self, client) -> int:
        owner = next(u for u, r in self.roles.items() if r == "owner")
        return (await self.api(client, f"/api/canvases/{self.canvas_id}/", owner))["revision"]

    def converged(self, snapshots: dict) -> list[str]:
        problems = []
        for name_client, username in zip(self.clients, self.users, strict=True):
            role = self.roles[username]
            snap = snapshots[role]
            if name_client.revision != snap["revision"]:
                problems.append(f"{name_client.name}: R={name_client.revision} db={snap['revision']}")
                continue
            diff = document_diff(snap, name_client.document(), limit=2)
            if diff:
                problems.append(f"{name_client.name}: {diff[:2]}")
        return problems


async def run_stack(
    cluster,
    *,
    clients: int,
    ops: int,
    seed: int = 1,
    kill_every: float = 1.5,
    window: int = 4,
    pace: float = 0.01,
    faults: list[Fault] | None = None,
    converge_timeout: float = 5.0,
    settle_timeout: float = 120.0,
    name: str = "stack",
) -> dict:
    """Returns figures and problems; see the module docstring."""
    rng = random.Random(seed)
    usernames = [f"{name}-owner"] + [f"{name}-ed{i}" for i in range(1, clients - 1)] + [f"{name}-viewer"]
    usernames = usernames[:clients] if clients >= 2 else usernames[:1]
    members = {u: ("viewer" if u.endswith("-viewer") else "editor") for u in usernames[1:]}
    data = await asyncio.to_thread(
        setup_canvas_in, cluster, users=usernames, owner=usernames[0], members=members, name=f"{name} canvas"
    )
    roles = {usernames[0]: "owner", **members}
    run = StackRun(
        cluster=cluster,
        canvas_id=data["canvas_id"],
        tokens=data["tokens"],
        user_ids=data["users"],
        roles=roles,
        alive=set(range(len(cluster.ports))),
    )
    for index, username in enumerate(usernames):
        client = SyncClient(f"{username}#{index}", op_id_prefix=f"{username}-{seed}-{index}", lag_grace=0.5)
        runner = WebSocketRunner(
            client,
            urls=run.live_url,
            headers={"Authorization": f"Token {data['tokens'][username]}"},
            origin=ORIGIN,
            rng=random.Random(seed * 100 + index),
        )
        run.clients.append(client)
        run.runners.append(runner)
        run.users.append(username)
    started = time.monotonic()
    for runner in run.runners:
        runner.start()
    await asyncio.gather(*(asyncio.wait_for(r.connected_event.wait(), 30) for r in run.runners))

    total = clients * ops
    submitted: Counter[str] = Counter()
    faults = sorted(faults or [], key=lambda f: f.at)
    fault_tasks: list[asyncio.Task] = []

    stop_killing = asyncio.Event()
    kill_now = asyncio.Event()
    kill_points = [total // 3, 2 * total // 3] if kill_every > 0 else []

    async def drive(index: int) -> None:
        client, username = run.clients[index], run.users[index]
        generator = OpGenerator(random.Random(seed * 1000 + index))
        role = roles[username]
        for _ in range(ops):
            deadline = time.monotonic() + 30
            while len(client.pending) >= window and time.monotonic() < deadline:
                await asyncio.sleep(0.005)
            client.submit(generator.op(client, role))
            submitted["ops"] += 1
            if kill_points and submitted["ops"] >= kill_points[0]:
                kill_points.pop(0)
                kill_now.set()
            while faults and submitted["ops"] >= faults[0].at * total:
                fault = faults.pop(0)
                # One fault at a time: each starts once the previous one has recovered and healed.
                previous = fault_tasks[-1] if fault_tasks else None
                fault_tasks.append(asyncio.ensure_future(_run_fault(run, fault, after=previous)))
            await asyncio.sleep(pace * rng.random())

    async def killer() -> None:
        while not stop_killing.is_set():
            # A kill every kill_every s on average, and one at each third of the ops whatever the
            # time: a fast server must not finish the run before the first kill.
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(kill_now.wait(), kill_every * (0.5 + rng.random()))
            kill_now.clear()
            if stop_killing.is_set():
                break
            connected = [r for r in run.runners if r.ws is not None and r.client.connected]
            if connected:
                runner = rng.choice(connected)
                run.kills += 1
                run.log(f"kill socket of {runner.client.name}")
                runner.kill()

    killer_task = asyncio.ensure_future(killer()) if kill_every > 0 else None
    all_faults = list(faults)
    await asyncio.gather(*(drive(i) for i in range(clients)))
    last_submit = time.monotonic()
    stop_killing.set()
    if killer_task:
        killer_task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await killer_task
    if fault_tasks:
        await asyncio.gather(*fault_tasks)

    # Every op answered (acked or rejected): the database stops changing.
    deadline = time.monotonic() + settle_timeout
    while any(c.pending for c in run.clients) and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    all_answered = time.monotonic()
    unanswered = sum(len(c.pending) for c in run.clients)

    # How long until every client equals the database snapshot for its role.
    problems: list[str] = []
    converged_after = None
    http = None
    snapshots = await run.snapshots(http)
    end_revision = max(s["revision"] for s in snapshots.values())
    while True:
        # The snapshot may be older than the last commits (an op acked after we read it): reread.
        if any(c.revision is not None and c.revision > end_revision for c in run.clients):
            snapshots = await run.snapshots(http)
            end_revision = max(s["revision"] for s in snapshots.values())
        lagging = run.converged(snapshots)
        if not lagging:
            converged_after = time.monotonic() - all_answered
            break
        if time.monotonic() - all_answered > max(converge_timeout, 30.0):
            problems.append(
                f"not converged {time.monotonic() - all_answered:.1f} s after the end: {lagging[:4]}"
            )
            break
        await asyncio.sleep(0.02)
    for fault in all_faults:
        if fault.revision_at_recovery is None:
            fault.revision_at_recovery = end_revision
    for runner in run.runners:
        await runner.stop()

    reports = [client_report(c, user_id=run.user_ids[u]) for c, u in zip(run.clients, run.users, strict=True)]
    check = await asyncio.to_thread(check_in_cluster, cluster, run.canvas_id, reports, workdir=cluster.tmp)
    problems += check["problems"]
    if unanswered:
        problems.append(f"{unanswered} ops never answered")
    if converged_after is not None and converged_after > converge_timeout:
        problems.append(f"converged only {converged_after:.2f} s after the end (limit {converge_timeout} s)")
    stats: Counter[str] = Counter()
    for client in run.clients:
        stats.update(client.stats)
    lost = [p for p in check["problems"] if p.startswith("LOST")]
    figures = {
        "clients": clients,
        "ops_per_client": ops,
        "ops_submitted": submitted["ops"],
        "acked": check["figures"]["acked"],
        "noop_acks": check["figures"]["noop_acks"],
        "rejected": check["figures"]["rejected"],
        "lost_acked_ops": len(lost),
        "revision": check["figures"]["revision"],
        "nodes_created": check["figures"]["nodes_created"],
        "edges_created": check["figures"]["edges_created"],
        "socket_kills": run.kills,
        "reconnects": stats["connects"] - clients,
        "failed_connects": sum(r.failed_connects for r in run.runners),
        "gap_events": stats["gap_events"],
        "catch_ups": stats["catch_ups"],
        "snapshots": stats["snapshots"],
        "resyncs": stats["resyncs"],
        "duplicate_acks": stats["duplicate_acks"],
        "rate_limited": stats["reject:RATE_LIMITED"],
        "run_seconds": round(last_submit - started, 1),
        "answered_after_last_submit_s": round(all_answered - last_submit, 2),
        "converged_after_end_s": None if converged_after is None else round(converged_after, 3),
        "faults": [
            {
                "fault": f.name,
                "down_s": None
                if f.recovered is None or f.started is None
                else round(f.recovered - f.started, 2),
                "caught_up_after_recovery_s": None
                if f.caught_up_after is None
                else round(f.caught_up_after, 2),
            }
            for f in all_faults
        ],
    }
    for fault in all_faults:
        if fault.caught_up_after is None:
            problems.append(f"clients did not catch up after {fault.name}")
    return {"figures": figures, "problems": problems, "events": run.events, "run": run}


def get_json(url: str, token: str, timeout: float = 10.0) -> dict:
    import urllib.request

    request = urllib.request.Request(
        url, headers={"Authorization": f"Token {token}", "Accept": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=timeout) as response:
        return json.loads(response.read())


async def _run_fault(run: StackRun, fault: Fault, *, after: asyncio.Task | None = None) -> None:
    if after is not None:
        with contextlib.suppress(Exception):
            await after
    fault.started = time.monotonic()
    run.log(f"fault {fault.name} starts")
    await fault.action(run)
    fault.recovered = time.monotonic()
    run.log(f"fault {fault.name} recovered")
    # Caught up = every client has applied at least the revision the database had at recovery.
    for _ in range(50):
        try:
            fault.revision_at_recovery = await run.db_revision(None)
            break
        except Exception:
            await asyncio.sleep(0.2)
    target = fault.revision_at_recovery or 0
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if all(c.revision is not None and c.revision >= target for c in run.clients):
            fault.caught_up_after = time.monotonic() - fault.recovered
            run.log(f"fault {fault.name}: all clients at >= r{target} after {fault.caught_up_after:.2f} s")
            return
        await asyncio.sleep(0.02)


# --- fault actions ----------------------------------------------------------------------------------


def redis_restart(down_seconds: float = 1.5):
    async def action(run: StackRun) -> None:
        from .servers import RedisServer

        redis = _redis(run)
        port = redis.port
        redis.stop()
        run.log(f"redis on {port} stopped")
        await asyncio.sleep(down_seconds)
        run.cluster.redis = await asyncio.to_thread(RedisServer.start, port)
        run.log(f"redis on {port} started again (empty)")

    return action


def _redis(run: StackRun) -> RedisServer:
    if run.cluster.redis is None:
        raise RuntimeError("this fault needs a cluster started with its own Redis server")
    return run.cluster.redis


def redis_flushall():
    async def action(run: StackRun) -> None:
        subprocess.run(
            ["redis-cli", "-p", str(_redis(run).port), "FLUSHALL"],
            check=True,
            capture_output=True,
            timeout=10,
        )
        run.log("redis FLUSHALL")

    return action


def redis_debug_sleep(seconds: float = 2.0):
    async def action(run: StackRun) -> None:
        await asyncio.to_thread(
            subprocess.run,
            ["redis-cli", "-p", str(_redis(run).port), "DEBUG", "SLEEP", str(seconds)],
            capture_output=True,
            timeout=30,
        )
        run.log(f"redis DEBUG SLEEP {seconds}")

    return action


def daphne_kill_restart(index: int = 1, down_seconds: float = 1.0):
    async def action(run: StackRun) -> None:
        import signal

        run.alive.discard(index)
        await asyncio.to_thread(run.cluster.kill, index, signal.SIGKILL)
        run.log(f"daphne {index} SIGKILLed")
        await asyncio.sleep(down_seconds)
        await asyncio.to_thread(run.cluster.restart, index)
        run.alive.add(index)
        run.log(f"daphne {index} restarted")

    return action


def summarize(result: dict) -> str:
    return json.dumps(result["figures"], default=str)
