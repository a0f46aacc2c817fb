"""Django admin for the audit trail: everything here is read-only, for everyone.

Change log entries cannot be added, changed or deleted through the admin (not
even by superusers); the model and its queryset refuse updates and deletes too
(history/models.py). Staff can filter and search the log and open a node's
timeline, which shows every change to the node and its superseded chain.
"""

from __future__ import annotations

import json

from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext_lazy as _

from canvasweb.canvases.models import Canvas
from canvasweb.common.admin import ReadOnlyAdmin
from canvasweb.common.errors import CanvasError

from . import selectors
from .models import ChangeLogEntry, SecurityEvent, UndoStep


def _short(value, limit: int = 80) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 1] + "…"


@admin.register(ChangeLogEntry)
class ChangeLogEntryAdmin(ReadOnlyAdmin):
    list_display = (
        "position",
        "created_at",
        "canvas",
        "actor",
        "op_type",
        "entity",
        "action",
        "target_id",
        "changed_fields",
        "reason",
        "timeline_link",
    )
    list_filter = (
        "canvas",
        "actor_kind",
        "actor_user",
        "op_type",
        "entity",
        "action",
        "reason",
        ("created_at", admin.DateFieldListFilter),
    )
    search_fields = ("target_id", "after__content", "before__content", "actor_username")
    date_hierarchy = "created_at"
    list_select_related = ("canvas", "actor_user", "approved_by")
    ordering = ("-id",)
    list_per_page = 100
    readonly_fields = ("field_diff", "timeline_link", "chain_position")
    fieldsets = (
        (
            None,
            {
                "fields": (
                    "canvas",
                    "revision",
                    "seq",
                    "created_at",
                    "op_type",
                    "entity",
                    "action",
                    "target_id",
                    "timeline_link",
                    "reason",
                )
            },
        ),
        (
            _("Who"),
            {
                "fields": (
                    "actor_kind",
                    "actor_user",
                    "actor_username",
                    "approved_by",
                    "conversation_id",
                    "message_id",
                    "agent_run_id",
                    "client_op_id",
                )
            },
        ),
        (
            _("What changed"),
            {"fields": ("fields", "field_diff", "before", "after", "visibility_before", "visibility_after")},
        ),
        (_("Tamper evidence"), {"fields": ("prev_hash", "hash", "chain_position")}),
    )

    @admin.display(description=_("rev.seq"), ordering="revision")
    def position(self, obj: ChangeLogEntry) -> str:
        return f"r{obj.revision}.{obj.seq}"

    @admin.display(description=_("actor"), ordering="actor_username")
    def actor(self, obj: ChangeLogEntry) -> str:
        name = obj.actor_username or (obj.actor_user.get_username() if obj.actor_user else "?")
        if obj.actor_kind == "agent":
            text = _("agent for %(name)s") % {"name": name}
            if obj.conversation_id:
                text += " " + _("(conversation %(id)s)") % {"id": obj.conversation_id}
            if obj.approved_by_id and obj.approved_by is not None:
                text += _(", approved by %(name)s") % {"name": obj.approved_by.get_username()}
            return str(text)
        return name

    @admin.display(description=_("fields"))
    def changed_fields(self, obj: ChangeLogEntry) -> str:
        return ", ".join(obj.fields or [])

    @admin.display(description=_("node timeline"))
    def timeline_link(self, obj: ChangeLogEntry) -> str:
        node_id = obj.target_id if obj.entity == "node" else (obj.after or obj.before or {}).get("source")
        if obj.entity not in ("node", "edge") or not node_id:
            return "—"
        url = reverse("admin:history_changelogentry_timeline", args=[obj.canvas_id, node_id])
        return format_html('<a href="{}">{}</a>', url, _("timeline"))

    @admin.display(description=_("diff"))
    def field_diff(self, obj: ChangeLogEntry) -> str:
        item = selectors.entry_to_timeline_item(obj, level=selectors.ADMIN_LEVEL)
        rows = item["diff"] if item else []
        if not rows:
            return "—"
        return format_html(
            "<table><tr><th>{}</th><th>{}</th><th>{}</th></tr>{}</table>",
            _("field"),
            _("before"),
            _("after"),
            format_html_join(
                "",
                "<tr><td>{}</td><td>{}</td><td>{}</td></tr>",
                ((r["field"], _short(r["before"], 300), _short(r["after"], 300)) for r in rows),
            ),
        )

    @admin.display(description=_("verify"))
    def chain_position(self, obj: ChangeLogEntry) -> str:
        return f"python manage.py verify_audit --canvas {obj.canvas_id}"

    def get_urls(self):
        urls = super().get_urls()
        custom = [
            path(
                "timeline/<int:canvas_id>/<str:node_id>/",
                self.admin_site.admin_view(self.timeline_view),
                name="history_changelogentry_timeline",
            ),
        ]
        return custom + urls

    def timeline_view(self, request, canvas_id: int, node_id: str):
        if not self.has_view_permission(request):
            raise PermissionDenied
        canvas = get_object_or_404(Canvas, pk=canvas_id)
        actor_kind = request.GET.get("actor_kind") or None
        timeline: dict | None
        error: str | None
        try:
            timeline = selectors.node_timeline(
                canvas=canvas, level=selectors.ADMIN_LEVEL, node_id=node_id, actor_kind=actor_kind
            )
        except CanvasError as exc:
            timeline, error = None, exc.message
        else:
            error = None
        changelist = reverse("admin:history_changelogentry_changelist")
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "title": _("Timeline of node %(node)s") % {"node": node_id},
            "canvas": canvas,
            "node_id": node_id,
            "timeline": timeline,
            "error": error,
            "actor_kind": actor_kind or "",
            "actor_kinds": selectors.ACTOR_KINDS,
            "changelist_url": changelist,
        }
        return TemplateResponse(request, "admin/history/node_timeline.html", context)


@admin.register(SecurityEvent)
class SecurityEventAdmin(ReadOnlyAdmin):
    list_display = (
        "created_at",
        "code",
        "op_type",
        "user",
        "actor_kind",
        "channel",
        "canvas_id_ref",
        "reason",
    )
    list_filter = ("code", "channel", "actor_kind", ("created_at", admin.DateFieldListFilter))
    search_fields = ("reason", "op_type", "user__username")
    date_hierarchy = "created_at"
    list_select_related = ("user",)


@admin.register(UndoStep)
class UndoStepAdmin(ReadOnlyAdmin):
    list_display = ("created_at", "canvas", "user", "kind", "inverted_revision", "revision")
    list_filter = ("kind", "canvas")
    list_select_related = ("canvas", "user")
