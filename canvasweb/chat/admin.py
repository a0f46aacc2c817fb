"""Admins review what the model saw: every model request is listed read-only."""

from django.contrib import admin
from django.utils.translation import gettext_lazy as _

from canvasweb.common.admin import ReadOnlyAdmin

from .models import Conversation, FactSuggestion, Message, ModelRequest


@admin.register(ModelRequest)
class ModelRequestAdmin(ReadOnlyAdmin):
    list_display = (
        "id",
        "created_at",
        "user",
        "canvas",
        "conversation",
        "purpose",
        "model",
        "latency_ms",
        "short_error",
    )
    list_filter = ("purpose", "model", "created_at")
    search_fields = ("response_text", "error", "conversation__title")

    @admin.display(description=_("error"))
    def short_error(self, obj):
        return (obj.error or "")[:60]


@admin.register(Conversation)
class ConversationAdmin(ReadOnlyAdmin):
    list_display = ("id", "title", "canvas", "user", "updated_at")
    list_filter = ("updated_at",)
    search_fields = ("title",)


@admin.register(Message)
class MessageAdmin(ReadOnlyAdmin):
    list_display = ("id", "conversation", "role", "status", "created_at")
    list_filter = ("role", "status")
    search_fields = ("content",)


@admin.register(FactSuggestion)
class FactSuggestionAdmin(ReadOnlyAdmin):
    list_display = ("id", "conversation", "kind", "status", "content")
    list_filter = ("status", "kind")
