"""Members: add, change role, remove, and deleting a user account through the write path."""

from __future__ import annotations

import functools
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Case, IntegerField, Q, Value, When

from canvasweb.common.errors import Conflict, InvalidOperation, NotFound
from canvasweb.history.models import ChangeLogEntry

from .. import permissions
from ..actors import Actor
from ..models import Canvas, Membership, Role
from ..serialization import user_ref
from .canvas import canvas_delete
from .commit import ApplyResult, _commit, _Write


def member_set(
    *, actor: Actor, canvas_id: int, role: str, username: str | None = None, user_id: int | None = None
) -> ApplyResult:
    """Add a member or change a member's role (owners only)."""
    if role not in Role.values:
        raise InvalidOperation(f"role must be one of {', '.join(Role.values)}", field="role")

    def handler(write: _Write) -> None:
        permissions.require_role(actor=actor, role=write.role, operation="member.manage")
        user = _find_user(username=username, user_id=user_id)
        membership = Membership.objects.filter(canvas=write.canvas, user=user).first()
        if membership is None:
            Membership.objects.create(canvas=write.canvas, user=user, role=role)
            write.record(
                entity="member",
                action="created",
                target_id=str(user.pk),
                fields=[],
                before=None,
                after={"user": user_ref(user), "role": role},
                vb=0,
                va=0,
            )
        elif membership.role != role:
            if membership.role == Role.OWNER:
                _require_another_owner(write.canvas, user)
            before = {"user": user_ref(user), "role": membership.role}
            membership.role = role
            membership.save(update_fields=["role"])
            write.record(
                entity="member",
                action="updated",
                target_id=str(user.pk),
                fields=["role"],
                before=before,
                after={"user": user_ref(user), "role": role},
                vb=0,
                va=0,
            )

    return _commit(actor=actor, canvas_id=canvas_id, op_type="member.set", handler=handler)


def member_remove(*, actor: Actor, canvas_id: int, user_id: int) -> ApplyResult:
    def handler(write: _Write) -> None:
        permissions.require_role(actor=actor, role=write.role, operation="member.manage")
        membership = (
            Membership.objects.filter(canvas=write.canvas, user_id=user_id).select_related("user").first()
        )
        if membership is None:
            raise NotFound("no such member", field="user_id")
        if membership.role == Role.OWNER:
            _require_another_owner(write.canvas, membership.user)
        before = {"user": user_ref(membership.user), "role": membership.role}
        membership.delete()
        write.record(
            entity="member",
            action="deleted",
            target_id=str(user_id),
            fields=[],
            before=before,
            after=None,
            vb=0,
            va=None,
        )

    return _commit(actor=actor, canvas_id=canvas_id, op_type="member.remove", handler=handler)


def _find_user(*, username: str | None, user_id: int | None) -> User:
    if username is not None:
        if not isinstance(username, str):
            raise InvalidOperation("username must be a string", field="username")
        user = User.objects.filter(username=username, is_active=True).first()
        if user is None:
            raise NotFound(f"no user named {username!r}", field="username")
        return user
    user = User.objects.filter(pk=user_id, is_active=True).first() if user_id is not None else None
    if user is None:
        raise NotFound("no such user", field="user_id")
    return user


def _require_another_owner(canvas: Canvas, leaving: User) -> None:
    if not Membership.objects.filter(canvas=canvas, role=Role.OWNER).exclude(user=leaving).exists():
        raise InvalidOperation("a canvas must keep at least one owner", field="role")


def user_delete(*, user: User, transfer: bool = True) -> dict[str, Any]:
    """Delete a user account through the write path (Membership.user is PROTECT: nothing else can).

    On every live canvas the user leaves as a logged, broadcast revision. Where they are the last owner,
    ownership passes first to the longest-standing editor (else viewer) when `transfer`, or the deletion
    is refused (nothing changed). A canvas where they are the only member is deleted (soft, logged).
    The hash-chained change log names its actors (actor_user_id is hashed, and PROTECT): a user who
    appears in it is deactivated (no password, no token, inactive) instead of removed; others are deleted.
    """
    memberships = list(Membership.objects.filter(user=user).select_related("canvas").order_by("canvas_id"))
    plan: list[tuple[Membership, Membership | None]] = []
    for membership in memberships:
        canvas = membership.canvas
        heir = None
        if (
            canvas.deleted_at is None
            and membership.role == Role.OWNER
            and not Membership.objects.filter(canvas=canvas, role=Role.OWNER).exclude(user=user).exists()
        ):
            heir = (
                Membership.objects.filter(canvas=canvas)
                .exclude(user=user)
                .select_related("user")
                .order_by(models_role_rank(), "id")
                .first()
            )
            if heir is not None and not transfer:
                raise Conflict(
                    f"{user.get_username()} is the last owner of canvas {canvas.pk}; transfer "
                    "ownership first",
                    field="user",
                )
        plan.append((membership, heir))
    actor = Actor(user=user, kind="user", channel="admin", reason="account deleted")
    report: dict[str, Any] = {"left": [], "transferred": [], "deleted_canvases": []}
    with transaction.atomic():
        for membership, heir in plan:
            canvas_id = membership.canvas_id
            if membership.canvas.deleted_at is not None:
                membership.delete()  # the canvas is gone: nobody to tell
                continue
            if heir is not None:
                member_set(actor=actor, canvas_id=canvas_id, user_id=heir.user_id, role=Role.OWNER)
                report["transferred"].append({"canvas_id": canvas_id, "to": heir.user_id})
            elif (
                membership.role == Role.OWNER
                and not Membership.objects.filter(canvas_id=canvas_id).exclude(user=user).exists()
            ):
                canvas_delete(actor=actor, canvas_id=canvas_id)
                Membership.objects.filter(canvas_id=canvas_id, user=user).delete()
                report["deleted_canvases"].append(canvas_id)
                continue
            _commit(
                actor=actor,
                canvas_id=canvas_id,
                op_type="member.remove",
                handler=functools.partial(_leave, user_id=user.pk),
            )
            report["left"].append(canvas_id)
        if ChangeLogEntry.objects.filter(Q(actor_user=user) | Q(approved_by=user)).exists():
            from rest_framework.authtoken.models import Token

            user.is_active = False
            user.set_unusable_password()
            user.save(update_fields=["is_active", "password"])
            Token.objects.filter(user=user).delete()
            report["deactivated"] = True
        else:
            user.delete()
            report["deactivated"] = False
    return report


def models_role_rank() -> Case:
    return Case(
        When(role=Role.OWNER, then=Value(0)),
        When(role=Role.EDITOR, then=Value(1)),
        default=Value(2),
        output_field=IntegerField(),
    )


def _leave(write: _Write, *, user_id: int) -> None:
    """A member leaving (their account is deleted): allowed for every role, unlike member_remove."""
    membership = (
        Membership.objects.filter(canvas=write.canvas, user_id=user_id).select_related("user").first()
    )
    if membership is None:
        return
    if membership.role == Role.OWNER:
        _require_another_owner(write.canvas, membership.user)
    before = {"user": user_ref(membership.user), "role": membership.role}
    membership.delete()
    write.record(
        entity="member",
        action="deleted",
        target_id=str(user_id),
        fields=[],
        before=before,
        after=None,
        vb=0,
        va=None,
    )
