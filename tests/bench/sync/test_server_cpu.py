"""bench_sync's server CPU per op: read from /proc for the server processes, divided by the acked ops."""

from __future__ import annotations

import os
import sys
import time
from collections import Counter

import pytest

from canvasweb.bench.sync.clients import PhaseState
from canvasweb.bench.sync.phases import phase_row
from canvasweb.bench.sync.server_cpu import cpu_used, server_cpu

needs_proc = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc (Linux)")


@needs_proc
def test_server_cpu_counts_the_cpu_a_process_used():
    pid = os.getpid()
    before = server_cpu([pid])
    deadline = time.process_time() + 0.3
    while time.process_time() < deadline:  # burn 0.3 s of CPU in this (main) thread
        pass
    used = cpu_used(before, server_cpu([pid]))
    assert used is not None
    total, main = used
    assert 0.2 <= main <= total <= 5.0
    assert server_cpu([2**22 + 12345]) is None  # no such process: not measured, not zero


def test_a_row_divides_the_phase_cpu_by_its_acked_ops():
    phase = PhaseState(name="saturated")
    for k in range(8):
        phase.sent[f"c{k}"] = (0, 0.0)
    for k in range(5):
        phase.acked[f"c{k}"] = 1.0
    phase.server_cpu = (0.01, 0.004)  # 10 ms over all threads, 4 ms in the main threads
    row = phase_row(phase, clients=2, log_counts=Counter(dict.fromkeys(phase.acked, 1)))
    assert (row["server_cpu_ms_per_op"], row["server_loop_cpu_ms_per_op"]) == (2.0, 0.8)
    phase.server_cpu = None
    row = phase_row(phase, clients=2, log_counts=Counter())
    assert row["server_cpu_ms_per_op"] is None and row["server_loop_cpu_ms_per_op"] is None


def test_the_main_threads_never_count_more_than_the_whole_process():
    # Summed in another order, the same clock ticks can come out a last bit larger.
    assert cpu_used((0.0, 0.0), (0.30043424799998775, 0.30043424800000196)) == (
        0.30043424799998775,
        0.30043424799998775,
    )
