"""Pieces the history writes share: the operations they build, and the changes they return as
the actor's role may see them."""

from __future__ import annotations

import uuid

from canvasweb.canvases import permissions
from canvasweb.canvases import selectors as canvas_selectors
from canvasweb.canvases.actors import Actor
from canvasweb.canvases.operations import NODE_FIELDS, Operation, parse_operation
from canvasweb.canvases.visibility import filter_changes


def node_create_op(data: dict) -> Operation:
    body = {"id": data["id"], **{name: data[name] for name in NODE_FIELDS if name in data}}
    return parse_operation({"type": "node.create", "node": body})


def superseded_by_op(node_id: str, successor: str | None) -> Operation:
    """Set or clear superseded_by. Not a client operation: only undo and import restore this link,
    and always to a node on the same canvas (checked by the callers)."""
    return Operation(
        type="node.update",
        target_id=uuid.UUID(str(node_id)),
        fields={"superseded_by": uuid.UUID(str(successor)) if successor else None},
    )


def visible_changes(changes: list[dict], actor: Actor, canvas_id: int) -> list[dict]:
    role = canvas_selectors.user_role(user=actor.user, canvas_id=canvas_id)
    visible, _ = filter_changes(changes, level=permissions.role_level(role) if role else -1)
    return visible
