"""Per-socket op admission: a token bucket with a flood penalty (docs/reliability.md, "flood")."""

from __future__ import annotations

import math
import time


class TokenBucket:
    """Allows `rate` ops per second with bursts of `rate`; refuses beyond.

    A client refused faster than `rate` times a second for about a second (it ignores
    `retry_after_ms`) is flooding: for FLOOD_PENALTY_SECONDS it refills at a quarter of the rate,
    so its ops and their broadcasts do not crowd out everyone else on the canvas. A client that
    backs off is never penalised.
    """

    FLOOD_PENALTY_SECONDS = 2.0

    def __init__(self, rate: int):
        self.rate = float(rate)
        self.tokens = float(rate)
        self.updated = time.monotonic()
        self.refused = 0.0  # refusals, leaking away at `rate` per second
        self.penalty_until = 0.0

    def _refill_rate(self, now: float) -> float:
        return self.rate / 4 if now < self.penalty_until else self.rate

    def take(self) -> bool:
        now = time.monotonic()
        elapsed = now - self.updated
        self.tokens = min(self.rate, self.tokens + elapsed * self._refill_rate(now))
        self.refused = max(0.0, self.refused - elapsed * self.rate)
        self.updated = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        self.refused += 2  # leaks at `rate` a second: only refusals faster than rate/2 a second pile up
        if self.refused >= 2 * self.rate:
            self.penalty_until = now + self.FLOOD_PENALTY_SECONDS
            self.refused = 0.0
        return False

    def retry_after_ms(self) -> int:
        """How long until the next op would be admitted."""
        now = time.monotonic()
        return max(1, math.ceil((1 - self.tokens) / self._refill_rate(now) * 1000))
