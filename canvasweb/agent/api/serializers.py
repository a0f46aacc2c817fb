"""OpenAPI shapes of the agent endpoints (documentation only; validation lives in agent/services.py)."""

from rest_framework import serializers

from canvasweb.agent.models import ProposalStatus
from canvasweb.canvases.api.serializers.errors import ErrorDetailSerializer
from canvasweb.canvases.api.serializers.fields import any_json, enum
from canvasweb.canvases.api.serializers.users import UserRefSerializer


class ProposalFieldChangeSerializer(serializers.Serializer):
    field = serializers.CharField()
    before = any_json(allow_null=True)
    after = any_json(allow_null=True)


class ProposalDiffSerializer(serializers.Serializer):
    target = any_json(
        required=False, help_text="The node it changes: {id, content, kind, version, sensitivity}."
    )
    node = any_json(required=False, help_text="The node it would create (a ghost node for the canvas).")
    edge = any_json(required=False, help_text="The edge it would create (a ghost edge).")
    source = any_json(required=False)
    fields = ProposalFieldChangeSerializer(many=True, help_text="Field-level diff: before → after.")


class ProposalSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    canvas_id = serializers.IntegerField()
    status = enum(ProposalStatus.values, "ProposalStatus")
    tool = serializers.CharField(
        help_text="add_node, update_node, move_node, link_nodes, supersede_node, archive_node"
    )
    summary = serializers.CharField()
    diff = ProposalDiffSerializer()
    op = any_json(help_text="The canvas operation that approval applies (docs/protocol.md, Operations).")
    stale = serializers.BooleanField(
        help_text="A node it changes was edited or removed since it was proposed."
    )
    stale_reason = serializers.CharField(allow_null=True)
    requested_by = UserRefSerializer(help_text="The person the agent acted for.")
    conversation_id = serializers.IntegerField(allow_null=True)
    message_id = serializers.IntegerField(allow_null=True)
    agent_run_id = serializers.CharField(allow_null=True)
    decided_by = UserRefSerializer(allow_null=True)
    decided_at = serializers.DateTimeField(allow_null=True)
    forced = serializers.BooleanField(help_text="Approved although it was stale.")
    result_revision = serializers.IntegerField(allow_null=True, help_text="The canvas revision it became.")
    error = ErrorDetailSerializer(allow_null=True, help_text="Why applying it failed (status failed).")
    created_at = serializers.DateTimeField()


class ProposalApproveSerializer(serializers.Serializer):
    force = serializers.BooleanField(
        required=False, default=False, help_text="Approve even though the proposal is stale."
    )


class ProposalDecisionSerializer(serializers.Serializer):
    proposal = ProposalSerializer()
    revision = serializers.IntegerField(allow_null=True)
