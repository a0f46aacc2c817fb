"""Content and sync over REST: the snapshot, ops (the HTTP write path), the change log since a
revision, one node's history."""

from __future__ import annotations

import uuid

from drf_spectacular.utils import OpenApiExample, OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from canvasweb.canvases import permissions, selectors, services
from canvasweb.canvases.visibility import filter_changes
from canvasweb.common.drf import JSONAPIView, json_object
from canvasweb.common.errors import InvalidOperation, NotFound

from .. import serializers as s
from .common import CANVAS_ID, SYNC, request_actor, request_user


def _query_int(request: Request, name: str, *, default: int | None = None, minimum: int = 0) -> int:
    raw = request.query_params.get(name)
    if raw is None or raw == "":
        if default is None:
            raise InvalidOperation(f"{name} is required", field=name)
        return default
    if not raw.isascii() or not raw.isdigit():
        raise InvalidOperation(f"{name} must be a non-negative integer", field=name)
    if len(raw.lstrip("0")) > 18:
        raise InvalidOperation(f"{name} is too large; the largest accepted value is {10**18 - 1}", field=name)
    value = int(raw)
    if value < minimum:
        raise InvalidOperation(f"{name} must be at least {minimum}", field=name)
    return value


class SnapshotView(JSONAPIView):
    @extend_schema(
        parameters=[CANVAS_ID],
        operation_id="canvas_snapshot",
        tags=[SYNC],
        summary="Every node and edge you may see, with the revision they are current at",
        responses={200: s.SnapshotSerializer, **s.errors(401, 404)},
    )
    def get(self, request: Request, canvas_id: int) -> Response:
        """Nodes and edges filtered for your role (viewers: public only; editors: +internal; owners: +secret). Edges
        touching a node you may not see are left out."""
        canvas, role = selectors.canvas_for_member(user=request_user(request), canvas_id=canvas_id)
        return Response(selectors.canvas_snapshot(canvas=canvas, role=role))


class OpsView(JSONAPIView):
    @extend_schema(
        parameters=[CANVAS_ID],
        operation_id="canvas_apply_op",
        tags=[SYNC],
        summary="Apply one operation or an atomic batch (the same ops as the WebSocket)",
        request=s.OpSubmitSerializer,
        responses={
            200: OpenApiResponse(
                s.OpResultSerializer, description="Committed (or already applied: duplicate)."
            ),
            **s.errors(400, 401, 403, 404, 409, 413, 415),
        },
        examples=[
            OpenApiExample(
                "Create a node",
                request_only=True,
                value={
                    "client_op_id": "cli-0001",
                    "op": {
                        "type": "node.create",
                        "node": {
                            "content": "Database listens on port 5433",
                            "kind": "config",
                            "x": 0,
                            "y": 0,
                        },
                    },
                },
            ),
        ],
    )
    def post(self, request: Request, canvas_id: int) -> Response:
        """The same operations as the WebSocket `op` frame (docs/protocol.md). One op or a batch commits atomically at
        one new revision. `changes` is filtered for your role. With `client_op_id`, a resend returns the
        first result with `duplicate: true` and applies nothing."""
        body = json_object(
            request.data, allowed={"client_op_id", "op"}, required={"op"}, nullable={"client_op_id"}
        )
        result = services.apply_operation(
            actor=request_actor(request),
            canvas_id=canvas_id,
            op=body["op"],
            client_op_id=body.get("client_op_id"),
        )
        # The service returns unfiltered records; show the caller only what their role may see.
        role = selectors.user_role(user=request_user(request), canvas_id=canvas_id)
        changes, _ = filter_changes(result.changes, level=permissions.role_level(role) if role else -1)
        return Response({"revision": result.revision, "duplicate": result.duplicate, "changes": changes})


class ChangesView(JSONAPIView):
    @extend_schema(
        operation_id="canvas_changes",
        tags=[SYNC],
        summary="Committed change events after a revision (catch-up), filtered for your role",
        parameters=[
            CANVAS_ID,
            OpenApiParameter(
                "since",
                {"type": "integer", "minimum": 0, "maximum": 10**18 - 1},
                OpenApiParameter.QUERY,
                required=True,
                description="Return revisions > since (the last revision you applied).",
            ),
            OpenApiParameter(
                "limit",
                {"type": "integer", "minimum": 1, "maximum": 10**18 - 1},
                OpenApiParameter.QUERY,
                required=False,
                description=f"At most this many revisions (1-{selectors.MAX_CHANGES_PAGE}, "
                f"default and cap {selectors.MAX_CHANGES_PAGE}).",
            ),
        ],
        responses={200: s.ChangesPageSerializer, **s.errors(400, 401, 404)},
    )
    def get(self, request: Request, canvas_id: int) -> Response:
        """Catch-up from the change log: one event per revision after `since`, in order, filtered for your role
        (changes you may not see are dropped, so an event's `changes` may be empty). If `needs_resync` is
        true, discard local state and GET the snapshot. If `has_more`, call again with `since=to`."""
        since = _query_int(request, "since")
        limit = min(
            _query_int(request, "limit", default=selectors.MAX_CHANGES_PAGE, minimum=1),
            selectors.MAX_CHANGES_PAGE,
        )
        canvas, role = selectors.canvas_for_member(user=request_user(request), canvas_id=canvas_id)
        if since > canvas.revision:
            # The client holds revisions this canvas never had (e.g. the database was reset).
            return Response(
                {"from": since, "to": since, "events": [], "needs_resync": True, "has_more": False}
            )
        return Response(
            selectors.changes_since(
                canvas=canvas, role=role, since=since, limit=limit, user_id=request_user(request).pk
            )
        )


class NodeHistoryView(JSONAPIView):
    @extend_schema(
        parameters=[CANVAS_ID],
        operation_id="node_history",
        tags=[SYNC],
        summary="Every logged change to one node, oldest first (what your role may see)",
        responses={200: s.HistoryEntrySerializer(many=True), **s.errors(401, 404)},
    )
    def get(self, request: Request, canvas_id: int, node_id: uuid.UUID) -> Response:
        """Every change log entry of one node (also after it was deleted), oldest first, with the actor and the node
        before/after. Versions you may not see are null."""
        canvas, role = selectors.canvas_for_member(user=request_user(request), canvas_id=canvas_id)
        history = selectors.node_history(canvas=canvas, role=role, node_id=str(node_id))
        if not history:
            # A deleted node you could never see: same answer as an unknown id.
            raise NotFound("no such node", field="node_id")
        return Response(history)
