"""The agent's own records: runs (one per chat turn), every tool call, and proposals.

None of these are canvas rows: a proposal is a request to change the canvas,
applied later through `canvases.services.apply_operation` when a person
approves it. Tool-call rows are the agent's audit trail (one per call the
model made, allowed or refused); refusals are also in `history.SecurityEvent`.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models


class AgentRun(models.Model):
    """One chat turn in which the agent was offered tools."""

    run_id = models.CharField(max_length=64, unique=True)
    canvas = models.ForeignKey("canvases.Canvas", on_delete=models.CASCADE, related_name="+")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="+",
        help_text="the person the agent acts for",
    )
    role = models.CharField(max_length=10, help_text="the user's role when the turn started")
    mode = models.CharField(max_length=10, help_text="the canvas agent mode when the turn started")
    conversation = models.ForeignKey(
        "chat.Conversation", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    message = models.ForeignKey(
        "chat.Message",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text="the assistant message whose tool calls this run executed",
    )
    tools = models.JSONField(default=list, help_text="names of the tools offered")
    via = models.CharField(
        max_length=100,
        blank=True,
        default="",
        help_text="the tool outside the page this run came from, e.g. MCP (Claude Desktop)",
    )
    rounds = models.PositiveIntegerField(default=0)
    calls = models.PositiveIntegerField(default=0)
    writes = models.PositiveIntegerField(default=0)
    refused = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes = [models.Index(fields=["user", "created_at"])]

    def __str__(self) -> str:
        return f"agent run {self.run_id} for {self.user_id} on {self.canvas_id}"


class ToolOutcome(models.TextChoices):
    APPLIED = "applied"  # auto mode: written through the write path
    PROPOSED = "proposed"  # propose mode: a Proposal waits for a person
    READ = "read"  # a read tool answered
    REFUSED = "refused"  # refused in code; also a SecurityEvent


class AgentToolCall(models.Model):
    """Exactly one row per tool call the model made."""

    run = models.ForeignKey(AgentRun, on_delete=models.CASCADE, related_name="tool_calls")
    canvas = models.ForeignKey("canvases.Canvas", on_delete=models.CASCADE, related_name="+")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    conversation_id = models.BigIntegerField(null=True, blank=True)
    message_id = models.BigIntegerField(null=True, blank=True)
    round = models.PositiveSmallIntegerField()
    call_id = models.CharField(max_length=64, blank=True, default="")
    tool = models.CharField(max_length=64, help_text="the tool name as the model gave it (cut to 64)")
    arguments = models.TextField(
        blank=True, default="", help_text="the arguments as sent, credentials masked, cut to 4,000 characters"
    )
    op = models.JSONField(null=True, blank=True, help_text="the canvas operation it became, if any")
    outcome = models.CharField(max_length=10, choices=ToolOutcome.choices)
    code = models.CharField(max_length=20, blank=True, default="")
    reason = models.TextField(blank=True, default="")
    proposal = models.ForeignKey(
        "Proposal", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    revision = models.BigIntegerField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]
        indexes = [models.Index(fields=["user", "outcome", "created_at"])]

    def __str__(self) -> str:
        return f"{self.tool} → {self.outcome} ({self.code or 'ok'})"


class ProposalStatus(models.TextChoices):
    PENDING = "pending"
    APPROVED = "approved"
    REJECTED = "rejected"
    FAILED = "failed"  # approved, but the write path refused it (the error says why)


class Proposal(models.Model):
    """A write the agent wants to make on a propose-mode canvas, waiting for a person."""

    canvas = models.ForeignKey("canvases.Canvas", on_delete=models.CASCADE, related_name="agent_proposals")
    conversation = models.ForeignKey(
        "chat.Conversation", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    message = models.ForeignKey(
        "chat.Message", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    run = models.ForeignKey(
        AgentRun, null=True, blank=True, on_delete=models.SET_NULL, related_name="proposals"
    )
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="+",
        help_text="the person the agent acted for",
    )
    tool = models.CharField(max_length=40)
    op = models.JSONField(help_text="the canvas operation (node ids resolved, ids of new nodes fixed)")
    summary = models.CharField(max_length=300)
    diff = models.JSONField(default=dict, help_text="field-level diff and ghost node/edge for the UI")
    base_versions = models.JSONField(default=dict, help_text="{node id: version} of the nodes it changes")
    refs = models.JSONField(default=list, help_text="ids of nodes it only links to")
    visibility_level = models.PositiveSmallIntegerField(
        default=0, help_text="0 public, 1 internal: who may see the proposal (max over the nodes involved)"
    )
    status = models.CharField(max_length=10, choices=ProposalStatus.choices, default=ProposalStatus.PENDING)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    decided_at = models.DateTimeField(null=True, blank=True)
    forced = models.BooleanField(default=False, help_text="approved although stale")
    result_revision = models.BigIntegerField(null=True, blank=True)
    error = models.JSONField(null=True, blank=True, help_text="{code, message, field} when it failed")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-id"]
        indexes = [models.Index(fields=["canvas", "status"])]

    def __str__(self) -> str:
        return f"proposal #{self.pk} ({self.status}): {self.summary[:60]}"
