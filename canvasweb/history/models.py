"""The audit trail: an append-only, hash-chained change log and a security log.

ChangeLogEntry rows are written only by the canvas write path, one or more per
revision (a node delete also logs each edge it removed). Nothing updates or
deletes them: the model and its queryset refuse, and the admin is read-only.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class AppendOnlyError(Exception):
    pass


class AppendOnlyQuerySet(models.QuerySet):
    def update(self, **kwargs):
        raise AppendOnlyError("change log entries cannot be updated")

    def delete(self):
        raise AppendOnlyError("change log entries cannot be deleted")

    def bulk_update(self, *args, **kwargs):
        raise AppendOnlyError("change log entries cannot be updated")


class ActorKind(models.TextChoices):
    USER = "user"
    AGENT = "agent"
    SYSTEM = "system"


class ChangeLogEntry(models.Model):
    canvas = models.ForeignKey(
        "canvases.Canvas", on_delete=models.PROTECT, related_name="change_log", verbose_name=_("canvas")
    )
    revision = models.BigIntegerField(verbose_name=_("revision"))
    seq = models.PositiveIntegerField(default=0, help_text="order within the revision", verbose_name=_("seq"))
    op_type = models.CharField(
        max_length=40, help_text="the operation asked for, e.g. node.delete", verbose_name=_("op type")
    )
    entity = models.CharField(
        max_length=10, help_text="node, edge, canvas or member", verbose_name=_("entity")
    )
    action = models.CharField(
        max_length=10, help_text="created, updated or deleted", verbose_name=_("action")
    )
    target_id = models.CharField(max_length=64, db_index=True, verbose_name=_("target id"))
    fields = models.JSONField(default=list, verbose_name=_("fields"))
    before = models.JSONField(null=True, verbose_name=_("before"))
    after = models.JSONField(null=True, verbose_name=_("after"))
    # Sensitivity level (0 public, 1 internal, 2 secret) of the entity before and
    # after, so catch-up can filter old entries exactly as the live broadcast did.
    visibility_before = models.PositiveSmallIntegerField(null=True, verbose_name=_("visibility before"))
    visibility_after = models.PositiveSmallIntegerField(null=True, verbose_name=_("visibility after"))

    actor_kind = models.CharField(max_length=10, choices=ActorKind.choices, verbose_name=_("actor kind"))
    # PROTECT: actor_user_id and approved_by_id are part of the entry's hash; nulling them on a user
    # deletion would break the chain (canvases.services.user_delete deactivates such users instead).
    actor_user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        on_delete=models.PROTECT,
        related_name="+",
        help_text="the person who made the change; for agent writes, the person it acted for",
        verbose_name=_("actor user"),
    )
    actor_username = models.CharField(
        max_length=150, blank=True, default="", verbose_name=_("actor username")
    )
    approved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        on_delete=models.PROTECT,
        related_name="+",
        verbose_name=_("approved by"),
    )
    conversation_id = models.BigIntegerField(null=True, blank=True, verbose_name=_("conversation id"))
    message_id = models.BigIntegerField(null=True, blank=True, verbose_name=_("message id"))
    agent_run_id = models.CharField(max_length=64, blank=True, default="", verbose_name=_("agent run id"))
    reason = models.CharField(
        max_length=40, blank=True, default="", help_text="e.g. revert, undo, import", verbose_name=_("reason")
    )
    client_op_id = models.CharField(max_length=64, blank=True, default="", verbose_name=_("client op id"))
    created_at = models.DateTimeField(verbose_name=_("created at"))

    prev_hash = models.CharField(max_length=64, blank=True, default="", verbose_name=_("prev hash"))
    hash = models.CharField(max_length=64, blank=True, default="", verbose_name=_("hash"))

    objects = AppendOnlyQuerySet.as_manager()

    class Meta:
        verbose_name = _("change log entry")
        verbose_name_plural = _("change log entries")
        ordering = ["canvas_id", "revision", "seq"]
        constraints = [
            models.UniqueConstraint(fields=["canvas", "revision", "seq"], name="unique_change_position")
        ]
        indexes = [models.Index(fields=["canvas", "revision"])]

    def __str__(self) -> str:
        return f"r{self.revision}.{self.seq} {self.op_type} {self.entity} {self.action} {self.target_id}"

    def save(self, *args, **kwargs):
        if self.pk is not None:
            raise AppendOnlyError("change log entries cannot be updated")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise AppendOnlyError("change log entries cannot be deleted")


class SecurityEvent(models.Model):
    """A refused request: who tried what, through which channel, and why."""

    created_at = models.DateTimeField(auto_now_add=True, db_index=True, verbose_name=_("created at"))
    canvas_id_ref = models.BigIntegerField(
        null=True, blank=True, help_text="canvas id as asked (may not exist)", verbose_name=_("canvas id ref")
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("user"),
    )
    actor_kind = models.CharField(
        max_length=10, choices=ActorKind.choices, default=ActorKind.USER, verbose_name=_("actor kind")
    )
    channel = models.CharField(
        max_length=20, help_text="rest, websocket, agent, import", verbose_name=_("channel")
    )
    op_type = models.CharField(max_length=40, blank=True, default="", verbose_name=_("op type"))
    code = models.CharField(max_length=20, verbose_name=_("code"))
    reason = models.TextField(verbose_name=_("reason"))
    detail = models.JSONField(null=True, blank=True, verbose_name=_("detail"))
    conversation_id = models.BigIntegerField(null=True, blank=True, verbose_name=_("conversation id"))
    # Identical refusals within CANVASWEB["SECURITY_EVENT_COALESCE_SECONDS"] share one row (a flood of
    # refused ops does not write a row each): how many there were, and when the last one came.
    repeats = models.PositiveIntegerField(default=1, verbose_name=_("repeats"))
    last_at = models.DateTimeField(null=True, blank=True, verbose_name=_("last at"))

    class Meta:
        verbose_name = _("security event")
        verbose_name_plural = _("security events")
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.code} {self.op_type} by {self.user_id} via {self.channel}"


class UndoStepKind(models.TextChoices):
    UNDO = "undo"
    REDO = "redo"


class UndoStep(models.Model):
    """Bookkeeping for undo/redo: which revision an undo or redo inverted.

    The change log says *what* an undo changed (entries with reason "undo"/"redo");
    this row says which of the user's revisions it took off their undo (or redo)
    stack, including undos where every part was skipped and nothing was written
    (`revision` is then null). The stacks are rebuilt from the log plus these rows
    (canvasweb.history.undo.undo_stacks). Not part of the audit chain.
    """

    canvas = models.ForeignKey(
        "canvases.Canvas", on_delete=models.CASCADE, related_name="+", verbose_name=_("canvas")
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+", verbose_name=_("user")
    )
    kind = models.CharField(max_length=4, choices=UndoStepKind.choices, verbose_name=_("kind"))
    inverted_revision = models.BigIntegerField(
        help_text="the revision whose effect was inverted", verbose_name=_("inverted revision")
    )
    revision = models.BigIntegerField(
        null=True,
        blank=True,
        help_text="the revision written; null if all skipped",
        verbose_name=_("revision"),
    )
    position = models.BigIntegerField(
        help_text="canvas revision when this step ran (orders it among edits)", verbose_name=_("position")
    )
    skipped = models.JSONField(default=list, blank=True, verbose_name=_("skipped"))
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))

    class Meta:
        verbose_name = _("undo step")
        verbose_name_plural = _("undo steps")
        indexes = [models.Index(fields=["canvas", "user", "position"])]

    def __str__(self) -> str:
        return f"{self.kind} of r{self.inverted_revision} by {self.user_id} on {self.canvas_id}"
