"""The per-socket op rate limit: bursts, refill, and the penalty for a client that ignores refusals."""

from __future__ import annotations

from canvasweb.canvases.realtime import token_bucket
from canvasweb.canvases.realtime.token_bucket import TokenBucket


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _bucket(monkeypatch, rate: int = 10) -> tuple[TokenBucket, Clock]:
    clock = Clock()
    monkeypatch.setattr(token_bucket.time, "monotonic", clock)
    return TokenBucket(rate), clock


def test_burst_then_refill_and_retry_hint(monkeypatch):
    bucket, clock = _bucket(monkeypatch)
    assert all(bucket.take() for _ in range(10))
    assert not bucket.take()
    assert bucket.retry_after_ms() == 100  # one token at 10/s
    clock.now += 0.1
    assert bucket.take()


def test_a_client_that_backs_off_is_never_penalised(monkeypatch):
    bucket, clock = _bucket(monkeypatch)
    for _ in range(10):
        bucket.take()
    admitted = 0
    for _ in range(240):  # 20 s at 12 ops/s against a limit of 10/s: a few refusals a second
        clock.now += 1 / 12
        admitted += bucket.take()
    assert bucket.penalty_until < clock.now
    assert admitted >= 195  # the full 10/s (200 in 20 s), less rounding


def test_a_flood_that_ignores_refusals_is_slowed_to_a_quarter(monkeypatch):
    bucket, clock = _bucket(monkeypatch)
    admitted = 0
    for _ in range(400):  # 2 s at 200 frames/s
        clock.now += 0.005
        admitted += bucket.take()
    assert bucket.penalty_until > clock.now
    # without the penalty: 10 (burst) + 2 s x 10/s = 30
    assert admitted < 20
    clock.now += 0.9
    assert sum(bucket.take() for _ in range(10)) <= 3  # 2.5/s while the penalty lasts
