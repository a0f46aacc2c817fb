"""Where a new node goes: the free spot nearest to the wanted point.

Pure (no Django): callers pass the rectangles already taken (live nodes, ghost
cards of pending proposals, nodes placed earlier in the same batch) and the
point they would like. Candidates are the wanted point and then rings of a grid
around it (one card plus a gap per step), each ring in order of distance, ties
in a fixed angular order, so the answer is deterministic.

The front end has a twin for positions the client chooses (paste, supersede
draft): frontend/src/canvas/placement.ts.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

DEFAULT_WIDTH = 200.0
DEFAULT_HEIGHT = 110.0
GAP = 24.0
MAX_RINGS = 60


@dataclass(frozen=True)
class Rect:
    x: float
    y: float
    w: float = DEFAULT_WIDTH
    h: float = DEFAULT_HEIGHT

    def overlaps(self, other: Rect, gap: float = GAP) -> bool:
        return (
            self.x < other.x + other.w + gap
            and other.x < self.x + self.w + gap
            and self.y < other.y + other.h + gap
            and other.y < self.y + self.h + gap
        )


def card_width(weight: float | None) -> float:
    """The card width the front end draws for a weight (kinds.ts weightStyle)."""
    w = weight if isinstance(weight, (int, float)) and math.isfinite(weight) else 1.0
    w = min(10.0, max(0.1, float(w)))
    return float(min(300, max(170, round(200 + math.log2(w) * 28))))


def card_height(content: str | None) -> float:
    """A rough card height: head and padding plus wrapped lines of about 28 characters."""
    lines = sum(max(1, math.ceil(len(part) / 28)) for part in (content or "").split("\n"))
    return float(min(320, 64 + 19 * lines))


def node_rect(*, x: float, y: float, weight: float | None = 1.0, content: str | None = "") -> Rect:
    return Rect(float(x), float(y), card_width(weight), card_height(content))


def _ring(radius: int) -> list[tuple[int, int]]:
    cells = [
        (dx, dy)
        for dy in range(-radius, radius + 1)
        for dx in range(-radius, radius + 1)
        if max(abs(dx), abs(dy)) == radius
    ]
    # nearest first; ties broken by angle starting to the right, clockwise on screen (y down)
    return sorted(cells, key=lambda c: (c[0] ** 2 + c[1] ** 2, math.atan2(c[1], c[0]) % (2 * math.pi)))


def free_spot(
    *,
    taken: Iterable[Rect],
    want: tuple[float, float],
    size: tuple[float, float] = (DEFAULT_WIDTH, DEFAULT_HEIGHT),
    gap: float = GAP,
    limit: float | None = None,
) -> tuple[float, float]:
    """Top-left corner nearest to `want` where a card of `size` overlaps none of `taken`.

    `limit` clamps coordinates to ±limit. When nothing is free within MAX_RINGS
    rings (a very crowded canvas), it returns the first spot beyond them.
    """
    w, h = float(size[0]), float(size[1])
    boxes = list(taken)
    step_x, step_y = w + gap, h + gap
    wx, wy = float(want[0]), float(want[1])

    def clamp(v: float) -> float:
        return v if limit is None else min(max(v, -limit), limit)

    for radius in range(MAX_RINGS + 1):
        for dx, dy in [(0, 0)] if radius == 0 else _ring(radius):
            cx, cy = clamp(round(wx + dx * step_x, 2)), clamp(round(wy + dy * step_y, 2))
            box = Rect(cx, cy, w, h)
            if not any(box.overlaps(other, gap) for other in boxes):
                return cx, cy
    return clamp(round(wx + (MAX_RINGS + 1) * step_x, 2)), clamp(wy)


__all__ = ["GAP", "Rect", "card_height", "card_width", "free_spot", "node_rect"]
