"""Canvas, membership, nodes and edges.

Rows here are written only by `canvasweb.canvases.services` (the one write
path); `tests/canvases/test_single_write_path.py` fails if anything else does.
"""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models


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
    name = models.CharField(max_length=200)
    description = models.TextField(blank=True, default="")
    revision = models.BigIntegerField(default=0)
    # Hash of the newest change-log entry, kept here so a commit chains its entries without a query.
    last_hash = models.CharField(max_length=64, blank=True, default="")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    # Deleting a canvas hides it; its change log must stay intact.
    deleted_at = models.DateTimeField(null=True, blank=True)

    agent_mode = models.CharField(max_length=10, choices=AgentMode.choices, default=AgentMode.PROPOSE)
    agent_scope = models.CharField(max_length=10, choices=AgentScope.choices, default=AgentScope.ALL)
    agent_protect_pinned = models.BooleanField(default=True)
    agent_may_archive = models.BooleanField(default=True)
    # MCP server and OpenAI-compatible endpoint (canvasweb/integrations): tools outside the page.
    agent_external_access = models.BooleanField(default=True)

    class Meta:
        verbose_name_plural = "canvases"

    def __str__(self) -> str:
        return f"{self.name} (#{self.pk})"


class Membership(models.Model):
    canvas = models.ForeignKey(Canvas, on_delete=models.CASCADE, related_name="memberships")
    # PROTECT: a user leaves canvases through services.user_delete (logged, broadcast, owner kept), never
    # by a silent cascade.
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="canvas_memberships"
    )
    role = models.CharField(max_length=10, choices=Role.choices)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["canvas", "user"], name="unique_membership")]

    def __str__(self) -> str:
        return f"{self.user} is {self.role} of {self.canvas_id}"


class AuthorKind(models.TextChoices):
    USER = "user"
    AGENT = "agent"


class Node(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    canvas = models.ForeignKey(Canvas, on_delete=models.CASCADE, related_name="nodes")
    content = models.TextField(blank=True, default="")
    kind = models.CharField(max_length=20, choices=NodeKind.choices, default=NodeKind.NOTE)
    x = models.FloatField(default=0.0)
    y = models.FloatField(default=0.0)
    weight = models.FloatField(default=1.0)
    tags = models.JSONField(default=list, blank=True)
    pinned = models.BooleanField(default=False)
    sensitivity = models.CharField(max_length=10, choices=Sensitivity.choices, default=Sensitivity.PUBLIC)
    superseded_by = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    archived = models.BooleanField(default=False)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    author_kind = models.CharField(max_length=10, choices=AuthorKind.choices, default=AuthorKind.USER)
    # For agent-written nodes: {"on_behalf_of": user id, "conversation_id": ..., "message_id": ..., "model": ...}
    provenance = models.JSONField(null=True, blank=True)
    version = models.PositiveIntegerField(default=1)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        indexes = [models.Index(fields=["canvas", "x", "y"])]

    def __str__(self) -> str:
        return f"{self.kind}: {self.content[:40]}"


class Edge(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    canvas = models.ForeignKey(Canvas, on_delete=models.CASCADE, related_name="edges")
    # PROTECT: the service deletes (and logs) edges before their nodes.
    source = models.ForeignKey(Node, on_delete=models.PROTECT, related_name="outgoing_edges")
    target = models.ForeignKey(Node, on_delete=models.PROTECT, related_name="incoming_edges")
    relation = models.CharField(max_length=20, choices=Relation.choices, default=Relation.RELATES_TO)
    label = models.CharField(max_length=200, blank=True, default="")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    author_kind = models.CharField(max_length=10, choices=AuthorKind.choices, default=AuthorKind.USER)
    version = models.PositiveIntegerField(default=1)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"{self.source_id} {self.relation} {self.target_id}"


class OpReceipt(models.Model):
    """Remembers each client op id so a resend returns the original result."""

    canvas = models.ForeignKey(Canvas, on_delete=models.CASCADE, related_name="+")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    client_op_id = models.CharField(max_length=64)
    revision = models.BigIntegerField()
    changes = models.JSONField()
    # Indexed for the retention prune (canvasweb/history/retention.py).
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["canvas", "user", "client_op_id"], name="unique_client_op")
        ]

    def __str__(self) -> str:
        return f"op {self.client_op_id} → r{self.revision}"
