"""Node operations: create, update/move, delete, supersede, archive (and the edge records a
sensitivity change implies)."""

from __future__ import annotations

import uuid
from typing import Any

from django.db.models import Q
from django.utils import timezone

from canvasweb.common.errors import EditConflict, InvalidOperation, NotFound
from canvasweb.history.models import ChangeLogEntry

from .. import permissions
from ..actors import Actor
from ..models import AuthorKind, Edge, Node, Relation
from ..operations import NODE_FIELDS, Operation
from ..serialization import edge_to_dict, node_to_dict, user_ref
from .commit import _Write
from .new_ids import require_usable_id


def _node_level(node: Node) -> int:
    return permissions.sensitivity_level(node.sensitivity)


def _edge_level(source: Node, target: Node) -> int:
    return max(_node_level(source), _node_level(target))


def _create_edge(
    write: _Write,
    *,
    source: Node,
    target: Node,
    relation: str,
    label: str = "",
    edge_id: uuid.UUID | None = None,
) -> Edge:
    """Insert an edge row and its "edge created" log entry (edge.create and the supersedes link)."""
    ids = {"id": edge_id} if edge_id is not None else {}
    edge = Edge.objects.create(
        **ids,
        canvas=write.canvas,
        source=source,
        target=target,
        relation=relation,
        label=label,
        created_by=write.actor.user,
        author_kind=AuthorKind.AGENT if write.actor.is_agent else AuthorKind.USER,
    )
    write.record(
        entity="edge",
        action="created",
        target_id=str(edge.id),
        fields=[],
        before=None,
        after=edge_to_dict(edge),
        vb=None,
        va=_edge_level(source, target),
    )
    return edge


def _get_node(write: _Write, node_id: uuid.UUID, *, field_name: str = "id") -> Node:
    cache = write.node_cache
    node = cache.get(node_id) if cache is not None else None
    if node is None:
        node = Node.objects.filter(pk=node_id, canvas=write.canvas).select_related("created_by").first()
        if node is not None and cache is not None:
            cache[node.pk] = node
    if node is None or not permissions.can_see(write.role, node.sensitivity):
        # A node of another canvas answers exactly like an unknown id: ids leak nothing.
        raise NotFound(f"no node {node_id} on this canvas", field=field_name)
    return node


def _create_node(write: _Write, body: dict[str, Any], *, field_prefix: str = "node.") -> Node:
    permissions.require_sensitivity_allowed(
        role=write.role, sensitivity=body["sensitivity"], field=f"{field_prefix}sensitivity"
    )
    permissions.require_agent_may_set(actor=write.actor, canvas=write.canvas, fields=body)
    require_usable_id(write, body["id"], field=f"{field_prefix}id", entity="node")
    actor = write.actor
    node = Node(
        id=body["id"],
        canvas=write.canvas,
        content=body["content"],
        kind=body["kind"],
        x=body["x"],
        y=body["y"],
        weight=body["weight"],
        tags=body["tags"],
        pinned=body["pinned"],
        sensitivity=body["sensitivity"],
        created_by=actor.user,
        author_kind=AuthorKind.AGENT if actor.is_agent else AuthorKind.USER,
        provenance=_agent_provenance(actor),
    )
    if write.new_nodes is not None and write.node_cache is not None:
        # Group commit: inserted with the batch's other new nodes in one statement, before the batch's
        # node updates (a later move of this node in the batch finds it in the cache).
        node.created_at = node.updated_at = timezone.now()
        write.new_nodes.append(node)
        write.node_cache[node.pk] = node
    else:
        node.save(force_insert=True)
    if write.new_ids is not None:
        write.new_ids.taken(node.pk, canvas_id=write.canvas.pk, level=_node_level(node))
    write.record(
        entity="node",
        action="created",
        target_id=str(node.id),
        fields=[],
        before=None,
        after=node_to_dict(node),
        vb=None,
        va=_node_level(node),
    )
    return node


def _agent_provenance(actor: Actor) -> dict[str, Any] | None:
    if not actor.is_agent:
        return None
    return {
        "on_behalf_of": user_ref(actor.user),
        "conversation_id": actor.conversation_id,
        "message_id": actor.message_id,
        "agent_run_id": actor.agent_run_id or None,
        "approved_by": user_ref(actor.approved_by),
        "via": actor.via or None,
    }


def _update_node_fields(write: _Write, node: Node, fields: dict[str, Any]) -> None:
    if "sensitivity" in fields:
        permissions.require_sensitivity_allowed(
            role=write.role, sensitivity=fields["sensitivity"], field="fields.sensitivity"
        )
    permissions.require_agent_may_set(actor=write.actor, canvas=write.canvas, fields=fields)
    before = node_to_dict(node)
    before_level = _node_level(node)
    changed = [name for name in NODE_FIELDS if name in fields and getattr(node, name) != fields[name]]
    changed += [
        name
        for name in ("archived", "superseded_by")
        if name in fields
        and getattr(node, name if name != "superseded_by" else "superseded_by_id") != fields[name]
    ]
    if not changed:
        return
    for name in changed:
        setattr(node, name if name != "superseded_by" else "superseded_by_id", fields[name])
    node.version += 1
    if write.deferred is not None and all(name in NODE_FIELDS for name in changed):
        # Group commit: written by the batch's bulk_update (changed fields only).
        node.updated_at = timezone.now()
        _, pending = write.deferred.setdefault(node.pk, (node, set()))
        pending.update(changed, ("version", "updated_at"))
    else:
        node.save(update_fields=[*changed, "version", "updated_at"])
    write.record(
        entity="node",
        action="updated",
        target_id=str(node.id),
        fields=changed,
        before=before,
        after=node_to_dict(node),
        vb=before_level,
        va=_node_level(node),
    )
    if _node_level(node) != before_level:
        _record_edge_visibility(write, node, before_level)


def _record_edge_visibility(write: _Write, node: Node, before_level: int) -> None:
    """The node's sensitivity changed, so may its edges' levels: each edge whose level changed gets a record
    with empty `fields`, so a role that loses (or regains) the node loses (or regains) its edges in the
    same event (canvases/visibility.py turns it into `removed` / `created`; others skip it)."""
    after_level = _node_level(node)
    for edge in Edge.objects.filter(Q(source=node) | Q(target=node)).select_related(
        "source", "target", "created_by"
    ):
        other_level = _node_level(edge.target if edge.source_id == node.pk else edge.source)
        vb, va = max(before_level, other_level), max(after_level, other_level)
        if vb != va:
            data = edge_to_dict(edge)
            write.record(
                entity="edge",
                action="updated",
                target_id=str(edge.id),
                fields=[],
                before=data,
                after=data,
                vb=vb,
                va=va,
            )


def _op_node_create(write: _Write, op: Operation) -> None:
    _create_node(write, op.body)


def _op_node_update(write: _Write, op: Operation) -> None:
    node = _get_node(write, op.target)
    permissions.require_agent_may_touch(actor=write.actor, canvas=write.canvas, node=node, operation=op.type)
    if op.base_version is not None:
        _require_fresh_content_base(write, node, op)
    _update_node_fields(write, node, op.fields)


def _require_fresh_content_base(write: _Write, node: Node, op: Operation) -> None:
    """Refuse a content edit whose base another writer's content change has overtaken (docs/protocol.md).

    Only `content` is checked: other fields stay last-writer-wins. The actor's own
    later versions never conflict, so queued offline edits of one person apply in order.
    """
    base = op.base_version
    if base is None:
        return
    if base > node.version:
        raise InvalidOperation(
            f"base_version {op.base_version} is newer than the node (version {node.version})",
            field="base_version",
        )
    if "content" not in op.fields or op.fields["content"] == node.content or base == node.version:
        return
    newer = (
        ChangeLogEntry.objects.filter(canvas=write.canvas, entity="node", target_id=str(node.id))
        .order_by("-revision", "-seq")
        .values_list("fields", "after", "actor_kind", "actor_user_id")
    )
    for fields, after, actor_kind, actor_user_id in newer.iterator():
        version = (after or {}).get("version")
        if not isinstance(version, int) or version <= base:
            return
        own = actor_kind == write.actor.kind == "user" and actor_user_id == write.actor.user.pk
        if "content" in fields and not own:
            raise EditConflict(
                f"node {node.id} was edited by someone else since version {op.base_version} "
                f"(now version {node.version}); your text was not saved",
                field="fields.content",
                current=node_to_dict(node),
            )


def _op_node_delete(write: _Write, op: Operation) -> None:
    node = _get_node(write, op.target)
    node_level = _node_level(node)
    # Edges first (each logged, deleted in one statement), then successors' back-references, then the node.
    edges = list(
        Edge.objects.filter(Q(source=node) | Q(target=node)).select_related("source", "target", "created_by")
    )
    for edge in edges:
        before = edge_to_dict(edge)
        write.record(
            entity="edge",
            action="deleted",
            target_id=before["id"],
            fields=[],
            before=before,
            after=None,
            vb=_edge_level(edge.source, edge.target),
            va=None,
        )
    if edges:
        Edge.objects.filter(pk__in=[edge.pk for edge in edges]).delete()
    for predecessor in Node.objects.filter(superseded_by=node).select_related("created_by"):
        _update_node_fields(write, predecessor, {"superseded_by": None})
    before = node_to_dict(node)
    node.delete()
    write.record(
        entity="node",
        action="deleted",
        target_id=before["id"],
        fields=[],
        before=before,
        after=None,
        vb=node_level,
        va=None,
    )


def _op_node_supersede(write: _Write, op: Operation) -> None:
    old = _get_node(write, op.target)
    permissions.require_agent_may_touch(actor=write.actor, canvas=write.canvas, node=old, operation=op.type)
    if old.superseded_by_id is not None:
        raise InvalidOperation(f"node {old.id} is already superseded by {old.superseded_by_id}", field="id")
    new = _create_node(write, op.body)
    _update_node_fields(write, old, {"superseded_by": new.id})
    _create_edge(write, source=new, target=old, relation=Relation.SUPERSEDES)


def _op_node_archive(write: _Write, op: Operation) -> None:
    node = _get_node(write, op.target)
    permissions.require_agent_may_touch(actor=write.actor, canvas=write.canvas, node=node, operation=op.type)
    _update_node_fields(write, node, {"archived": op.fields["archived"]})
