"""Conversations on a canvas, their messages, every model request, and captured facts."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class Conversation(models.Model):
    canvas = models.ForeignKey(
        "canvases.Canvas", on_delete=models.CASCADE, related_name="conversations", verbose_name=_("canvas")
    )
    # The person whose chat this is; conversations are private to them.
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="conversations",
        verbose_name=_("user"),
    )
    title = models.CharField(max_length=200, blank=True, default="", verbose_name=_("title"))
    # Structured rolling summary of the messages folded out of the recent window.
    summary = models.TextField(blank=True, default="", verbose_name=_("summary"))
    summary_token_count = models.PositiveIntegerField(default=0, verbose_name=_("summary token count"))
    # Messages with id <= this are represented by the summary, not sent verbatim.
    summarized_through_id = models.BigIntegerField(default=0, verbose_name=_("summarized through id"))
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))
    updated_at = models.DateTimeField(auto_now=True, verbose_name=_("updated at"))

    class Meta:
        verbose_name = _("conversation")
        verbose_name_plural = _("conversations")
        ordering = ["-updated_at"]

    def __str__(self) -> str:
        return self.title or f"Conversation {self.pk}"


class MessageRole(models.TextChoices):
    USER = "user"
    ASSISTANT = "assistant"
    TOOL = "tool"


class MessageSource(models.TextChoices):
    USER_INPUT = "user_input"
    ASSISTANT_REPLY = "assistant_reply"
    TOOL_RESULT = "tool_result"


class MessageStatus(models.TextChoices):
    COMPLETE = "complete"
    STREAMING = "streaming"
    STOPPED = "stopped"
    ERROR = "error"


class Message(models.Model):
    conversation = models.ForeignKey(
        Conversation, on_delete=models.CASCADE, related_name="messages", verbose_name=_("conversation")
    )
    role = models.CharField(max_length=10, choices=MessageRole.choices, verbose_name=_("role"))
    source = models.CharField(max_length=20, choices=MessageSource.choices, verbose_name=_("source"))
    content = models.TextField(blank=True, default="", verbose_name=_("content"))
    token_count = models.PositiveIntegerField(null=True, blank=True, verbose_name=_("token count"))
    status = models.CharField(
        max_length=10, choices=MessageStatus.choices, default=MessageStatus.COMPLETE, verbose_name=_("status")
    )
    error = models.TextField(blank=True, default="", verbose_name=_("error"))
    error_code = models.CharField(max_length=40, blank=True, default="", verbose_name=_("error code"))
    # Assistant replies: the node handles of the turn ("n3" -> node id), so `[n3]` in the reply stays a
    # link after a reload (filtered again for the reader's current role when listed).
    handles = models.JSONField(default=dict, blank=True, verbose_name=_("handles"))
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))

    class Meta:
        verbose_name = _("message")
        verbose_name_plural = _("messages")
        ordering = ["id"]

    def __str__(self) -> str:
        return f"{self.role}: {self.content[:40]}"


class ModelRequest(models.Model):
    """Exactly what the model was sent and what came back, for the Inspect view and admins."""

    conversation = models.ForeignKey(
        Conversation, on_delete=models.CASCADE, related_name="model_requests", verbose_name=_("conversation")
    )
    message = models.ForeignKey(
        Message,
        null=True,
        on_delete=models.SET_NULL,
        related_name="model_requests",
        verbose_name=_("message"),
    )
    canvas = models.ForeignKey(
        "canvases.Canvas", on_delete=models.CASCADE, related_name="+", verbose_name=_("canvas")
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("user"),
    )
    purpose = models.CharField(
        max_length=20, default="chat", help_text="chat, agent round, summary", verbose_name=_("purpose")
    )
    model = models.CharField(max_length=200, verbose_name=_("model"))
    base_url = models.CharField(max_length=500, blank=True, default="", verbose_name=_("base url"))
    strategy = models.CharField(max_length=20, default="canvas", verbose_name=_("strategy"))
    messages = models.JSONField(default=list, verbose_name=_("messages"))
    tools = models.JSONField(null=True, blank=True, verbose_name=_("tools"))
    layer_tokens = models.JSONField(default=dict, verbose_name=_("layer tokens"))
    budget = models.PositiveIntegerField(default=0, verbose_name=_("budget"))
    included_node_ids = models.JSONField(default=list, verbose_name=_("included node ids"))
    report = models.JSONField(default=dict, verbose_name=_("report"))
    response_text = models.TextField(blank=True, default="", verbose_name=_("response text"))
    tool_calls = models.JSONField(null=True, blank=True, verbose_name=_("tool calls"))
    usage = models.JSONField(null=True, blank=True, verbose_name=_("usage"))
    latency_ms = models.PositiveIntegerField(null=True, blank=True, verbose_name=_("latency ms"))
    error = models.TextField(blank=True, default="", verbose_name=_("error"))
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))

    class Meta:
        verbose_name = _("model request")
        verbose_name_plural = _("model requests")
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.purpose} request to {self.model}"


class SuggestionStatus(models.TextChoices):
    PENDING = "pending"
    ACCEPTED = "accepted"
    DISMISSED = "dismissed"


class FactSuggestion(models.Model):
    """A key fact noticed in a user message, waiting for one click to land on the canvas.

    Accepting creates a node, or supersedes `supersede_node_id` (old → new), and
    links the new node to `conflict_node_id` with `conflicts_with` when the fact
    breaks a canvas constraint. `warnings` ("pinned", "more_sensitive") must be
    confirmed when accepting.
    """

    conversation = models.ForeignKey(
        Conversation, on_delete=models.CASCADE, related_name="suggestions", verbose_name=_("conversation")
    )
    message = models.ForeignKey(
        Message, on_delete=models.CASCADE, related_name="suggestions", verbose_name=_("message")
    )
    content = models.TextField(verbose_name=_("content"))
    kind = models.CharField(max_length=20, default="fact", verbose_name=_("kind"))
    subject = models.CharField(max_length=200, blank=True, default="", verbose_name=_("subject"))
    value = models.CharField(max_length=200, blank=True, default="", verbose_name=_("value"))
    reason = models.CharField(max_length=200, blank=True, default="", verbose_name=_("reason"))
    supersede_node_id = models.UUIDField(null=True, blank=True, verbose_name=_("supersede node id"))
    # Who should see the fact, from what the user said ("内部信息", "confidential"), at least as strict as
    # the node it supersedes, and never stricter than the user may set. Accepting can override it.
    sensitivity = models.CharField(max_length=10, default="public", verbose_name=_("sensitivity"))
    status = models.CharField(
        max_length=10,
        choices=SuggestionStatus.choices,
        default=SuggestionStatus.PENDING,
        verbose_name=_("status"),
    )
    created_node_id = models.UUIDField(null=True, blank=True, verbose_name=_("created node id"))
    # The subject as said ("JWT expiry"), the value it replaces (from the message or the retired node), and
    # the retired node's text when the suggestion was made (the chip shows old → new).
    label = models.CharField(max_length=200, blank=True, default="", verbose_name=_("label"))
    previous_value = models.CharField(
        max_length=200, blank=True, default="", verbose_name=_("previous value")
    )
    supersede_content = models.TextField(blank=True, default="", verbose_name=_("supersede content"))
    # A constraint node the fact conflicts with ("never deploy on Fridays"), and the note the chat shows.
    conflict_node_id = models.UUIDField(null=True, blank=True, verbose_name=_("conflict node id"))
    conflict_content = models.TextField(blank=True, default="", verbose_name=_("conflict content"))
    note = models.CharField(max_length=300, blank=True, default="", verbose_name=_("note"))
    warnings = models.JSONField(default=list, blank=True, verbose_name=_("warnings"))
    source = models.CharField(
        max_length=10, default="rules", help_text="rules (deterministic) or model", verbose_name=_("source")
    )
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))

    class Meta:
        verbose_name = _("fact suggestion")
        verbose_name_plural = _("fact suggestions")
        ordering = ["id"]

    def __str__(self) -> str:
        return f"{self.status}: {self.content[:40]}"

    @property
    def action(self) -> str:
        if self.supersede_node_id:
            return "supersede"
        return "conflicts_with" if self.conflict_node_id else "create"
