"""The inverse of one revision: the operations that undo its node and edge changes.

A field someone else (another person, or the agent) changed after the revision is left alone and
reported in `skipped`; so is an entity that is gone or no longer visible. The rest is inverted.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.db.models import Q

from canvasweb.canvases import permissions
from canvasweb.canvases.models import Canvas, Edge, Node
from canvasweb.canvases.operations import NODE_FIELDS, Operation, parse_operation
from canvasweb.canvases.serialization import edge_to_dict, node_to_dict

from .models import ChangeLogEntry
from .ops import node_create_op, superseded_by_op

EDGE_EDIT_FIELDS = ("relation", "label")


@dataclass
class InversePlan:
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


def plan_inverse(*, canvas: Canvas, revision: int, user, level: int) -> InversePlan:
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
    plan = InversePlan()

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


def _still_there(entry, tid, current, kind: str, other_change, skip) -> bool:
    """Does the entity still exist? If not, the entry is skipped."""
    if current is None:
        skip(entry, f"the {kind} was deleted since", by=other_change(tid))
        return False
    return True


def _unchanged_since_created(entry, tid, current, kind: str, other_change, skip) -> bool:
    """Is what a `created` entry made still there, changed by nobody since? If not, the entry is skipped."""
    if not _still_there(entry, tid, current, kind, other_change, skip):
        return False
    by = other_change(tid)
    if by is not None:
        skip(entry, f"{_who(by)['label']} changed the {kind} since", by=by)
        return False
    return True


def _fields_to_restore(entry, tid, current, other_change, skip) -> dict[str, Any]:
    """The fields of an `updated` entry that nobody changed since, with their values before it.

    A field someone else changed, or that no longer holds what the entry wrote, is skipped.
    """
    restore: dict[str, Any] = {}
    for name in entry.fields or []:
        by = other_change(tid, name)
        if by is not None:
            skip(entry, f"{_who(by)['label']} changed {name} since", name=name, by=by)
        elif current.get(name) != (entry.after or {}).get(name):
            skip(entry, f"{name} has changed since", name=name)
        else:
            restore[name] = (entry.before or {}).get(name)
    return restore


def _plan_node(entry, tid, state, plan, other_change, skip, visible) -> None:
    current = state.node(tid)
    if entry.action == "updated":
        if not _still_there(entry, tid, current, "node", other_change, skip):
            return
        if not visible(current["sensitivity"]):
            skip(entry, "you may no longer see this node")
            return
        restore = _fields_to_restore(entry, tid, current, other_change, skip)
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
                plan.ops.append(superseded_by_op(tid, successor))
        if restore:
            state.nodes[tid] = {**current, **restore}
            plan.applied.append({"entity": "node", "id": tid, "action": "updated", "fields": list(restore)})
    elif entry.action == "created":
        if not _unchanged_since_created(entry, tid, current, "node", other_change, skip):
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
        plan.ops.append(node_create_op(before))
        if before.get("archived"):
            plan.ops.append(parse_operation({"type": "node.archive", "id": tid, "archived": True}))
        successor = before.get("superseded_by")
        if successor and state.node(successor) is not None:
            plan.ops.append(superseded_by_op(tid, successor))
        else:
            successor = None
        state.nodes[tid] = {**before, "superseded_by": successor}
        plan.applied.append({"entity": "node", "id": tid, "action": "created", "fields": []})


def _plan_edge(entry, tid, state, plan, other_change, skip, visible) -> None:
    current = state.edge(tid)
    if entry.action == "updated":
        if not _still_there(entry, tid, current, "edge", other_change, skip):
            return
        restore = _fields_to_restore(entry, tid, current, other_change, skip)
        if restore:
            plan.ops.append(parse_operation({"type": "edge.update", "id": tid, "fields": restore}))
            state.edges[tid] = {**current, **restore}
            plan.applied.append({"entity": "edge", "id": tid, "action": "updated", "fields": list(restore)})
    elif entry.action == "created":
        if not _unchanged_since_created(entry, tid, current, "edge", other_change, skip):
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
