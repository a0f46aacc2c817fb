"""Running the clients through the phases (warm-up, paced, saturated) and measuring each phase.

`paced`: all clients together send a fixed total rate, not waiting for acks; `saturated`: each
client sends its next op as soon as the previous one is acked (closed loop); `pipelined`: the same
closed loop with up to `window` unacked ops per client in flight. A phase row checks every
acknowledged op against the change log read back over REST.
"""

from __future__ import annotations

import asyncio
import gc
import json
import time
import urllib.request
from collections import Counter
from collections.abc import Sequence

from canvasweb.testing.servers import Cluster

from ..common import Progress, percentile
from .clients import BenchClient, PhaseState
from .server_cpu import cpu_used, server_cpu


async def run_phase(
    clients: Sequence[BenchClient],
    *,
    name: str,
    tag: str,
    ops: int,
    paced_rate: float | None,
    timeout: float,
    progress: Progress | None,
    window: int = 1,
) -> PhaseState:
    phase = PhaseState(name=name, tag=tag, paced_rate=paced_rate, window=window)
    for c in clients:
        c.phase = phase
        c.node_id = None
    deadline = time.monotonic() + timeout

    def count_answered(_: asyncio.Future) -> None:
        if progress is not None:
            progress.advance()

    async def closed_loop(c: BenchClient) -> None:
        # Up to `window` unacked ops in flight: the next op goes out as soon as one is answered.
        in_flight: set[asyncio.Task] = set()
        for k in range(ops):
            if len(in_flight) >= window:
                _, in_flight = await asyncio.wait(in_flight, return_when=asyncio.FIRST_COMPLETED)
            left = deadline - time.monotonic()
            if left <= 0:
                phase.errors["phase_timeout"] += 1
                break
            ack = await c.start_op(phase, k, wait=True)
            if ack is None:
                continue
            answered = asyncio.ensure_future(c.await_ack(phase, ack, timeout=min(left, 30.0)))
            answered.add_done_callback(count_answered)
            in_flight.add(answered)
        if in_flight:
            await asyncio.wait(in_flight)

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
    # Wait for the outstanding acks and for the fan-out to drain (bounded), so that the next phase
    # starts with no deliveries of this one still queued; how long that took is reported.
    others = len(clients) - 1
    settle_start = time.monotonic()
    settle_until = min(deadline, settle_start + 15.0)
    while True:
        answered = len(phase.acked) + sum(phase.rejected.values())
        expected = len(phase.acked) * others
        if answered >= len(phase.sent) and len(phase.delivered) + by_snapshot(phase) >= expected:
            phase.drained = True
            break
        if time.monotonic() >= settle_until:
            break
        await asyncio.sleep(0.01)
    phase.drain_ms = (time.monotonic() - settle_start) * 1000
    return phase


def by_snapshot(phase: PhaseState) -> int:
    """Deliveries a receiver never got as an event but holds through a later snapshot (the op's
    revision is at or before a snapshot the receiver got in this phase)."""
    if not phase.snapshot_revision:
        return 0
    count = 0
    for cid, revision in phase.ack_revision.items():
        sender = phase.sent[cid][0]
        for receiver, upto in phase.snapshot_revision.items():
            if (
                receiver != sender
                and revision is not None
                and revision <= upto
                and (cid, receiver) not in phase.delivered
            ):
                count += 1
    return count


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


def phase_row(phase: PhaseState, *, clients: int, log_counts: Counter) -> dict:
    acked_new = list(phase.acked)
    duration = ((phase.last_ack or phase.first_send or 0) - (phase.first_send or 0)) or None
    lost = sum(1 for c in acked_new if log_counts.get(c, 0) != 1)
    phantom = sum(1 for c in phase.sent if c not in phase.acked and log_counts.get(c, 0) > 0)
    fan = _summ(phase.fanout)
    cross = _summ(phase.fanout_cross)
    ack = _summ(list(phase.acked.values()))
    expected = len(phase.acked) * (clients - 1)

    def cpu_ms_per_op(seconds: float) -> float | None:
        return round(seconds * 1000 / len(phase.acked), 3) if phase.acked else None

    cpu = phase.server_cpu
    return {
        "clients": clients,
        "phase": phase.name,
        "window": phase.window,
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
        "deliveries_by_snapshot": (snapshot := by_snapshot(phase)),
        "deliveries_missed": max(0, expected - len(phase.delivered) - snapshot),
        "deliveries_late": phase.delivered_late,
        "drain_ms": round(phase.drain_ms, 1) if phase.drain_ms is not None else None,
        "drained": phase.drained,
        "lost_acked_ops": lost,
        "committed_but_not_acked": phantom,
        "server_cpu_ms_per_op": cpu_ms_per_op(cpu[0]) if cpu else None,
        "server_loop_cpu_ms_per_op": cpu_ms_per_op(cpu[1]) if cpu else None,
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


def phase_plan(
    phases: Sequence[str], rates: Sequence[float], window: int
) -> list[tuple[str, float | None, int]]:
    """(phase, paced rate, ops in flight per client) in run order: one paced phase per rate,
    `saturated` with one op in flight, `pipelined` with `window`."""
    plan: list[tuple[str, float | None, int]] = []
    for name in phases:
        if name == "paced":
            plan += [(name, rate, 1) for rate in rates]
        else:
            plan.append((name, None, window if name == "pipelined" else 1))
    return plan


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
    window: int = 1,
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
    # This process holds Django and every client's state: a full garbage collection scans it all
    # (about 100 ms with 200,000 objects) and would delay the arrival times it records. What exists
    # now stays alive for the run anyway: out of the collector's way.
    gc.collect()
    gc.freeze()
    results = []
    try:
        if warmup:
            # Not reported: the first ops on each server process pay for lazy imports and new connections.
            warm = await run_phase(
                clients, name="warmup", tag="w", ops=warmup, paced_rate=None, timeout=timeout, progress=None
            )
            results.append(warm)
        for i, (name, rate, phase_window) in enumerate(phase_plan(phases, rates, window)):
            n = paced_ops(rate, paced_seconds, len(clients)) if rate else ops
            pids = [p.pid for p in cluster.procs]
            cpu_before = server_cpu(pids)
            phase = await run_phase(
                clients,
                name=name,
                tag=f"{name[0]}{i}",
                ops=n,
                paced_rate=rate,
                timeout=timeout,
                progress=progress,
                window=phase_window,
            )
            phase.server_cpu = cpu_used(cpu_before, server_cpu(pids))
            results.append(phase)
    finally:
        gc.unfreeze()
        for c in clients:
            if c.closed_reason:
                notes.append(f"client {c.index}: {c.closed_reason}")
        await asyncio.gather(*(c.close() for c in clients), return_exceptions=True)
    return results, notes
