"""Request and response shapes of the REST API, for the OpenAPI schema (docs/api.md is the prose).

The views return the plain dicts of `canvasweb.canvases.serialization` and the
selectors unchanged; these serializers describe those dicts exactly (a test
validates real responses against the generated schema). Request bodies are
checked for unknown/missing keys by `common.drf.json_object`; value checks are
the services' job, the one place that validates writes.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from drf_spectacular.extensions import OpenApiSerializerFieldExtension
from drf_spectacular.utils import OpenApiResponse, PolymorphicProxySerializer
from rest_framework import serializers

from canvasweb.canvases.models import AgentMode, AgentScope, NodeKind, Relation, Role, Sensitivity
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


class EnumField(serializers.CharField):
    """A string limited to `values`; documented as its own named schema component."""

    def __init__(self, values: Iterable[Any], *, component: str, **kwargs: Any) -> None:
        self.enum_values = [getattr(v, "value", v) for v in values]
        self.enum_component = component
        super().__init__(**kwargs)


# drf-spectacular ships py.typed but leaves OpenApiGeneratorExtension.__init_subclass__ unannotated.
class EnumFieldExtension(OpenApiSerializerFieldExtension):  # type: ignore[no-untyped-call]
    # Named components keep our enums out of drf-spectacular's global enum naming, where a
    # field called e.g. `role` or `kind` elsewhere in the project would collide with ours.
    target_class = EnumField

    def get_name(self) -> str:
        return str(self.target.enum_component)

    def map_serializer_field(self, auto_schema: Any, direction: Any) -> dict[str, Any]:
        return {"type": "string", "enum": list(self.target.enum_values)}


def enum(values: Iterable[Any], component: str, **kwargs: Any) -> EnumField:
    return EnumField(values, component=component, **kwargs)


def any_json(**kwargs: Any) -> serializers.JSONField:
    return serializers.JSONField(**kwargs)


# --- errors -------------------------------------------------------------------------------------


class ErrorDetailSerializer(serializers.Serializer):
    code = serializers.CharField(
        help_text="Stable machine-readable code, e.g. INVALID, NOT_FOUND, FORBIDDEN."
    )
    message = serializers.CharField(help_text="Human-readable explanation.")
    field = serializers.CharField(allow_null=True, help_text="The offending field (dotted path) or null.")
    current = any_json(
        required=False,
        allow_null=True,
        help_text="Only for CONFLICT on a stale node.update base_version: the node as it is now.",
    )


class ErrorSerializer(serializers.Serializer):
    error = ErrorDetailSerializer()


_ERROR_TEXT = {
    400: "INVALID: malformed JSON, unknown/missing field or a value out of range (`field` names it).",
    401: "UNAUTHENTICATED: no valid session or token.",
    403: "FORBIDDEN: your role may not do this; CSRF_FAILED: session request without a valid CSRF token.",
    404: "NOT_FOUND: no such canvas (or you are not a member), node, edge or member.",
    409: "CONFLICT: a client-chosen id already exists, or a content edit's base_version is stale "
    "(then `current` holds the node as it is now).",
    413: "TOO_LARGE: request body over the size limit.",
    415: "UNSUPPORTED_MEDIA_TYPE: send Content-Type: application/json.",
    429: "RATE_LIMITED: too many attempts from this address; retry after the Retry-After header's seconds.",
}


def errors(*statuses: int) -> dict[int, OpenApiResponse]:
    return {
        code: OpenApiResponse(response=ErrorSerializer, description=_ERROR_TEXT[code]) for code in statuses
    }


# --- users, actors --------------------------------------------------------------------------------


class UserRefSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    username = serializers.CharField()


class ActorUserSerializer(serializers.Serializer):
    id = serializers.IntegerField(allow_null=True, help_text="null if the user account was deleted since.")
    username = serializers.CharField()


class ActorSerializer(serializers.Serializer):
    kind = enum(["user", "agent", "system"], "ActorKind")
    user = ActorUserSerializer(allow_null=True)
    on_behalf_of = ActorUserSerializer(
        allow_null=True, help_text="For agent writes: the person it acted for."
    )
    approved_by = UserRefSerializer(allow_null=True, help_text="Who approved an agent proposal, if anyone.")
    conversation_id = serializers.IntegerField(allow_null=True)
    reason = serializers.CharField(
        allow_null=True, help_text="e.g. revert, undo, import; null for plain edits."
    )


class EventActorSerializer(ActorSerializer):
    via = serializers.CharField(
        allow_null=True,
        help_text='The tool outside the page the agent worked in, e.g. "MCP (claude-ai)"; null otherwise.',
    )


class LoginInputSerializer(serializers.Serializer):
    username = serializers.CharField()
    password = serializers.CharField()


class LoginOutputSerializer(serializers.Serializer):
    user = UserRefSerializer()
    csrf_token = serializers.CharField(help_text="The new CSRF token (Django rotates it on login).")


class CsrfOutputSerializer(serializers.Serializer):
    csrf_token = serializers.CharField()


class TokenOutputSerializer(serializers.Serializer):
    token = serializers.CharField(help_text="Send as `Authorization: Token <token>`.")


# --- canvases ----------------------------------------------------------------------------------------


class AgentPolicySerializer(serializers.Serializer):
    mode = enum(
        AgentMode,
        "AgentMode",
        help_text="off: no agent writes; propose: a person approves each; auto: direct.",
    )
    scope = enum(
        AgentScope,
        "AgentScope",
        help_text="all, or tagged: only nodes tagged agent-writable or agent-written.",
    )
    protect_pinned = serializers.BooleanField(help_text="The agent may not change or create pinned anchors.")
    allow_archive = serializers.BooleanField(help_text="The agent may archive nodes.")
    external_access = serializers.BooleanField(
        help_text="Tools outside the page may use this canvas: the MCP server and the OpenAI-compatible endpoint."
    )


class AgentPolicyPatchSerializer(serializers.Serializer):
    mode = enum(AgentMode, "AgentMode", required=False)
    scope = enum(AgentScope, "AgentScope", required=False)
    protect_pinned = serializers.BooleanField(required=False)
    allow_archive = serializers.BooleanField(required=False)
    external_access = serializers.BooleanField(required=False)


class CanvasSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    description = serializers.CharField(allow_blank=True)
    revision = serializers.IntegerField(help_text="Bumped by exactly 1 on every committed write.")
    agent_policy = AgentPolicySerializer()
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()
    role = enum(Role, "CanvasRole", help_text="Your role on this canvas.")
    member_count = serializers.IntegerField()


class CanvasCreateSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=200, help_text="1-200 characters (trimmed).")
    description = serializers.CharField(required=False, allow_blank=True, max_length=2000)


class CanvasUpdateSerializer(serializers.Serializer):
    name = serializers.CharField(required=False, max_length=200)
    description = serializers.CharField(required=False, allow_blank=True, max_length=2000)
    agent_policy = AgentPolicyPatchSerializer(required=False, help_text="Any subset of the policy keys.")


# --- members -----------------------------------------------------------------------------------------


class MemberSerializer(serializers.Serializer):
    user = UserRefSerializer()
    role = enum(Role, "CanvasRole")


class MemberCreateSerializer(serializers.Serializer):
    username = serializers.CharField(required=False, help_text="Give either username or user_id.")
    user_id = serializers.IntegerField(required=False)
    role = enum(Role, "CanvasRole")


class MemberUpdateSerializer(serializers.Serializer):
    role = enum(Role, "CanvasRole")


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


# --- operations (request bodies) ------------------------------------------------------------------------


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
