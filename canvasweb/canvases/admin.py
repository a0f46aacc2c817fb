"""Canvases and memberships in the Django admin, written through the same services as the app.

Saving or deleting here calls canvases.services with an admin actor, so every
admin change is permission-checked, bumps the revision, is logged in the change
log and reaches open browsers like any other edit.
"""

from __future__ import annotations

from django.contrib import admin, messages
from django.contrib.auth.models import User
from django.forms import ModelForm
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _

from canvasweb.common.errors import CanvasError

from . import services
from .actors import Actor
from .models import Canvas, Membership


def _staff(request: HttpRequest) -> User:
    # The admin only lets logged-in staff in.
    if not isinstance(request.user, User):
        raise PermissionError("the admin needs a logged-in user")
    return request.user


def _admin_actor(request: HttpRequest) -> Actor:
    return Actor(user=_staff(request), kind="user", channel="admin")


@admin.register(Canvas)
class CanvasAdmin(admin.ModelAdmin):
    list_display = ("id", "name", "revision", "agent_mode", "created_by", "updated_at", "deleted_at")
    list_filter = ("agent_mode", "deleted_at")
    search_fields = ("name", "description")
    fields = (
        "name",
        "description",
        "agent_mode",
        "agent_scope",
        "agent_protect_pinned",
        "agent_may_archive",
        "members",
        "revision",
        "created_by",
        "created_at",
        "updated_at",
        "deleted_at",
    )
    readonly_fields = ("members", "revision", "created_by", "created_at", "updated_at", "deleted_at")
    actions = None

    @admin.display(description=_("members (edit under Memberships)"))
    def members(self, obj: Canvas) -> str:
        if obj.pk is None:
            return "-"
        return ", ".join(f"{m.user.username} ({m.role})" for m in obj.memberships.select_related("user"))

    def save_model(self, request: HttpRequest, obj: Canvas, form: ModelForm[Canvas], change: bool) -> None:
        try:
            if change:
                services.canvas_update(
                    actor=_admin_actor(request),
                    canvas_id=obj.pk,
                    name=obj.name,
                    description=obj.description,
                    agent_policy={
                        "mode": obj.agent_mode,
                        "scope": obj.agent_scope,
                        "protect_pinned": obj.agent_protect_pinned,
                        "allow_archive": obj.agent_may_archive,
                        "external_access": obj.agent_external_access,
                    },
                )
            else:
                created = services.canvas_create(
                    user=_staff(request), name=obj.name, description=obj.description
                )
                obj.pk = created.pk
        except CanvasError as exc:
            messages.error(request, exc.message)

    def delete_model(self, request: HttpRequest, obj: Canvas) -> None:
        try:
            services.canvas_delete(actor=_admin_actor(request), canvas_id=obj.pk)
        except CanvasError as exc:
            messages.error(request, exc.message)


@admin.register(Membership)
class MembershipAdmin(admin.ModelAdmin):
    list_display = ("canvas", "user", "role", "created_at")
    list_filter = ("role",)
    search_fields = ("canvas__name", "user__username")
    autocomplete_fields = ()
    actions = None

    def get_readonly_fields(self, request: HttpRequest, obj: Membership | None = None) -> tuple[str, ...]:
        return ("canvas", "user") if obj else ()

    def save_model(
        self, request: HttpRequest, obj: Membership, form: ModelForm[Membership], change: bool
    ) -> None:
        try:
            services.member_set(
                actor=_admin_actor(request), canvas_id=obj.canvas_id, user_id=obj.user_id, role=obj.role
            )
            saved = Membership.objects.filter(canvas_id=obj.canvas_id, user_id=obj.user_id).first()
            if saved is not None:
                obj.pk = saved.pk
        except CanvasError as exc:
            messages.error(request, exc.message)

    def delete_model(self, request: HttpRequest, obj: Membership) -> None:
        try:
            services.member_remove(actor=_admin_actor(request), canvas_id=obj.canvas_id, user_id=obj.user_id)
        except CanvasError as exc:
            messages.error(request, exc.message)
