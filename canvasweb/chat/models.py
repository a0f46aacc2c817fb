"""Conversations on a canvas, their messages, every model request, and captured facts."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class Conversation(models.Model):
    canvas = models.ForeignKey("canvases.Canvas", on_delete=models.CASCADE, related_name="conversations")
    # The person whose chat this is; conversations are private to them.
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="conversations")
    title = models.CharField(max_length=200, blank=True, default="")
    # Structured rolling summary of the messages folded out of the recent window.
    summary = models.TextField(blank=True, default="")
    summary_token_count = models.PositiveIntegerField(default=0)
    # Messages with id <= this are represented by the summary, not sent verbatim.
    summarized_through_id = models.BigIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
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
    conversation = models.ForeignKey(Conversation, on_delete=models.CASCADE, related_name="messages")
    role = models.CharField(max_length=10, choices=MessageRole.choices)
    source = models.CharField(max_length=20, choices=MessageSource.choices)
    content = models.TextField(blank=True, default="")
    token_count = models.PositiveIntegerField(null=True, blank=True)
    status = models.CharField(max_length=10, choices=MessageStatus.choices, default=MessageStatus.COMPLETE)
    error = models.TextField(blank=True, default="")
    error_code = models.CharField(max_length=40, blank=True, default="")
    # Assistant replies: the node handles of the turn ("n3" -> node id), so `[n3]` in the reply stays a
    # link after a reload (filtered again for the reader's current role when listed).
    handles = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return f"{self.role}: {self.content[:40]}"


class ModelRequest(models.Model):
    """Exactly what the model was sent and what came back, for the Inspect view and admins."""

    conversation = models.ForeignKey(Conversation, on_delete=models.CASCADE, related_name="model_requests")
    message = models.ForeignKey(Message, null=True, on_delete=models.SET_NULL, related_name="model_requests")
    canvas = models.ForeignKey("canvases.Canvas", on_delete=models.CASCADE, related_name="+")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    purpose = models.CharField(max_length=20, default="chat", help_text="chat, agent round, summary")
    model = models.CharField(max_length=200)
    base_url = models.CharField(max_length=500, blank=True, default="")
    strategy = models.CharField(max_length=20, default="canvas")
    messages = models.JSONField(default=list)
    tools = models.JSONField(null=True, blank=True)
    layer_tokens = models.JSONField(default=dict)
    budget = models.PositiveIntegerField(default=0)
    included_node_ids = models.JSONField(default=list)
    report = models.JSONField(default=dict)
    response_text = models.TextField(blank=True, default="")
    tool_calls = models.JSONField(null=True, blank=True)
    usage = models.JSONField(null=True, blank=True)
    latency_ms = models.PositiveIntegerField(null=True, blank=True)
    error = models.TextField(blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
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

    conversation = models.ForeignKey(Conversation, on_delete=models.CASCADE, related_name="suggestions")
    message = models.ForeignKey(Message, on_delete=models.CASCADE, related_name="suggestions")
    content = models.TextField()
    kind = models.CharField(max_length=20, default="fact")
    subject = models.CharField(max_length=200, blank=True, default="")
    value = models.CharField(max_length=200, blank=True, default="")
    reason = models.CharField(max_length=200, blank=True, default="")
    supersede_node_id = models.UUIDField(null=True, blank=True)
    # Who should see the fact, from what the user said ("内部信息", "confidential"), at least as strict as
    # the node it supersedes, and never stricter than the user may set. Accepting can override it.
    sensitivity = models.CharField(max_length=10, default="public")
    status = models.CharField(
        max_length=10, choices=SuggestionStatus.choices, default=SuggestionStatus.PENDING
    )
    created_node_id = models.UUIDField(null=True, blank=True)
    # The subject as said ("JWT expiry"), the value it replaces (from the message or the retired node), and
    # the retired node's text when the suggestion was made (the chip shows old → new).
    label = models.CharField(max_length=200, blank=True, default="")
    previous_value = models.CharField(max_length=200, blank=True, default="")
    supersede_content = models.TextField(blank=True, default="")
    # A constraint node the fact conflicts with ("never deploy on Fridays"), and the note the chat shows.
    conflict_node_id = models.UUIDField(null=True, blank=True)
    conflict_content = models.TextField(blank=True, default="")
    note = models.CharField(max_length=300, blank=True, default="")
    warnings = models.JSONField(default=list, blank=True)
    source = models.CharField(max_length=10, default="rules", help_text="rules (deterministic) or model")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return f"{self.status}: {self.content[:40]}"

    @property
    def action(self) -> str:
        if self.supersede_node_id:
            return "supersede"
        return "conflicts_with" if self.conflict_node_id else "create"
