"""Admins review the agent: proposals and their decisions, every tool call, every run. All read-only."""

from django.contrib import admin
from django.utils.translation import gettext_lazy as _

from canvasweb.common.admin import ReadOnlyAdmin

from .models import AgentRun, AgentToolCall, Proposal


@admin.register(Proposal)
class ProposalAdmin(ReadOnlyAdmin):
    list_display = (
        "id",
        "created_at",
        "canvas",
        "requested_by",
        "tool",
        "status",
        "decided_by",
        "decided_at",
        "short_summary",
    )
    list_filter = ("status", "tool", "created_at")
    search_fields = ("summary", "requested_by__username", "decided_by__username")

    @admin.display(description=_("summary"))
    def short_summary(self, obj):
        return obj.summary[:80]


@admin.register(AgentToolCall)
class AgentToolCallAdmin(ReadOnlyAdmin):
    list_display = ("id", "created_at", "user", "canvas", "tool", "outcome", "code", "short_reason")
    list_filter = ("outcome", "tool", "code", "created_at")
    search_fields = ("reason", "arguments", "user__username")

    @admin.display(description=_("reason"))
    def short_reason(self, obj):
        return (obj.reason or "")[:80]


@admin.register(AgentRun)
class AgentRunAdmin(ReadOnlyAdmin):
    list_display = (
        "run_id",
        "created_at",
        "user",
        "canvas",
        "role",
        "mode",
        "rounds",
        "calls",
        "writes",
        "refused",
    )
    list_filter = ("mode", "role", "created_at")
    search_fields = ("run_id", "user__username")
