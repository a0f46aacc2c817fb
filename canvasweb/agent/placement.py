"""Ghost cards: the rectangles that pending proposals' new nodes will take, so new ones avoid them."""

from __future__ import annotations

from canvasweb.canvases.occupied import place_new_node
from canvasweb.canvases.placement import Rect, node_rect

from .models import Proposal, ProposalStatus


def ghost_rects(*, canvas_id: int, exclude_proposal: int | None = None) -> list[Rect]:
    rects = []
    for pk, op in Proposal.objects.filter(canvas_id=canvas_id, status=ProposalStatus.PENDING).values_list(
        "pk", "op"
    ):
        body = (op or {}).get("node") if pk != exclude_proposal else None
        if (
            isinstance(body, dict)
            and isinstance(body.get("x"), (int, float))
            and isinstance(body.get("y"), (int, float))
        ):
            rects.append(
                node_rect(x=body["x"], y=body["y"], weight=body.get("weight"), content=body.get("content"))
            )
    return rects


def place_agent_node(
    *,
    canvas_id: int,
    want: tuple[float, float],
    content: str,
    weight: float | None = 1.0,
    limit: float | None = None,
    exclude_proposal: int | None = None,
) -> tuple[float, float]:
    """Nearest free spot to `want`, clear of live cards and of other proposals' ghost cards."""
    return place_new_node(
        canvas_id=canvas_id,
        want=want,
        content=content,
        weight=weight,
        limit=limit,
        taken=ghost_rects(canvas_id=canvas_id, exclude_proposal=exclude_proposal),
    )


__all__ = ["ghost_rects", "place_agent_node", "with_free_position"]


def with_free_position(proposal: Proposal) -> dict:
    """The proposal's op, its new node moved to a free spot if the canvas filled its place since it was made."""
    from canvasweb.canvases.operations import COORDINATE_LIMIT

    op = proposal.op or {}
    body = op.get("node") if isinstance(op, dict) else None
    if not isinstance(body, dict) or not all(isinstance(body.get(k), (int, float)) for k in ("x", "y")):
        return op
    x, y = place_agent_node(
        canvas_id=proposal.canvas_id,
        want=(body["x"], body["y"]),
        content=body.get("content", ""),
        weight=body.get("weight"),
        limit=COORDINATE_LIMIT,
        exclude_proposal=proposal.pk,
    )
    if (x, y) == (body["x"], body["y"]):
        return op
    return {**op, "node": {**body, "x": x, "y": y}}
