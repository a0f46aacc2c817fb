"""Reads for placement: the rectangles the cards of a canvas take (see placement.py, which stays pure)."""

from __future__ import annotations

from collections.abc import Iterable

from .models import Node
from .placement import Rect, card_height, card_width, free_spot, node_rect


def node_rects(*, canvas_id: int, exclude: Iterable[str] = ()) -> list[Rect]:
    skip = {str(i) for i in exclude}
    return [
        node_rect(x=x, y=y, weight=weight, content=content)
        for pk, x, y, weight, content in Node.objects.filter(canvas_id=canvas_id).values_list(
            "pk", "x", "y", "weight", "content"
        )
        if str(pk) not in skip
    ]


def place_new_node(
    *,
    canvas_id: int,
    want: tuple[float, float],
    content: str = "",
    weight: float | None = 1.0,
    taken: Iterable[Rect] = (),
    limit: float | None = None,
) -> tuple[float, float]:
    """The free spot nearest to `want` for a new card, given the canvas's nodes plus `taken` (e.g. ghosts)."""
    return free_spot(
        taken=[*node_rects(canvas_id=canvas_id), *taken],
        want=want,
        size=(card_width(weight), card_height(content)),
        limit=limit,
    )


__all__ = ["node_rects", "place_new_node"]
