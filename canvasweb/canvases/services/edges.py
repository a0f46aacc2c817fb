"""Edge operations: create, update, delete."""

from __future__ import annotations

import uuid

from canvasweb.common.errors import NotFound

from .. import permissions
from ..models import Edge
from ..operations import EDGE_FIELDS, Operation
from ..serialization import edge_to_dict
from .commit import _Write
from .new_ids import require_usable_id
from .nodes import _create_edge, _edge_level, _get_node


def _get_edge(write: _Write, edge_id: uuid.UUID) -> Edge:
    edge = (
        Edge.objects.filter(pk=edge_id, canvas=write.canvas)
        .select_related("source", "target", "created_by")
        .first()
    )
    if edge is None or _edge_level(edge.source, edge.target) > permissions.role_level(write.role):
        raise NotFound(f"no edge {edge_id} on this canvas", field="id")
    return edge


def _op_edge_create(write: _Write, op: Operation) -> None:
    body = op.body
    source = _get_node(write, body["source"], field_name="edge.source")
    target = _get_node(write, body["target"], field_name="edge.target")
    if write.actor.is_agent:
        # In a restricted scope the agent may link only from nodes it may change.
        permissions.require_agent_may_touch(
            actor=write.actor, canvas=write.canvas, node=source, operation=op.type
        )
    require_usable_id(write, body["id"], field="edge.id", entity="edge")
    _create_edge(
        write,
        source=source,
        target=target,
        relation=body["relation"],
        label=body["label"],
        edge_id=body["id"],
    )


def _op_edge_update(write: _Write, op: Operation) -> None:
    edge = _get_edge(write, op.target)
    if write.actor.is_agent:
        permissions.require_agent_may_touch(
            actor=write.actor, canvas=write.canvas, node=edge.source, operation=op.type
        )
    changed = [name for name in EDGE_FIELDS if name in op.fields and getattr(edge, name) != op.fields[name]]
    if not changed:
        return
    before = edge_to_dict(edge)
    for name in changed:
        setattr(edge, name, op.fields[name])
    edge.version += 1
    edge.save()
    level = _edge_level(edge.source, edge.target)
    write.record(
        entity="edge",
        action="updated",
        target_id=str(edge.id),
        fields=changed,
        before=before,
        after=edge_to_dict(edge),
        vb=level,
        va=level,
    )


def _op_edge_delete(write: _Write, op: Operation) -> None:
    edge = _get_edge(write, op.target)
    before = edge_to_dict(edge)
    level = _edge_level(edge.source, edge.target)
    edge.delete()
    write.record(
        entity="edge",
        action="deleted",
        target_id=before["id"],
        fields=[],
        before=before,
        after=None,
        vb=level,
        va=None,
    )
