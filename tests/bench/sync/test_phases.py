"""run_phase's closed loop keeps exactly `window` unacked ops per client in flight (no server: fake clients)."""

from __future__ import annotations

import asyncio

import pytest

from canvasweb.bench.sync.clients import BenchClient, PhaseState
from canvasweb.bench.sync.phases import phase_plan, run_phase


class HeldAckClient:
    """Sends instantly; its acks come only when the test's releaser answers the oldest op."""

    def __init__(self, index: int) -> None:
        self.index = index
        self.phase: PhaseState | None = None
        self.node_id = None
        self.outstanding: list[tuple[int, asyncio.Future]] = []
        self.sent: list[int] = []
        self.most_in_flight = 0

    async def start_op(self, phase: PhaseState, k: int, *, wait: bool) -> asyncio.Future:
        ack = asyncio.get_running_loop().create_future()
        phase.sent[f"{self.index}-{k}"] = (self.index, 0.0)
        self.sent.append(k)
        self.outstanding.append((k, ack))
        self.most_in_flight = max(self.most_in_flight, len(self.outstanding))
        return ack

    await_ack = staticmethod(BenchClient.await_ack)

    def answer_oldest(self) -> None:
        k, ack = self.outstanding.pop(0)
        assert self.phase is not None
        self.phase.acked[f"{self.index}-{k}"] = 1.0
        self.phase.delivered.add((f"{self.index}-{k}", 1 - self.index))  # the other client got it
        ack.set_result("ack")


async def _run(window: int, ops: int) -> list[HeldAckClient]:
    clients = [HeldAckClient(0), HeldAckClient(1)]

    async def releaser() -> None:
        # Answers an op only when a client has a full window out (or has sent everything), so the
        # loop is never handed an ack early: how many it keeps in flight is its own choice.
        while True:
            await asyncio.sleep(0)
            for c in clients:
                if c.outstanding and (len(c.outstanding) >= window or len(c.sent) == ops):
                    c.answer_oldest()

    task = asyncio.ensure_future(releaser())
    try:
        phase = await run_phase(
            clients,  # type: ignore[arg-type]
            name="pipelined",
            tag="t",
            ops=ops,
            paced_rate=None,
            timeout=10.0,
            progress=None,
            window=window,
        )
    finally:
        task.cancel()
    assert phase.window == window and len(phase.acked) == 2 * ops and not phase.errors
    return clients


@pytest.mark.parametrize("window", [1, 3, 8])
def test_closed_loop_keeps_window_ops_in_flight(window):
    for c in asyncio.run(_run(window, ops=10)):
        assert c.sent == list(range(10))
        assert c.most_in_flight == window


def test_phase_plan_runs_pipelined_with_the_window_and_the_rest_one_at_a_time():
    assert phase_plan(("paced", "saturated", "pipelined"), (5.0, 25.0), 8) == [
        ("paced", 5.0, 1),
        ("paced", 25.0, 1),
        ("saturated", None, 1),
        ("pipelined", None, 8),
    ]
