"""Items 2 and 3: real WebSockets against two Daphne processes on Redis + Postgres, with faults.

Item 2: RELIABILITY_STACK_CLIENTS x RELIABILITY_STACK_OPS (CI 6 x 60; soak 20 x 500) random ops
with random socket kills: no acked op lost, every client equal to the database within 5 s of
the end (the moment the last op was answered).

Item 3: the same with, at 25 % / 50 % / 75 % of the ops, a Redis restart (stop, 1.5 s down,
start empty), a Redis FLUSHALL, and a SIGKILL + restart of one Daphne: no acked op lost, every
client caught up with the database within 10 s of each recovery and at the end.
"""

from __future__ import annotations

import pytest

from canvasweb.testing.stack import Fault, daphne_kill_restart, redis_flushall, redis_restart, run_stack

from .conftest import env_int

pytestmark = [pytest.mark.crossprocess, pytest.mark.redis, pytest.mark.postgres]

STACK_CLIENTS = env_int("RELIABILITY_STACK_CLIENTS", 6)
STACK_OPS = env_int("RELIABILITY_STACK_OPS", 60)
FAULT_CLIENTS = env_int("RELIABILITY_FAULT_CLIENTS", 6)
FAULT_OPS = env_int("RELIABILITY_FAULT_OPS", 60)


def _explain(result: dict) -> str:
    return "\n".join([*result["problems"][:20], "--- events", *result["events"][-40:]])


async def test_real_stack_no_acked_op_lost_and_converges(pg_redis_cluster, record_figures):
    result = await run_stack(
        pg_redis_cluster,
        clients=STACK_CLIENTS,
        ops=STACK_OPS,
        seed=2,
        kill_every=1.0,
        converge_timeout=5.0,
        name="stack",
    )
    record_figures("real_stack", result["figures"])
    assert not result["problems"], _explain(result)
    figures = result["figures"]
    assert figures["lost_acked_ops"] == 0 and figures["acked"] > 0
    assert figures["socket_kills"] > 0 and figures["converged_after_end_s"] <= 5.0


async def test_faults_redis_restart_flushall_daphne_kill(pg_redis_cluster, record_figures):
    faults = [
        Fault("redis restart", 0.25, redis_restart(1.5)),
        Fault("redis FLUSHALL", 0.5, redis_flushall()),
        Fault("daphne SIGKILL + restart", 0.75, daphne_kill_restart(1, 1.0)),
    ]
    result = await run_stack(
        pg_redis_cluster,
        clients=FAULT_CLIENTS,
        ops=FAULT_OPS,
        seed=3,
        kill_every=2.0,
        pace=0.03,
        faults=faults,
        converge_timeout=10.0,
        name="faults",
    )
    record_figures("faults", result["figures"])
    assert not result["problems"], _explain(result)
    figures = result["figures"]
    assert figures["lost_acked_ops"] == 0 and figures["acked"] > 0
    for fault in figures["faults"]:
        assert (
            fault["caught_up_after_recovery_s"] is not None and fault["caught_up_after_recovery_s"] <= 10.0
        ), fault
    assert figures["converged_after_end_s"] <= 10.0
