"""Plain-dict shapes of canvas entities, shared by REST, WebSocket and the change log."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.base_user import AbstractBaseUser
from django.db.models import QuerySet

from .models import Canvas, Edge, Membership, Node


def iso(value: datetime | None) -> str | None:
    if value is None:
        return None
    text = value.isoformat()
    return text.replace("+00:00", "Z")


def user_ref(user: AbstractBaseUser | None) -> dict[str, Any] | None:
    if user is None:
        return None
    return {"id": user.pk, "username": user.get_username()}


def node_to_dict(node: Node) -> dict[str, Any]:
    return {
        "id": str(node.id),
        "content": node.content,
        "kind": node.kind,
        "x": node.x,
        "y": node.y,
        "weight": node.weight,
        "tags": list(node.tags or []),
        "pinned": node.pinned,
        "sensitivity": node.sensitivity,
        "superseded_by": str(node.superseded_by_id) if node.superseded_by_id else None,
        "archived": node.archived,
        "created_by": user_ref(node.created_by) if node.created_by_id else None,
        "author_kind": node.author_kind,
        "provenance": node.provenance,
        "version": node.version,
        "created_at": iso(node.created_at),
        "updated_at": iso(node.updated_at),
    }


def edge_to_dict(edge: Edge) -> dict[str, Any]:
    return {
        "id": str(edge.id),
        "source": str(edge.source_id),
        "target": str(edge.target_id),
        "relation": edge.relation,
        "label": edge.label,
        "created_by": user_ref(edge.created_by) if edge.created_by_id else None,
        "author_kind": edge.author_kind,
        "version": edge.version,
        "created_at": iso(edge.created_at),
        "updated_at": iso(edge.updated_at),
    }


# --- whole-canvas reads: the same shapes from `.values()` rows ---------------------------------------------
# A snapshot of 5,000 nodes spent ~0.5 s building model instances (and their users) only to turn them into
# dicts again; reading plain rows is ~4x faster and yields exactly node_to_dict / edge_to_dict.

_NODE_COLUMNS = (
    "id",
    "content",
    "kind",
    "x",
    "y",
    "weight",
    "tags",
    "pinned",
    "sensitivity",
    "superseded_by_id",
    "archived",
    "created_by_id",
    "author_kind",
    "provenance",
    "version",
    "created_at",
    "updated_at",
)
_EDGE_COLUMNS = (
    "id",
    "source_id",
    "target_id",
    "relation",
    "label",
    "created_by_id",
    "author_kind",
    "version",
    "created_at",
    "updated_at",
)


def _creator_column() -> str:
    return f"created_by__{get_user_model().USERNAME_FIELD}"


def node_dicts(queryset: QuerySet[Node]) -> list[dict[str, Any]]:
    """node_to_dict for every row of a Node queryset, without building model instances."""
    creator = _creator_column()
    out: list[dict[str, Any]] = []
    for r in queryset.values(*_NODE_COLUMNS, creator):
        superseded = r["superseded_by_id"]
        out.append(
            {
                "id": str(r["id"]),
                "content": r["content"],
                "kind": r["kind"],
                "x": r["x"],
                "y": r["y"],
                "weight": r["weight"],
                "tags": list(r["tags"] or []),
                "pinned": r["pinned"],
                "sensitivity": r["sensitivity"],
                "superseded_by": str(superseded) if superseded else None,
                "archived": r["archived"],
                "created_by": {"id": r["created_by_id"], "username": r[creator]}
                if r["created_by_id"]
                else None,
                "author_kind": r["author_kind"],
                "provenance": r["provenance"],
                "version": r["version"],
                "created_at": iso(r["created_at"]),
                "updated_at": iso(r["updated_at"]),
            }
        )
    return out


def edge_dicts(queryset: QuerySet[Edge]) -> list[dict[str, Any]]:
    """edge_to_dict for every row of an Edge queryset, without building model instances."""
    creator = _creator_column()
    return [
        {
            "id": str(r["id"]),
            "source": str(r["source_id"]),
            "target": str(r["target_id"]),
            "relation": r["relation"],
            "label": r["label"],
            "created_by": {"id": r["created_by_id"], "username": r[creator]} if r["created_by_id"] else None,
            "author_kind": r["author_kind"],
            "version": r["version"],
            "created_at": iso(r["created_at"]),
            "updated_at": iso(r["updated_at"]),
        }
        for r in queryset.values(*_EDGE_COLUMNS, creator)
    ]


def agent_policy_to_dict(canvas: Canvas) -> dict[str, Any]:
    return {
        "mode": canvas.agent_mode,
        "scope": canvas.agent_scope,
        "protect_pinned": canvas.agent_protect_pinned,
        "allow_archive": canvas.agent_may_archive,
        "external_access": canvas.agent_external_access,
    }


def canvas_to_dict(canvas: Canvas) -> dict[str, Any]:
    return {
        "id": canvas.pk,
        "name": canvas.name,
        "description": canvas.description,
        "revision": canvas.revision,
        "agent_policy": agent_policy_to_dict(canvas),
        "created_at": iso(canvas.created_at),
        "updated_at": iso(canvas.updated_at),
    }


def membership_to_dict(membership: Membership) -> dict[str, Any]:
    return {"user": user_ref(membership.user), "role": membership.role}
