"""The agent's own records: runs (one per chat turn), every tool call, and proposals.

None of these are canvas rows: a proposal is a request to change the canvas,
applied later through `canvases.services.apply_operation` when a person
approves it. Tool-call rows are the agent's audit trail (one per call the
model made, allowed or refused); refusals are also in `history.SecurityEvent`.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class AgentRun(models.Model):
    """One chat turn in which the agent was offered tools."""

    run_id = models.CharField(max_length=64, unique=True, verbose_name=_("run id"))
    canvas = models.ForeignKey(
        "canvases.Canvas", on_delete=models.CASCADE, related_name="+", verbose_name=_("canvas")
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="+",
        help_text="the person the agent acts for",
        verbose_name=_("user"),
    )
    role = models.CharField(
        max_length=10, help_text="the user's role when the turn started", verbose_name=_("role")
    )
    mode = models.CharField(
        max_length=10, help_text="the canvas agent mode when the turn started", verbose_name=_("mode")
    )
    conversation = models.ForeignKey(
        "chat.Conversation",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("conversation"),
    )
    message = models.ForeignKey(
        "chat.Message",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text="the assistant message whose tool calls this run executed",
        verbose_name=_("message"),
    )
    tools = models.JSONField(default=list, help_text="names of the tools offered", verbose_name=_("tools"))
    via = models.CharField(
        max_length=100,
        blank=True,
        default="",
        help_text="the tool outside the page this run came from, e.g. MCP (Claude Desktop)",
        verbose_name=_("via"),
    )
    rounds = models.PositiveIntegerField(default=0, verbose_name=_("rounds"))
    calls = models.PositiveIntegerField(default=0, verbose_name=_("calls"))
    writes = models.PositiveIntegerField(default=0, verbose_name=_("writes"))
    refused = models.PositiveIntegerField(default=0, verbose_name=_("refused"))
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))

    class Meta:
        verbose_name = _("agent run")
        verbose_name_plural = _("agent runs")
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

    run = models.ForeignKey(
        AgentRun, on_delete=models.CASCADE, related_name="tool_calls", verbose_name=_("run")
    )
    canvas = models.ForeignKey(
        "canvases.Canvas", on_delete=models.CASCADE, related_name="+", verbose_name=_("canvas")
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+", verbose_name=_("user")
    )
    conversation_id = models.BigIntegerField(null=True, blank=True, verbose_name=_("conversation id"))
    message_id = models.BigIntegerField(null=True, blank=True, verbose_name=_("message id"))
    round = models.PositiveSmallIntegerField(verbose_name=_("round"))
    call_id = models.CharField(max_length=64, blank=True, default="", verbose_name=_("call id"))
    tool = models.CharField(
        max_length=64, help_text="the tool name as the model gave it (cut to 64)", verbose_name=_("tool")
    )
    arguments = models.TextField(
        blank=True,
        default="",
        help_text="the arguments as sent, credentials masked, cut to 4,000 characters",
        verbose_name=_("arguments"),
    )
    op = models.JSONField(
        null=True, blank=True, help_text="the canvas operation it became, if any", verbose_name=_("op")
    )
    outcome = models.CharField(max_length=10, choices=ToolOutcome.choices, verbose_name=_("outcome"))
    code = models.CharField(max_length=20, blank=True, default="", verbose_name=_("code"))
    reason = models.TextField(blank=True, default="", verbose_name=_("reason"))
    proposal = models.ForeignKey(
        "Proposal",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("proposal"),
    )
    revision = models.BigIntegerField(null=True, blank=True, verbose_name=_("revision"))
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))

    class Meta:
        verbose_name = _("agent tool call")
        verbose_name_plural = _("agent tool calls")
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

    canvas = models.ForeignKey(
        "canvases.Canvas", on_delete=models.CASCADE, related_name="agent_proposals", verbose_name=_("canvas")
    )
    conversation = models.ForeignKey(
        "chat.Conversation",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("conversation"),
    )
    message = models.ForeignKey(
        "chat.Message",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("message"),
    )
    run = models.ForeignKey(
        AgentRun,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="proposals",
        verbose_name=_("run"),
    )
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="+",
        help_text="the person the agent acted for",
        verbose_name=_("requested by"),
    )
    tool = models.CharField(max_length=40, verbose_name=_("tool"))
    op = models.JSONField(
        help_text="the canvas operation (node ids resolved, ids of new nodes fixed)", verbose_name=_("op")
    )
    summary = models.CharField(max_length=300, verbose_name=_("summary"))
    diff = models.JSONField(
        default=dict, help_text="field-level diff and ghost node/edge for the UI", verbose_name=_("diff")
    )
    base_versions = models.JSONField(
        default=dict, help_text="{node id: version} of the nodes it changes", verbose_name=_("base versions")
    )
    refs = models.JSONField(default=list, help_text="ids of nodes it only links to", verbose_name=_("refs"))
    visibility_level = models.PositiveSmallIntegerField(
        default=0,
        help_text="0 public, 1 internal: who may see the proposal (max over the nodes involved)",
        verbose_name=_("visibility level"),
    )
    status = models.CharField(
        max_length=10,
        choices=ProposalStatus.choices,
        default=ProposalStatus.PENDING,
        verbose_name=_("status"),
    )
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("decided by"),
    )
    decided_at = models.DateTimeField(null=True, blank=True, verbose_name=_("decided at"))
    forced = models.BooleanField(default=False, help_text="approved although stale", verbose_name=_("forced"))
    result_revision = models.BigIntegerField(null=True, blank=True, verbose_name=_("result revision"))
    error = models.JSONField(
        null=True, blank=True, help_text="{code, message, field} when it failed", verbose_name=_("error")
    )
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))

    class Meta:
        verbose_name = _("proposal")
        verbose_name_plural = _("proposals")
        ordering = ["-id"]
        indexes = [models.Index(fields=["canvas", "status"])]

    def __str__(self) -> str:
        return f"proposal #{self.pk} ({self.status}): {self.summary[:60]}"
