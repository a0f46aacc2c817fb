"""Revert a node to the state it had at a revision: one `node.update` (or a re-create) through
the write path, with reason "revert"."""

from __future__ import annotations

import uuid
from typing import Any, cast

from canvasweb.canvases import permissions, services
from canvasweb.canvases import selectors as canvas_selectors
from canvasweb.canvases.actors import Actor
from canvasweb.canvases.models import Node
from canvasweb.canvases.operations import NODE_FIELDS, Operation, parse_operation
from canvasweb.canvases.serialization import node_to_dict
from canvasweb.common.errors import InvalidOperation, NotFound
from canvasweb.common.ids import canonical_uuid

from .models import ChangeLogEntry
from .ops import node_create_op, visible_changes


def node_revert(*, actor: Actor, canvas_id: int, node_id: str | uuid.UUID, revision: Any) -> dict:
    """Bring a node back to how it was right after `revision`, as a new logged change (reason "revert").

    When `revision` is an edit of this node, only the fields that edit changed are restored
    (reverting a text edit does not move the node back); otherwise every field is: content,
    kind, position, weight, tags, pinned, sensitivity and archived. A node deleted since is
    re-created with its old id. `superseded_by` is not touched (undo a supersede with undo, or
    delete the newer version).
    """
    if isinstance(revision, bool) or not isinstance(revision, int) or revision < 1:
        raise InvalidOperation("revision must be a positive integer", field="revision")
    node_id = _uuid(node_id, "node_id")
    canvas, role = canvas_selectors.canvas_for_member(user=actor.user, canvas_id=canvas_id)
    permissions.require_role(actor=actor, role=role, operation="node.update")
    level = permissions.role_level(role)
    if revision > canvas.revision:
        raise InvalidOperation(
            f"revision {revision} is newer than the canvas (r{canvas.revision})", field="revision"
        )
    entry = (
        ChangeLogEntry.objects.filter(
            canvas=canvas, entity="node", target_id=str(node_id), revision__lte=revision
        )
        .order_by("-revision", "-seq")
        .first()
    )
    live = Node.objects.filter(canvas=canvas, pk=node_id).first()
    if entry is None and live is None:
        raise NotFound("no such node", field="node_id")
    if live is not None and permissions.sensitivity_level(live.sensitivity) > level:
        raise NotFound("no such node", field="node_id")
    if entry is None or entry.action == "deleted":
        raise InvalidOperation(f"the node did not exist at revision {revision}", field="revision")
    if entry.visibility_after is None or entry.visibility_after > level:
        raise NotFound("you may not see that version of the node", field="revision")
    # Every non-deleted entry records the node's state after the change.
    target = cast(dict, entry.after)
    scope: set[str] | None = None  # None: every field
    if entry.revision == revision and entry.action == "updated" and entry.before:
        scope = {name for name in (*NODE_FIELDS, "archived") if entry.before.get(name) != target.get(name)}
    ops: list[Operation] = []
    fields: list[str] = []
    if live is None:
        ops.append(node_create_op(target))
        fields = list(NODE_FIELDS)
        if target.get("archived"):
            ops.append(parse_operation({"type": "node.archive", "id": str(node_id), "archived": True}))
            fields.append("archived")
    else:
        current = node_to_dict(live)
        changed = {
            name: target[name]
            for name in NODE_FIELDS
            if current[name] != target[name] and (scope is None or name in scope)
        }
        if changed:
            ops.append(parse_operation({"type": "node.update", "id": str(node_id), "fields": changed}))
            fields = list(changed)
        if bool(target.get("archived")) != current["archived"] and (scope is None or "archived" in scope):
            ops.append(
                parse_operation(
                    {"type": "node.archive", "id": str(node_id), "archived": bool(target.get("archived"))}
                )
            )
            fields.append("archived")
    out = {
        "reverted_to": revision,
        "node_id": str(node_id),
        "recreated": live is None,
        "fields": fields,
        "revision": canvas.revision,
        "changes": [],
    }
    if not ops:
        return out
    result = services.apply_operation(
        actor=actor.with_reason("revert"), canvas_id=canvas.pk, op=Operation(type="batch", ops=tuple(ops))
    )
    out["revision"] = result.revision
    out["changes"] = visible_changes(result.changes, actor, canvas.pk)
    return out


def _uuid(value: Any, name: str) -> uuid.UUID:
    parsed = value if isinstance(value, uuid.UUID) else canonical_uuid(value)
    if parsed is None:
        raise InvalidOperation(f"{name} is not a valid UUID", field=name)
    return parsed
