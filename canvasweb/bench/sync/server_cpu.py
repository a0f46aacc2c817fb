"""CPU time of the server processes during a phase, read from /proc (Linux; elsewhere: not measured).

A phase's row gets the CPU its server processes used from its first send until it drained, per
acknowledged op: all threads (event loop, commit thread, Channels' database thread…) and the main
thread alone (Daphne's event loop, where the fan-out and every socket's frames are handled).
"""

from __future__ import annotations

import os
from collections.abc import Sequence


def _task_seconds(pid: int, tid: str) -> float | None:
    """On-CPU time of one thread: schedstat's nanoseconds (stat's 10-ms ticks are too coarse for a
    phase of a few hundred ops)."""
    try:
        with open(f"/proc/{pid}/task/{tid}/schedstat", encoding="ascii") as f:
            return int(f.read().split()[0]) / 1e9
    except (OSError, IndexError, ValueError):
        return None


def server_cpu(pids: Sequence[int]) -> tuple[float, float] | None:
    """(all threads, main threads) CPU seconds used so far by these processes' live threads; None if
    unreadable. Daphne's threads (event loop, commit and database threads) live as long as it does."""
    total = main = 0.0
    for pid in pids:
        try:
            tids = os.listdir(f"/proc/{pid}/task")
        except OSError:
            return None
        for tid in tids:
            seconds = _task_seconds(pid, tid)
            if seconds is None:
                if tid == str(pid):
                    return None
                continue  # a thread that ended meanwhile
            total += seconds
            if tid == str(pid):
                main += seconds
    return total, main


def cpu_used(
    before: tuple[float, float] | None, after: tuple[float, float] | None
) -> tuple[float, float] | None:
    if before is None or after is None:
        return None
    total = after[0] - before[0]
    # The main threads are part of the total; two float sums of the same ticks can differ in the last bit.
    return total, min(after[1] - before[1], total)
