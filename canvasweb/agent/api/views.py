"""Agent proposals over REST: list a canvas's queue, approve, reject (reference: docs/api.md)."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.response import Response

from canvasweb.agent import services
from canvasweb.agent.models import ProposalStatus
from canvasweb.canvases.api.serializers.errors import ErrorSerializer, errors
from canvasweb.common.drf import JSONAPIView, json_object, query_choice

from . import serializers as s

AGENT = "agent"
CANVAS_ID = OpenApiParameter("canvas_id", OpenApiTypes.INT, OpenApiParameter.PATH)
STATUS = OpenApiParameter(
    "status",
    OpenApiTypes.STR,
    OpenApiParameter.QUERY,
    required=False,
    enum=ProposalStatus.values,
    description="Only proposals with this status.",
)
CONFLICT = {
    409: OpenApiResponse(
        response=ErrorSerializer,
        description=(
            "CONFLICT: the proposal was already decided, or it is stale (a node it changes was edited since) and "
            "`force` was not true (`field` is `force`)."
        ),
    )
}


class ProposalListView(JSONAPIView):
    @extend_schema(
        operation_id="proposal_list",
        tags=[AGENT],
        parameters=[CANVAS_ID, STATUS],
        summary="The agent's proposals on a canvas, newest first (those your role may see)",
        responses={200: s.ProposalSerializer(many=True), **errors(400, 401, 404)},
    )
    def get(self, request, canvas_id: int):
        status = query_choice(request, "status", ProposalStatus.values)
        return Response(services.proposal_list(user=request.user, canvas_id=canvas_id, status=status))


class ProposalApproveView(JSONAPIView):
    @extend_schema(
        operation_id="proposal_approve",
        tags=[AGENT],
        summary="Approve a proposal: it is applied through the write path as the agent acting for "
        "the requester, with you recorded as the approver",
        request=s.ProposalApproveSerializer,
        responses={200: s.ProposalDecisionSerializer, **errors(400, 401, 403, 404), **CONFLICT},
    )
    def post(self, request, proposal_id: int):
        body = json_object(request.data, allowed={"force"})
        return Response(
            services.proposal_approve(
                user=request.user, proposal_id=proposal_id, force=body.get("force", False)
            )
        )


class ProposalRejectView(JSONAPIView):
    @extend_schema(
        operation_id="proposal_reject",
        tags=[AGENT],
        summary="Reject a proposal (nothing is applied)",
        request=None,
        responses={200: s.ProposalDecisionSerializer, **errors(401, 403, 404), **CONFLICT},
    )
    def post(self, request, proposal_id: int):
        json_object(request.data, allowed=())
        return Response(services.proposal_reject(user=request.user, proposal_id=proposal_id))
