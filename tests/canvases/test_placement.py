"""The pure placement function: nearest free spot, no overlap, deterministic."""

from __future__ import annotations

import itertools
import math

from canvasweb.canvases.placement import GAP, Rect, card_width, free_spot, node_rect


def test_a_free_wanted_point_is_kept():
    assert free_spot(taken=[Rect(0, 0)], want=(600.0, 0.0)) == (600.0, 0.0)


def test_a_taken_point_moves_to_the_nearest_free_spot_without_overlap():
    taken = [Rect(0, 0, 200, 110)]
    x, y = free_spot(taken=taken, want=(0.0, 0.0))
    assert not Rect(x, y, 200, 110).overlaps(taken[0])
    # one step away on the grid: right of the card (the first direction in the fixed order)
    assert (x, y) == (200 + GAP, 0.0)


def test_many_cards_placed_at_one_point_never_overlap_and_stay_close():
    taken: list[Rect] = [Rect(-40, -30, 260, 180)]  # an anchor card
    for _ in range(40):
        x, y = free_spot(taken=taken, want=(0.0, 0.0))
        new = Rect(x, y)
        assert not any(new.overlaps(other) for other in taken)
        taken.append(new)
    far = max(math.hypot(r.x, r.y) for r in taken[1:])
    assert far < 5 * (200 + GAP)  # 40 cards fit within a few rings of the anchor
    for a, b in itertools.combinations(taken, 2):
        assert not a.overlaps(b, gap=0)


def test_the_same_input_gives_the_same_answer():
    taken = [Rect(i * 150.0, (i % 3) * 90.0, 180, 100) for i in range(12)]
    results = {free_spot(taken=list(taken), want=(300.0, 90.0)) for _ in range(5)}
    assert len(results) == 1


def test_limits_and_sizes():
    assert free_spot(taken=[], want=(10_000_000.0, -10_000_000.0), limit=1_000_000) == (1_000_000, -1_000_000)
    assert card_width(1) == 200 and card_width(10) == 293 and card_width(float("nan")) == 200
    tall = node_rect(x=0, y=0, content="很长的中文说明" * 30)
    assert tall.h > node_rect(x=0, y=0, content="short").h
