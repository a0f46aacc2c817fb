"""Create a new canvas from a JSON Canvas document (checked by the jsoncanvas package), all or nothing."""

from __future__ import annotations

from typing import Any

from django.db import transaction

from canvasweb.canvases import services
from canvasweb.canvases.actors import user_actor
from canvasweb.canvases.operations import Operation, parse_operation
from canvasweb.canvases.serialization import canvas_to_dict

from . import jsoncanvas
from .ops import superseded_by_op


def canvas_import(*, user, document: Any, name: str | None = None) -> dict:
    """Create a new canvas from a JSON Canvas document, all or nothing.

    The file is checked completely first; any problem rejects it whole
    (`jsoncanvas.ImportRejected` lists them). Then one transaction creates the
    canvas (services.canvas_create) and applies every node and edge as one batch
    with reason "import".
    """
    plan = jsoncanvas.plan_import(document)
    canvas_name = name if name not in (None, "") else (plan.name or "Imported canvas")
    with transaction.atomic():
        canvas = services.canvas_create(user=user, name=canvas_name, description=plan.description)
        ops = []
        for body in plan.nodes:
            ops.append(parse_operation({"type": "node.create", "node": body}))
        for node_id in plan.archived:
            ops.append(parse_operation({"type": "node.archive", "id": node_id, "archived": True}))
        for node_id, successor in plan.superseded:
            ops.append(superseded_by_op(node_id, successor))
        for body in plan.edges:
            ops.append(parse_operation({"type": "edge.create", "edge": body}))
        revision = canvas.revision
        if ops:
            result = services.apply_operation(
                actor=user_actor(user, channel="import", reason="import"),
                canvas_id=canvas.pk,
                op=Operation(type="batch", ops=tuple(ops)),
            )
            revision = result.revision
    canvas.refresh_from_db()
    return {
        "canvas": canvas_to_dict(canvas),
        "revision": revision,
        "nodes": len(plan.nodes),
        "edges": len(plan.edges),
        "id_map": plan.id_map,
        "unknown_keys": plan.unknown_keys,
        "notes": plan.notes,
    }
