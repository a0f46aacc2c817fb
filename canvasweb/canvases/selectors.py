"""Reads: what a member may see of a canvas, and what changed since a revision."""

from __future__ import annotations

from itertools import groupby
from typing import Any

from django.apps import apps
from django.contrib.auth.models import AnonymousUser, User
from django.db.models import Count, Q, QuerySet

from canvasweb.common.errors import InvalidOperation, NotFound
from canvasweb.history.models import ChangeLogEntry

from . import permissions
from .models import Canvas, Edge, Membership, Node
from .serialization import (
    edge_dicts,
    iso,
    membership_to_dict,
    node_dicts,
    user_ref,
)
from .visibility import filter_changes

MAX_CHANGES_PAGE = 1000


def canvas_for_member(*, user: User | AnonymousUser, canvas_id: int) -> tuple[Canvas, str]:
    """The canvas and the user's role; NOT_FOUND for non-members (no existence leak)."""
    if not isinstance(user, User) or not user.is_authenticated:
        raise NotFound("no such canvas", field="canvas_id")
    membership = (
        Membership.objects.select_related("canvas")
        .filter(canvas_id=canvas_id, user=user, canvas__deleted_at__isnull=True)
        .first()
    )
    if membership is None:
        raise NotFound("no such canvas", field="canvas_id")
    return membership.canvas, membership.role


def canvas_list_for_user(*, user: User) -> list[tuple[Canvas, str, int]]:
    memberships = (
        Membership.objects.filter(user=user, canvas__deleted_at__isnull=True)
        .select_related("canvas")
        .annotate(member_count=Count("canvas__memberships"))
        .order_by("-canvas__updated_at")
    )
    return [(m.canvas, m.role, m.member_count) for m in memberships]


def visible_nodes(*, canvas: Canvas, role: str) -> QuerySet[Node]:
    allowed = [s for s in ("public", "internal", "secret") if permissions.can_see(role, s)]
    return Node.objects.filter(canvas=canvas, sensitivity__in=allowed)


def visible_edges(*, canvas: Canvas, role: str) -> QuerySet[Edge]:
    allowed = [s for s in ("public", "internal", "secret") if permissions.can_see(role, s)]
    return Edge.objects.filter(
        canvas=canvas, source__sensitivity__in=allowed, target__sensitivity__in=allowed
    )


def canvas_snapshot(*, canvas: Canvas, role: str) -> dict[str, Any]:
    # Read the revision first: rows can only be newer, and newer changes are
    # re-applied idempotently by revision on the client.
    revision = Canvas.objects.filter(pk=canvas.pk).values_list("revision", flat=True).first()
    nodes = node_dicts(visible_nodes(canvas=canvas, role=role).order_by("created_at", "id"))
    edges = edge_dicts(visible_edges(canvas=canvas, role=role).order_by("created_at", "id"))
    return {"revision": revision, "nodes": nodes, "edges": edges}


def changes_since(
    *, canvas: Canvas, role: str, since: int, limit: int = MAX_CHANGES_PAGE, user_id: int | None = None
) -> dict[str, Any]:
    """Committed change events after `since`, filtered for `role`.

    Returns {"from", "to", "events", "needs_resync", "has_more"}. `needs_resync` is also set when the
    range changes `user_id`'s own membership: the caller's state was filtered for the role it had
    before, so changes on top of it would keep what the new role may not see (or miss what it may).
    """
    if isinstance(since, bool) or not isinstance(since, int) or not 0 <= since < 2**53:
        raise InvalidOperation("since must be a non-negative integer", field="since")
    limit = max(1, min(int(limit), MAX_CHANGES_PAGE))
    current = Canvas.objects.filter(pk=canvas.pk).values_list("revision", flat=True).first() or 0
    if since > current:
        # The client is ahead of the server (e.g. a restored database): it must reload.
        return {"from": since, "to": since, "events": [], "needs_resync": True, "has_more": False}
    entries = list(
        ChangeLogEntry.objects.filter(canvas=canvas, revision__gt=since, revision__lte=since + limit)
        .select_related("actor_user", "approved_by")
        .order_by("revision", "seq")
    )
    level = permissions.role_level(role)
    via_by_run = _via_by_agent_run(entries)
    events = []
    needs_resync = False
    for revision, grouped in groupby(entries, key=lambda e: e.revision):
        group = list(grouped)
        changes, resync = filter_changes((_entry_as_change(e) for e in group), level=level)
        # Joining is not a change of role: before it the caller held nothing to re-filter.
        own_role_changed = user_id is not None and any(
            e.entity == "member" and e.target_id == str(user_id) and e.action != "created" for e in group
        )
        needs_resync = needs_resync or resync or own_role_changed
        events.append(_event_from_entries(revision, group, changes, via_by_run=via_by_run))
    to = events[-1]["revision"] if events else since
    return {"from": since, "to": to, "events": events, "needs_resync": needs_resync, "has_more": to < current}


def _entry_as_change(entry: ChangeLogEntry) -> dict[str, Any]:
    return {
        "entity": entry.entity,
        "action": entry.action,
        "id": entry.target_id,
        "fields": entry.fields,
        "data": entry.after,
        "_vb": entry.visibility_before,
        "_va": entry.visibility_after,
    }


def _via_by_agent_run(entries: list[ChangeLogEntry]) -> dict[str, str]:
    """`actor.via` of the live event is the agent run's tool (e.g. "MCP (claude-ai)"); the log keeps the run id."""
    run_ids = {e.agent_run_id for e in entries if e.agent_run_id}
    if not run_ids:
        return {}
    agent_run = apps.get_model("agent", "AgentRun")  # by name: canvases does not import the agent app
    return dict(agent_run.objects.filter(run_id__in=run_ids).exclude(via="").values_list("run_id", "via"))


def _event_from_entries(
    revision: int,
    entries: list[ChangeLogEntry],
    changes: list[dict[str, Any]],
    *,
    via_by_run: dict[str, str],
) -> dict[str, Any]:
    first = entries[0]
    # The same event the commit broadcast (services/commit.py), so catch-up carries `via` too.
    actor = {**entry_actor(first), "via": via_by_run.get(first.agent_run_id) or None}
    return {
        "type": "change",
        "revision": revision,
        "client_op_id": first.client_op_id or None,
        "actor": actor,
        "at": iso(first.created_at),
        "changes": changes,
    }


def entry_actor(entry: ChangeLogEntry) -> dict[str, Any]:
    user = user_ref(entry.actor_user) or (
        {"id": None, "username": entry.actor_username} if entry.actor_username else None
    )
    return {
        "kind": entry.actor_kind,
        "user": user,
        "on_behalf_of": user if entry.actor_kind == "agent" else None,
        "approved_by": user_ref(entry.approved_by),
        "conversation_id": entry.conversation_id,
        "reason": entry.reason or None,
    }


def node_history(*, canvas: Canvas, role: str, node_id: str) -> list[dict[str, Any]]:
    """Every change log entry for one node that `role` may see, oldest first; NOT_FOUND if none."""
    level = permissions.role_level(role)
    node = Node.objects.filter(canvas=canvas, pk=node_id).first()
    entries = ChangeLogEntry.objects.filter(canvas=canvas, target_id=str(node_id), entity="node")
    if node is None and not entries.exists():
        raise NotFound("no such node", field="node_id")
    if node is not None and not permissions.can_see(role, node.sensitivity):
        raise NotFound("no such node", field="node_id")
    history = []
    for entry in entries.select_related("actor_user", "approved_by").order_by("revision", "seq"):
        if not (_level_ok(entry.visibility_before, level) or _level_ok(entry.visibility_after, level)):
            continue
        history.append(
            {
                "revision": entry.revision,
                "seq": entry.seq,
                "at": iso(entry.created_at),
                "actor": entry_actor(entry),
                "op_type": entry.op_type,
                "action": entry.action,
                "fields": entry.fields,
                "before": entry.before if _level_ok(entry.visibility_before, level) else None,
                "after": entry.after if _level_ok(entry.visibility_after, level) else None,
            }
        )
    if not history:
        raise NotFound("no such node", field="node_id")  # existed, but never visible to this role
    return history


def _level_ok(needed: int | None, level: int) -> bool:
    return needed is not None and needed <= level


def canvas_members(*, canvas: Canvas) -> list[dict[str, Any]]:
    return [
        membership_to_dict(m)
        for m in Membership.objects.filter(canvas=canvas).select_related("user").order_by("user__username")
    ]


def user_role(*, user: User, canvas_id: int) -> str | None:
    return (
        Membership.objects.filter(canvas_id=canvas_id, user=user, canvas__deleted_at__isnull=True)
        .values_list("role", flat=True)
        .first()
    )


__all__ = [
    "Q",
    "canvas_for_member",
    "canvas_list_for_user",
    "canvas_members",
    "canvas_snapshot",
    "changes_since",
    "node_history",
    "user_role",
    "visible_edges",
    "visible_nodes",
]
