"""Canvas services: create, update (name, description, agent policy), delete."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from canvasweb.common.errors import InvalidOperation

from .. import permissions
from ..actors import Actor
from ..models import Canvas, Membership, Role
from ..serialization import canvas_to_dict, user_ref
from .commit import ApplyResult, _commit, _Write

POLICY_FIELDS = {
    "mode": "agent_mode",
    "scope": "agent_scope",
    "protect_pinned": "agent_protect_pinned",
    "allow_archive": "agent_may_archive",
    "external_access": "agent_external_access",
}


def canvas_create(*, user: User, name: str, description: str = "") -> Canvas:
    """Create a canvas owned by `user` (revision 1 records its creation)."""
    name = _clean_name(name)
    description = _clean_description(description)
    actor = Actor(user=user, kind="user", channel="rest")
    # One transaction: the canvas, its first owner and the log entries, or nothing.
    with transaction.atomic():
        canvas = Canvas.objects.create(name=name, description=description, created_by=user)
        Membership.objects.create(canvas=canvas, user=user, role=Role.OWNER)

        def handler(write: _Write) -> None:
            write.record(
                entity="canvas",
                action="created",
                target_id=str(canvas.pk),
                fields=[],
                before=None,
                after=canvas_to_dict(canvas),
                vb=0,
                va=0,
            )
            write.record(
                entity="member",
                action="created",
                target_id=str(user.pk),
                fields=[],
                before=None,
                after={"user": user_ref(user), "role": Role.OWNER},
                vb=0,
                va=0,
            )

        _commit(actor=actor, canvas_id=canvas.pk, op_type="canvas.create", handler=handler)
    canvas.refresh_from_db()
    return canvas


def canvas_update(
    *,
    actor: Actor,
    canvas_id: int,
    name: str | None = None,
    description: str | None = None,
    agent_policy: dict[str, Any] | None = None,
) -> ApplyResult:
    def handler(write: _Write) -> None:
        permissions.require_role(actor=actor, role=write.role, operation="canvas.update")
        canvas = write.canvas
        before = canvas_to_dict(canvas)
        changed: list[str] = []
        if name is not None and _clean_name(name) != canvas.name:
            canvas.name = _clean_name(name)
            changed.append("name")
        if description is not None and _clean_description(description) != canvas.description:
            canvas.description = _clean_description(description)
            changed.append("description")
        if agent_policy is not None:
            for key, value in _clean_policy(agent_policy).items():
                if getattr(canvas, POLICY_FIELDS[key]) != value:
                    setattr(canvas, POLICY_FIELDS[key], value)
                    changed.append(f"agent_policy.{key}")
        if changed:
            canvas.save()
            write.record(
                entity="canvas",
                action="updated",
                target_id=str(canvas.pk),
                fields=changed,
                before=before,
                after=canvas_to_dict(canvas),
                vb=0,
                va=0,
            )

    return _commit(actor=actor, canvas_id=canvas_id, op_type="canvas.update", handler=handler)


def canvas_delete(*, actor: Actor, canvas_id: int) -> ApplyResult:
    """Hide the canvas; its change log stays (append-only)."""

    def handler(write: _Write) -> None:
        permissions.require_role(actor=actor, role=write.role, operation="canvas.delete")
        before = canvas_to_dict(write.canvas)
        write.canvas.deleted_at = timezone.now()
        write.canvas.save()
        write.record(
            entity="canvas",
            action="deleted",
            target_id=str(write.canvas.pk),
            fields=[],
            before=before,
            after=None,
            vb=0,
            va=None,
        )

    return _commit(actor=actor, canvas_id=canvas_id, op_type="canvas.delete", handler=handler)


def _clean_name(name: Any) -> str:
    if not isinstance(name, str) or not name.strip():
        raise InvalidOperation("name must be a non-empty string", field="name")
    if len(name.strip()) > 200:
        raise InvalidOperation("name must be at most 200 characters", field="name")
    # Also for names that reach here without the JSON body parser (import's ?name=a%00b):
    # PostgreSQL refuses NUL in a text column, a 500 at the INSERT.
    if "\x00" in name:
        raise InvalidOperation("name must not contain NUL characters", field="name")
    return name.strip()


def _clean_description(description: Any) -> str:
    if not isinstance(description, str) or len(description) > 2000:
        raise InvalidOperation("description must be a string of at most 2000 characters", field="description")
    if "\x00" in description:
        raise InvalidOperation("description must not contain NUL characters", field="description")
    return description


def _clean_policy(policy: Any) -> dict[str, Any]:
    from ..models import AgentMode, AgentScope

    if not isinstance(policy, dict):
        raise InvalidOperation("agent_policy must be an object", field="agent_policy")
    unknown = set(policy) - set(POLICY_FIELDS)
    if unknown:
        raise InvalidOperation(f"unknown field agent_policy.{sorted(unknown)[0]}", field="agent_policy")
    clean = {}
    if "mode" in policy:
        if policy["mode"] not in AgentMode.values:
            raise InvalidOperation(
                f"mode must be one of {', '.join(AgentMode.values)}", field="agent_policy.mode"
            )
        clean["mode"] = policy["mode"]
    if "scope" in policy:
        if policy["scope"] not in AgentScope.values:
            raise InvalidOperation(
                f"scope must be one of {', '.join(AgentScope.values)}", field="agent_policy.scope"
            )
        clean["scope"] = policy["scope"]
    for flag in ("protect_pinned", "allow_archive", "external_access"):
        if flag in policy:
            if not isinstance(policy[flag], bool):
                raise InvalidOperation(f"{flag} must be true or false", field=f"agent_policy.{flag}")
            clean[flag] = policy[flag]
    return clean
