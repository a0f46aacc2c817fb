"""Canvas, membership, nodes and edges.

Rows here are written only by `canvasweb.canvases.services` (the one write
path); `tests/canvases/test_single_write_path.py` fails if anything else does.
"""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class Role(models.TextChoices):
    OWNER = "owner"
    EDITOR = "editor"
    VIEWER = "viewer"


class Sensitivity(models.TextChoices):
    PUBLIC = "public"
    INTERNAL = "internal"
    SECRET = "secret"


class NodeKind(models.TextChoices):
    FACT = "fact"
    REQUIREMENT = "requirement"
    DECISION = "decision"
    CONFIG = "config"
    QUESTION = "question"
    NOTE = "note"


class Relation(models.TextChoices):
    DEPENDS_ON = "depends_on"
    CAUSES = "causes"
    CONFLICTS_WITH = "conflicts_with"
    SUPERSEDES = "supersedes"
    RELATES_TO = "relates_to"


class AgentMode(models.TextChoices):
    OFF = "off"
    PROPOSE = "propose"
    AUTO = "auto"


class AgentScope(models.TextChoices):
    ALL = "all"
    TAGGED = "tagged"  # only nodes tagged agent-writable or written by the agent


class Canvas(models.Model):
    name = models.CharField(max_length=200, verbose_name=_("name"))
    description = models.TextField(blank=True, default="", verbose_name=_("description"))
    revision = models.BigIntegerField(default=0, verbose_name=_("revision"))
    # Hash of the newest change-log entry, kept here so a commit chains its entries without a query.
    last_hash = models.CharField(max_length=64, blank=True, default="", verbose_name=_("last hash"))
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("created by"),
    )
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))
    updated_at = models.DateTimeField(auto_now=True, verbose_name=_("updated at"))
    # Deleting a canvas hides it; its change log must stay intact.
    deleted_at = models.DateTimeField(null=True, blank=True, verbose_name=_("deleted at"))

    agent_mode = models.CharField(
        max_length=10, choices=AgentMode.choices, default=AgentMode.PROPOSE, verbose_name=_("agent mode")
    )
    agent_scope = models.CharField(
        max_length=10, choices=AgentScope.choices, default=AgentScope.ALL, verbose_name=_("agent scope")
    )
    agent_protect_pinned = models.BooleanField(default=True, verbose_name=_("agent protect pinned"))
    agent_may_archive = models.BooleanField(default=True, verbose_name=_("agent may archive"))
    # MCP server and OpenAI-compatible endpoint (canvasweb/integrations): tools outside the page.
    agent_external_access = models.BooleanField(default=True, verbose_name=_("agent external access"))

    class Meta:
        verbose_name = _("canvas")
        verbose_name_plural = _("canvases")

    def __str__(self) -> str:
        return f"{self.name} (#{self.pk})"


class Membership(models.Model):
    canvas = models.ForeignKey(
        Canvas, on_delete=models.CASCADE, related_name="memberships", verbose_name=_("canvas")
    )
    # PROTECT: a user leaves canvases through services.user_delete (logged, broadcast, owner kept), never
    # by a silent cascade.
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="canvas_memberships",
        verbose_name=_("user"),
    )
    role = models.CharField(max_length=10, choices=Role.choices, verbose_name=_("role"))
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))

    class Meta:
        verbose_name = _("membership")
        verbose_name_plural = _("memberships")
        constraints = [models.UniqueConstraint(fields=["canvas", "user"], name="unique_membership")]

    def __str__(self) -> str:
        return f"{self.user} is {self.role} of {self.canvas_id}"


class AuthorKind(models.TextChoices):
    USER = "user"
    AGENT = "agent"


class Node(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False, verbose_name=_("id"))
    canvas = models.ForeignKey(
        Canvas, on_delete=models.CASCADE, related_name="nodes", verbose_name=_("canvas")
    )
    content = models.TextField(blank=True, default="", verbose_name=_("content"))
    kind = models.CharField(
        max_length=20, choices=NodeKind.choices, default=NodeKind.NOTE, verbose_name=_("kind")
    )
    x = models.FloatField(default=0.0, verbose_name=_("x"))
    y = models.FloatField(default=0.0, verbose_name=_("y"))
    weight = models.FloatField(default=1.0, verbose_name=_("weight"))
    tags = models.JSONField(default=list, blank=True, verbose_name=_("tags"))
    pinned = models.BooleanField(default=False, verbose_name=_("pinned"))
    sensitivity = models.CharField(
        max_length=10, choices=Sensitivity.choices, default=Sensitivity.PUBLIC, verbose_name=_("sensitivity")
    )
    superseded_by = models.ForeignKey(
        "self",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("superseded by"),
    )
    archived = models.BooleanField(default=False, verbose_name=_("archived"))
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("created by"),
    )
    author_kind = models.CharField(
        max_length=10, choices=AuthorKind.choices, default=AuthorKind.USER, verbose_name=_("author kind")
    )
    # For agent-written nodes: {"on_behalf_of": user id, "conversation_id": ..., "message_id": ..., "model": ...}
    provenance = models.JSONField(null=True, blank=True, verbose_name=_("provenance"))
    version = models.PositiveIntegerField(default=1, verbose_name=_("version"))
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))
    updated_at = models.DateTimeField(auto_now=True, verbose_name=_("updated at"))

    class Meta:
        verbose_name = _("node")
        verbose_name_plural = _("nodes")
        indexes = [models.Index(fields=["canvas", "x", "y"])]

    def __str__(self) -> str:
        return f"{self.kind}: {self.content[:40]}"


class Edge(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False, verbose_name=_("id"))
    canvas = models.ForeignKey(
        Canvas, on_delete=models.CASCADE, related_name="edges", verbose_name=_("canvas")
    )
    # PROTECT: the service deletes (and logs) edges before their nodes.
    source = models.ForeignKey(
        Node, on_delete=models.PROTECT, related_name="outgoing_edges", verbose_name=_("source")
    )
    target = models.ForeignKey(
        Node, on_delete=models.PROTECT, related_name="incoming_edges", verbose_name=_("target")
    )
    relation = models.CharField(
        max_length=20, choices=Relation.choices, default=Relation.RELATES_TO, verbose_name=_("relation")
    )
    label = models.CharField(max_length=200, blank=True, default="", verbose_name=_("label"))
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("created by"),
    )
    author_kind = models.CharField(
        max_length=10, choices=AuthorKind.choices, default=AuthorKind.USER, verbose_name=_("author kind")
    )
    version = models.PositiveIntegerField(default=1, verbose_name=_("version"))
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))
    updated_at = models.DateTimeField(auto_now=True, verbose_name=_("updated at"))

    class Meta:
        verbose_name = _("edge")
        verbose_name_plural = _("edges")

    def __str__(self) -> str:
        return f"{self.source_id} {self.relation} {self.target_id}"


class OpReceipt(models.Model):
    """Remembers each client op id so a resend returns the original result."""

    canvas = models.ForeignKey(Canvas, on_delete=models.CASCADE, related_name="+", verbose_name=_("canvas"))
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+", verbose_name=_("user")
    )
    client_op_id = models.CharField(max_length=64, verbose_name=_("client op id"))
    revision = models.BigIntegerField(verbose_name=_("revision"))
    changes = models.JSONField(verbose_name=_("changes"))
    # Indexed for the retention prune (canvasweb/history/retention.py).
    created_at = models.DateTimeField(auto_now_add=True, db_index=True, verbose_name=_("created at"))

    class Meta:
        verbose_name = _("op receipt")
        verbose_name_plural = _("op receipts")
        constraints = [
            models.UniqueConstraint(fields=["canvas", "user", "client_op_id"], name="unique_client_op")
        ]

    def __str__(self) -> str:
        return f"op {self.client_op_id} → r{self.revision}"
