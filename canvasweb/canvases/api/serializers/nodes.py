"""Nodes, edges, the canvas snapshot, and the change feed built from them."""

from __future__ import annotations

from rest_framework import serializers

from canvasweb.canvases.models import NodeKind, Relation, Sensitivity

from .fields import any_json, enum
from .users import ActorSerializer, EventActorSerializer, UserRefSerializer

# --- nodes, edges, snapshot ------------------------------------------------------------------------


class NodeSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    content = serializers.CharField(allow_blank=True)
    kind = enum(NodeKind, "NodeKind")
    x = serializers.FloatField()
    y = serializers.FloatField()
    weight = serializers.FloatField()
    tags = serializers.ListField(child=serializers.CharField())
    pinned = serializers.BooleanField()
    sensitivity = enum(Sensitivity, "Sensitivity")
    superseded_by = serializers.UUIDField(allow_null=True)
    archived = serializers.BooleanField()
    created_by = UserRefSerializer(allow_null=True)
    author_kind = enum(["user", "agent"], "AuthorKind")
    provenance = any_json(
        allow_null=True, help_text="For agent-written nodes: on_behalf_of, conversation_id, …"
    )
    version = serializers.IntegerField(help_text="Bumped on every change to this node.")
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()


class EdgeSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    source = serializers.UUIDField()
    target = serializers.UUIDField()
    relation = enum(Relation, "Relation")
    label = serializers.CharField(allow_blank=True)
    created_by = UserRefSerializer(allow_null=True)
    author_kind = enum(["user", "agent"], "AuthorKind")
    version = serializers.IntegerField()
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()


class SnapshotSerializer(serializers.Serializer):
    revision = serializers.IntegerField()
    nodes = NodeSerializer(many=True)
    edges = EdgeSerializer(many=True)


# --- changes ----------------------------------------------------------------------------------------------


class ChangeSerializer(serializers.Serializer):
    entity = enum(["node", "edge", "canvas", "member"], "ChangeEntity")
    action = enum(["created", "updated", "deleted", "removed"], "ChangeAction")
    id = serializers.CharField(help_text="Node/edge UUID, canvas id or member user id, as a string.")
    fields = serializers.ListField(child=serializers.CharField(), help_text="Changed fields (for updated).")
    data = any_json(
        allow_null=True,
        help_text="The entity after the change (node, edge, canvas without role/member_count, or "
        "{user, role} for members); null for deleted and removed.",
    )


class ChangeEventSerializer(serializers.Serializer):
    type = enum(["change"], "ChangeEventType")
    revision = serializers.IntegerField()
    client_op_id = serializers.CharField(allow_null=True)
    actor = EventActorSerializer()
    at = serializers.DateTimeField()
    changes = ChangeSerializer(many=True)


class OpResultSerializer(serializers.Serializer):
    revision = serializers.IntegerField(
        help_text="The revision the op committed at (unchanged if it was a no-op)."
    )
    duplicate = serializers.BooleanField(help_text="True if this client_op_id was applied before.")
    changes = ChangeSerializer(many=True)


class ChangesPageSerializer(serializers.Serializer):
    to = serializers.IntegerField(help_text="Last revision included (== from when there is nothing new).")
    events = ChangeEventSerializer(many=True)
    needs_resync = serializers.BooleanField(help_text="Discard local state and GET the snapshot again.")
    has_more = serializers.BooleanField(help_text="More revisions exist: call again with since=to.")


# `from` is a Python keyword: declare it by hand, first in the field order.
ChangesPageSerializer._declared_fields = {
    "from": serializers.IntegerField(help_text="The `since` you sent (exclusive)."),
    **ChangesPageSerializer._declared_fields,
}


class HistoryEntrySerializer(serializers.Serializer):
    revision = serializers.IntegerField()
    seq = serializers.IntegerField(help_text="Order within the revision.")
    at = serializers.DateTimeField()
    actor = ActorSerializer()
    op_type = serializers.CharField(help_text="The operation asked for, e.g. node.update or node.supersede.")
    action = enum(["created", "updated", "deleted"], "HistoryAction")
    fields = serializers.ListField(child=serializers.CharField())
    before = any_json(allow_null=True, help_text="The node before (null if created, or not visible to you).")
    after = any_json(allow_null=True, help_text="The node after (null if deleted, or not visible to you).")
