"""Operations: the request bodies of POST …/ops/ (single ops, batches, the submit envelope)."""

from __future__ import annotations

from drf_spectacular.utils import PolymorphicProxySerializer
from rest_framework import serializers

from canvasweb.canvases.models import NodeKind, Relation, Sensitivity
from canvasweb.canvases.operations import (
    COORDINATE_LIMIT,
    MAX_BATCH_OPS,
    MAX_CONTENT_CHARS,
    MAX_LABEL_CHARS,
    MAX_TAG_CHARS,
    MAX_TAGS,
    MAX_WEIGHT,
    MIN_WEIGHT,
)

from .fields import enum


class NodeBodySerializer(serializers.Serializer):
    id = serializers.UUIDField(
        required=False,
        allow_null=True,
        help_text="Optional client-chosen UUID (absent or null: the server picks one).",
    )
    content = serializers.CharField(required=False, allow_blank=True, max_length=MAX_CONTENT_CHARS)
    kind = enum(NodeKind, "NodeKind", required=False)
    x = serializers.FloatField(min_value=-COORDINATE_LIMIT, max_value=COORDINATE_LIMIT)
    y = serializers.FloatField(min_value=-COORDINATE_LIMIT, max_value=COORDINATE_LIMIT)
    weight = serializers.FloatField(required=False, min_value=MIN_WEIGHT, max_value=MAX_WEIGHT)
    tags = serializers.ListField(
        child=serializers.CharField(max_length=MAX_TAG_CHARS), max_length=MAX_TAGS, required=False
    )
    pinned = serializers.BooleanField(required=False)
    sensitivity = enum(Sensitivity, "Sensitivity", required=False)


class NodeFieldsSerializer(serializers.Serializer):
    content = serializers.CharField(required=False, allow_blank=True, max_length=MAX_CONTENT_CHARS)
    kind = enum(NodeKind, "NodeKind", required=False)
    x = serializers.FloatField(required=False, min_value=-COORDINATE_LIMIT, max_value=COORDINATE_LIMIT)
    y = serializers.FloatField(required=False, min_value=-COORDINATE_LIMIT, max_value=COORDINATE_LIMIT)
    weight = serializers.FloatField(required=False, min_value=MIN_WEIGHT, max_value=MAX_WEIGHT)
    tags = serializers.ListField(
        child=serializers.CharField(max_length=MAX_TAG_CHARS), max_length=MAX_TAGS, required=False
    )
    pinned = serializers.BooleanField(required=False)
    sensitivity = enum(Sensitivity, "Sensitivity", required=False)


class EdgeBodySerializer(serializers.Serializer):
    id = serializers.UUIDField(required=False, allow_null=True)
    source = serializers.UUIDField()
    target = serializers.UUIDField()
    relation = enum(Relation, "Relation", required=False, help_text="Default relates_to.")
    label = serializers.CharField(required=False, allow_blank=True, max_length=MAX_LABEL_CHARS)


class EdgeFieldsSerializer(serializers.Serializer):
    relation = enum(Relation, "Relation", required=False)
    label = serializers.CharField(required=False, allow_blank=True, max_length=MAX_LABEL_CHARS)


class NodeCreateOpSerializer(serializers.Serializer):
    type = enum(["node.create"], "OpTypeNodeCreate")
    node = NodeBodySerializer()


class NodeUpdateOpSerializer(serializers.Serializer):
    type = enum(["node.update"], "OpTypeNodeUpdate")
    id = serializers.UUIDField()
    fields = NodeFieldsSerializer(help_text="A non-empty subset.")
    base_version = serializers.IntegerField(
        min_value=1,
        required=False,
        allow_null=True,
        help_text="The node version the edit started from. A `content` change on a base that someone else's "
        "content edit has overtaken is refused with 409 CONFLICT (error.current = the node now).",
    )


class NodeMoveOpSerializer(serializers.Serializer):
    type = enum(["node.move"], "OpTypeNodeMove")
    id = serializers.UUIDField()
    x = serializers.FloatField(min_value=-COORDINATE_LIMIT, max_value=COORDINATE_LIMIT)
    y = serializers.FloatField(min_value=-COORDINATE_LIMIT, max_value=COORDINATE_LIMIT)


class NodeDeleteOpSerializer(serializers.Serializer):
    type = enum(["node.delete"], "OpTypeNodeDelete")
    id = serializers.UUIDField()


class NodeSupersedeOpSerializer(serializers.Serializer):
    type = enum(["node.supersede"], "OpTypeNodeSupersede")
    id = serializers.UUIDField(help_text="The old node.")
    node = NodeBodySerializer(help_text="The new node.")


class NodeArchiveOpSerializer(serializers.Serializer):
    type = enum(["node.archive"], "OpTypeNodeArchive")
    id = serializers.UUIDField()
    archived = serializers.BooleanField(required=False, default=True)


class EdgeCreateOpSerializer(serializers.Serializer):
    type = enum(["edge.create"], "OpTypeEdgeCreate")
    edge = EdgeBodySerializer()


class EdgeUpdateOpSerializer(serializers.Serializer):
    type = enum(["edge.update"], "OpTypeEdgeUpdate")
    id = serializers.UUIDField()
    fields = EdgeFieldsSerializer(help_text="A non-empty subset.")


class EdgeDeleteOpSerializer(serializers.Serializer):
    type = enum(["edge.delete"], "OpTypeEdgeDelete")
    id = serializers.UUIDField()


SINGLE_OPS: dict[str, serializers.Serializer | type[serializers.Serializer]] = {
    "node.create": NodeCreateOpSerializer,
    "node.update": NodeUpdateOpSerializer,
    "node.move": NodeMoveOpSerializer,
    "node.delete": NodeDeleteOpSerializer,
    "node.supersede": NodeSupersedeOpSerializer,
    "node.archive": NodeArchiveOpSerializer,
    "edge.create": EdgeCreateOpSerializer,
    "edge.update": EdgeUpdateOpSerializer,
    "edge.delete": EdgeDeleteOpSerializer,
}


class BatchOpSerializer(serializers.Serializer):
    type = enum(["batch"], "OpTypeBatch")
    ops = PolymorphicProxySerializer(
        component_name="SingleOperation",
        serializers=SINGLE_OPS,
        resource_type_field_name="type",
        many=True,
        help_text=f"1-{MAX_BATCH_OPS} operations (no nested batch), applied atomically at one revision.",
    )


class OpSubmitSerializer(serializers.Serializer):
    client_op_id = serializers.CharField(
        required=False,
        allow_null=True,
        min_length=1,
        max_length=64,
        help_text="Optional idempotency key, unique per user per canvas: a resend returns the first result.",
    )
    op = PolymorphicProxySerializer(
        component_name="Operation",
        serializers={**SINGLE_OPS, "batch": BatchOpSerializer},
        resource_type_field_name="type",
    )
