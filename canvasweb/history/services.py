"""Writes that come from history: revert a node to a version, undo/redo, import a JSON Canvas file.

None of these touch canvas rows themselves. Each works out the operations that
would produce the wanted state and hands them to the one write path,
`canvasweb.canvases.services.apply_operation`, as one batch (one revision,
all or nothing) with the actor's `reason` set to "revert", "undo", "redo" or
"import". The change log therefore records them like any other edit, and the
history is never edited.

Undo/redo model (per user, per canvas; docs/history.md):

* The undo stack holds the user's own recent revisions (plain edits and reverts
  made as a person, not the agent's writes). A new edit clears the redo stack.
* Undo inverts the revision on top of the stack; redo inverts that undo.
  The stacks are rebuilt from the change log plus `UndoStep` rows, which say
  which revision each undo/redo took off a stack.
* A field someone else (another person, or the agent) changed after the
  revision being inverted is left alone and reported in `skipped`; so is an
  entity that is gone or no longer visible. The rest is inverted.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any, cast

from django.db import transaction
from django.db.models import Q

from canvasweb.canvases import permissions, services
from canvasweb.canvases import selectors as canvas_selectors
from canvasweb.canvases.actors import Actor, user_actor
from canvasweb.canvases.models import Canvas, Edge, Node
from canvasweb.canvases.operations import NODE_FIELDS, Operation, parse_operation
from canvasweb.canvases.serialization import canvas_to_dict, edge_to_dict, node_to_dict
from canvasweb.canvases.visibility import filter_changes
from canvasweb.common.errors import CanvasError, InvalidOperation, NotFound

from . import jsoncanvas
from .models import ChangeLogEntry, UndoStep, UndoStepKind

UNDO_DEPTH = 100
UNDOABLE_REASONS = ("", "revert")
EDGE_EDIT_FIELDS = ("relation", "label")


class NothingToUndo(CanvasError):
    code = "NOTHING_TO_UNDO"
    http_status = 409


class NothingToRedo(CanvasError):
    code = "NOTHING_TO_REDO"
    http_status = 409


# --- revert ------------------------------------------------------------------------------------------------


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
        ops.append(_node_create_op(target))
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
    out["changes"] = _filtered(result.changes, actor, canvas.pk)
    return out


# --- undo / redo ------------------------------------------------------------------------------------------


def undo_stacks(*, canvas_id: int, user) -> tuple[list[int], list[int]]:
    """(undo stack, redo stack) of revisions for `user` on a canvas; the top is the last item.

    Undo stack: revisions whose effect an undo would invert (own edits, reverts, redos).
    Redo stack: undo revisions a redo would invert.
    """
    rows = list(
        ChangeLogEntry.objects.filter(
            canvas_id=canvas_id, actor_user=user, actor_kind="user", entity__in=("node", "edge")
        )
        .order_by("-revision")
        .values_list("revision", "reason")
        .distinct()[: UNDO_DEPTH * 3]
    )
    if not rows:
        return [], []
    oldest = rows[-1][0]
    events: list[tuple[int, int, int, str, int, int | None]] = []
    for rev, reason in rows:
        if reason in UNDOABLE_REASONS:
            events.append((rev, 0, 0, "edit", rev, rev))
    for step in UndoStep.objects.filter(canvas_id=canvas_id, user=user, position__gte=oldest):
        events.append((step.position, 1, step.pk, step.kind, step.inverted_revision, step.revision))
    events.sort()
    undo: list[int] = []
    redo: list[int] = []
    for _, _, _, kind, inverted, produced in events:
        if kind == "edit":
            undo.append(inverted)
            redo.clear()
        elif kind == UndoStepKind.UNDO:
            if inverted in undo:
                undo.remove(inverted)
            if produced is not None:
                redo.append(produced)
        else:
            if inverted in redo:
                redo.remove(inverted)
            if produced is not None:
                undo.append(produced)
    return undo[-UNDO_DEPTH:], redo[-UNDO_DEPTH:]


def undo_status(*, user, canvas_id: int) -> dict:
    canvas_selectors.canvas_for_member(user=user, canvas_id=canvas_id)
    undo, redo = undo_stacks(canvas_id=canvas_id, user=user)
    return {
        "can_undo": bool(undo),
        "can_redo": bool(redo),
        "undo_revision": undo[-1] if undo else None,
        "redo_revision": redo[-1] if redo else None,
    }


def undo(*, actor: Actor, canvas_id: int) -> dict:
    """Invert the actor's most recent own edit on the canvas (skipping what others changed since)."""
    return _invert_top(actor=actor, canvas_id=canvas_id, kind=UndoStepKind.UNDO)


def redo(*, actor: Actor, canvas_id: int) -> dict:
    """Invert the actor's most recent undo (skipping what others changed since)."""
    return _invert_top(actor=actor, canvas_id=canvas_id, kind=UndoStepKind.REDO)


def _invert_top(*, actor: Actor, canvas_id: int, kind: str) -> dict:
    if actor.is_agent:
        raise InvalidOperation("undo and redo are for people, not the agent", field=None)
    user = actor.user
    error: CanvasError | None = None
    with transaction.atomic():
        canvas, role = canvas_selectors.canvas_for_member(user=user, canvas_id=canvas_id)
        permissions.require_role(actor=actor, role=role, operation="node.update")
        # Serialise undo/redo per canvas with every other write (the services lock the same row).
        canvas = Canvas.objects.select_for_update().get(pk=canvas.pk)
        undo_stack, redo_stack = undo_stacks(canvas_id=canvas.pk, user=user)
        stack = undo_stack if kind == UndoStepKind.UNDO else redo_stack
        if not stack:
            raise (
                NothingToUndo("nothing to undo")
                if kind == UndoStepKind.UNDO
                else NothingToRedo("nothing to redo")
            )
        target = stack[-1]
        plan = _plan_inverse(canvas=canvas, revision=target, user=user, level=permissions.role_level(role))
        result = None
        if plan.ops:
            try:
                result = services.apply_operation(
                    actor=actor.with_reason(str(kind)),
                    canvas_id=canvas.pk,
                    op=Operation(type="batch", ops=tuple(plan.ops)),
                )
            except CanvasError as exc:
                # Leave the block normally so the refusal the service logged is committed.
                error = exc
        if error is None:
            written = result.revision if result is not None and result.changes else None
            position = Canvas.objects.filter(pk=canvas.pk).values_list("revision", flat=True).get()
            UndoStep.objects.create(
                canvas=canvas,
                user=user,
                kind=kind,
                inverted_revision=target,
                revision=written,
                position=position,
                skipped=plan.skipped,
            )
    if error is not None:
        raise error
    undo_stack, redo_stack = undo_stacks(canvas_id=canvas.pk, user=user)
    return {
        "kind": str(kind),
        "inverted_revision": target,
        "revision": written,
        "applied": plan.applied,
        "skipped": plan.skipped,
        "changes": _filtered(result.changes, actor, canvas.pk) if written and result is not None else [],
        "can_undo": bool(undo_stack),
        "can_redo": bool(redo_stack),
    }


@dataclass
class _Plan:
    ops: list[Operation] = field(default_factory=list)
    applied: list[dict] = field(default_factory=list)
    skipped: list[dict] = field(default_factory=list)


class _State:
    """The canvas as the planned ops will leave it (read lazily from the database)."""

    def __init__(self, canvas: Canvas):
        self.canvas = canvas
        self.nodes: dict[str, dict | None] = {}
        self.edges: dict[str, dict | None] = {}

    def node(self, node_id: str) -> dict | None:
        if node_id not in self.nodes:
            row = Node.objects.filter(canvas=self.canvas, pk=node_id).select_related("created_by").first()
            self.nodes[node_id] = node_to_dict(row) if row is not None else None
        return self.nodes[node_id]

    def edge(self, edge_id: str) -> dict | None:
        if edge_id not in self.edges:
            row = Edge.objects.filter(canvas=self.canvas, pk=edge_id).select_related("created_by").first()
            self.edges[edge_id] = edge_to_dict(row) if row is not None else None
        return self.edges[edge_id]

    def edges_touching(self, node_id: str) -> list[dict]:
        for row in Edge.objects.filter(
            Q(source_id=node_id) | Q(target_id=node_id), canvas=self.canvas
        ).select_related("created_by"):
            self.edges.setdefault(str(row.id), edge_to_dict(row))
        return [e for e in self.edges.values() if e is not None and node_id in (e["source"], e["target"])]


def _is_own(entry: ChangeLogEntry, user) -> bool:
    return entry.actor_kind == "user" and entry.actor_user_id == user.pk


def _who(entry: ChangeLogEntry) -> dict:
    name = entry.actor_username or (entry.actor_user.get_username() if entry.actor_user else "someone")
    return {
        "kind": entry.actor_kind,
        "username": name,
        "label": f"the agent for {name}" if entry.actor_kind == "agent" else name,
    }


def _plan_inverse(*, canvas: Canvas, revision: int, user, level: int) -> _Plan:
    """Operations that undo `revision`'s node and edge changes, newest entry first."""
    entries = list(
        ChangeLogEntry.objects.filter(canvas=canvas, revision=revision, entity__in=("node", "edge")).order_by(
            "-seq"
        )
    )
    targets = {e.target_id for e in entries}
    others = [
        e
        for e in ChangeLogEntry.objects.filter(canvas=canvas, revision__gt=revision, target_id__in=targets)
        .select_related("actor_user")
        .order_by("revision", "seq")
        if not _is_own(e, user)
    ]
    state = _State(canvas)
    plan = _Plan()

    def other_change(target_id: str, name: str | None = None) -> ChangeLogEntry | None:
        for e in others:
            if e.target_id != target_id:
                continue
            if name is None or e.action != "updated" or name in (e.fields or []):
                return e
        return None

    def skip(
        entry: ChangeLogEntry, reason: str, *, name: str | None = None, by: ChangeLogEntry | None = None
    ):
        data = entry.after or entry.before or {}
        plan.skipped.append(
            {
                "entity": entry.entity,
                "id": entry.target_id,
                "field": name,
                "reason": reason,
                "by": _who(by) if by is not None else None,
                "revision": by.revision if by is not None else None,
                "summary": (data.get("content") or data.get("label") or "")[:80],
            }
        )

    def visible(sensitivity: str) -> bool:
        return permissions.sensitivity_level(sensitivity) <= level

    for entry in entries:
        tid = entry.target_id
        if entry.entity == "node":
            _plan_node(entry, tid, state, plan, other_change, skip, visible)
        else:
            _plan_edge(entry, tid, state, plan, other_change, skip, visible)
    return plan


def _plan_node(entry, tid, state, plan, other_change, skip, visible) -> None:
    current = state.node(tid)
    if entry.action == "updated":
        if current is None:
            skip(entry, "the node was deleted since", by=other_change(tid))
            return
        if not visible(current["sensitivity"]):
            skip(entry, "you may no longer see this node")
            return
        restore: dict[str, Any] = {}
        for name in entry.fields or []:
            by = other_change(tid, name)
            if by is not None:
                skip(entry, f"{_who(by)['label']} changed {name} since", name=name, by=by)
            elif current.get(name) != (entry.after or {}).get(name):
                skip(entry, f"{name} has changed since", name=name)
            else:
                restore[name] = (entry.before or {}).get(name)
        if "sensitivity" in restore and not visible(restore["sensitivity"]):
            skip(entry, f"you may not mark nodes {restore.pop('sensitivity')}", name="sensitivity")
        editable = {k: v for k, v in restore.items() if k in NODE_FIELDS}
        if editable:
            plan.ops.append(parse_operation({"type": "node.update", "id": tid, "fields": editable}))
        if "archived" in restore:
            plan.ops.append(
                parse_operation({"type": "node.archive", "id": tid, "archived": bool(restore["archived"])})
            )
        if "superseded_by" in restore:
            successor = restore["superseded_by"]
            if successor is not None and state.node(successor) is None:
                skip(entry, "the newer version it pointed to is gone", name="superseded_by")
                restore.pop("superseded_by")
            else:
                plan.ops.append(_superseded_by_op(tid, successor))
        if restore:
            state.nodes[tid] = {**current, **restore}
            plan.applied.append({"entity": "node", "id": tid, "action": "updated", "fields": list(restore)})
    elif entry.action == "created":
        if current is None:
            skip(entry, "the node was deleted since", by=other_change(tid))
            return
        by = other_change(tid)
        if by is not None:
            skip(entry, f"{_who(by)['label']} changed the node since", by=by)
            return
        foreign = [
            e
            for e in state.edges_touching(tid)
            if (e.get("created_by") or {}).get("id") != entry.actor_user_id or e.get("author_kind") != "user"
        ]
        if foreign:
            skip(entry, "others linked to the node since")
            return
        plan.ops.append(parse_operation({"type": "node.delete", "id": tid}))
        state.nodes[tid] = None
        for e in state.edges_touching(tid):
            state.edges[e["id"]] = None
        plan.applied.append({"entity": "node", "id": tid, "action": "deleted", "fields": []})
    elif entry.action == "deleted":
        before = entry.before or {}
        if current is not None:
            skip(entry, "the node exists again")
            return
        if not visible(before.get("sensitivity", "public")):
            skip(entry, "you may not see this node")
            return
        plan.ops.append(_node_create_op(before))
        if before.get("archived"):
            plan.ops.append(parse_operation({"type": "node.archive", "id": tid, "archived": True}))
        successor = before.get("superseded_by")
        if successor and state.node(successor) is not None:
            plan.ops.append(_superseded_by_op(tid, successor))
        else:
            successor = None
        state.nodes[tid] = {**before, "superseded_by": successor}
        plan.applied.append({"entity": "node", "id": tid, "action": "created", "fields": []})


def _plan_edge(entry, tid, state, plan, other_change, skip, visible) -> None:
    current = state.edge(tid)
    if entry.action == "updated":
        if current is None:
            skip(entry, "the edge was deleted since", by=other_change(tid))
            return
        restore = {}
        for name in entry.fields or []:
            by = other_change(tid, name)
            if by is not None:
                skip(entry, f"{_who(by)['label']} changed {name} since", name=name, by=by)
            elif current.get(name) != (entry.after or {}).get(name):
                skip(entry, f"{name} has changed since", name=name)
            else:
                restore[name] = (entry.before or {}).get(name)
        if restore:
            plan.ops.append(parse_operation({"type": "edge.update", "id": tid, "fields": restore}))
            state.edges[tid] = {**current, **restore}
            plan.applied.append({"entity": "edge", "id": tid, "action": "updated", "fields": list(restore)})
    elif entry.action == "created":
        if current is None:
            skip(entry, "the edge was deleted since", by=other_change(tid))
            return
        by = other_change(tid)
        if by is not None:
            skip(entry, f"{_who(by)['label']} changed the edge since", by=by)
            return
        plan.ops.append(parse_operation({"type": "edge.delete", "id": tid}))
        state.edges[tid] = None
        plan.applied.append({"entity": "edge", "id": tid, "action": "deleted", "fields": []})
    elif entry.action == "deleted":
        before = entry.before or {}
        if current is not None:
            skip(entry, "the edge exists again")
            return
        ends = [state.node(before.get("source", "")), state.node(before.get("target", ""))]
        if any(end is None for end in ends):
            skip(entry, "a node it connected is gone")
            return
        if not all(visible(end["sensitivity"]) for end in ends):
            skip(entry, "you may not see a node it connected")
            return
        plan.ops.append(
            parse_operation(
                {
                    "type": "edge.create",
                    "edge": {
                        "id": tid,
                        "source": before["source"],
                        "target": before["target"],
                        "relation": before.get("relation", "relates_to"),
                        "label": before.get("label", ""),
                    },
                }
            )
        )
        state.edges[tid] = dict(before)
        plan.applied.append({"entity": "edge", "id": tid, "action": "created", "fields": []})


def _node_create_op(data: dict) -> Operation:
    body = {"id": data["id"], **{name: data[name] for name in NODE_FIELDS if name in data}}
    return parse_operation({"type": "node.create", "node": body})


def _superseded_by_op(node_id: str, successor: str | None) -> Operation:
    """Set or clear superseded_by. Not a client operation: only undo and import restore this link,
    and always to a node on the same canvas (checked by the callers)."""
    return Operation(
        type="node.update",
        target_id=uuid.UUID(str(node_id)),
        fields={"superseded_by": uuid.UUID(str(successor)) if successor else None},
    )


# --- JSON Canvas import ---------------------------------------------------------------------------------------


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
            ops.append(_superseded_by_op(node_id, successor))
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


# --- helpers ---------------------------------------------------------------------------------------------


def _uuid(value: Any, name: str) -> uuid.UUID:
    try:
        return value if isinstance(value, uuid.UUID) else uuid.UUID(str(value))
    except ValueError:
        raise InvalidOperation(f"{name} is not a valid UUID", field=name) from None


def _filtered(changes: list[dict], actor: Actor, canvas_id: int) -> list[dict]:
    role = canvas_selectors.user_role(user=actor.user, canvas_id=canvas_id)
    visible, _ = filter_changes(changes, level=permissions.role_level(role) if role else -1)
    return visible


__all__ = [
    "NothingToRedo",
    "NothingToUndo",
    "canvas_import",
    "node_revert",
    "redo",
    "undo",
    "undo_stacks",
    "undo_status",
]
