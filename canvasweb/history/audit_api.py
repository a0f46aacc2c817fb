"""REST endpoints of the owner's audit view (reference: docs/api.md, "Audit").

Thin views: parse the filters, check the reader is the owner (or site staff),
call canvasweb.history.audit_selectors.
"""

from __future__ import annotations

from datetime import UTC, datetime

from django.utils.dateparse import parse_datetime
from django.utils.timezone import is_naive, make_aware
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.response import Response

from canvasweb.canvases import selectors as canvas_selectors
from canvasweb.canvases.api import serializers as s
from canvasweb.common.drf import JSONAPIView, json_object, query_choice
from canvasweb.common.errors import InvalidOperation
from canvasweb.common.ids import canonical_uuid

from . import audit_selectors
from .api.params import ACTOR_KIND, CANVAS_ID, HISTORY, _query_int
from .api.serializers import TimelineEntrySerializer

AUDIT = "audit"


class AuditEntrySerializer(TimelineEntrySerializer):
    hash = serializers.CharField(help_text="This entry's link in the hash chain (SHA-256, hex).")
    prev_hash = serializers.CharField(
        allow_blank=True, help_text="The previous entry's hash ('' for the first)."
    )
    agent_run_id = serializers.CharField(
        allow_null=True, help_text="The agent run that made the change, if any."
    )
    message_id = serializers.IntegerField(allow_null=True, help_text="The chat message the change came from.")


class AuditActorSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    username = serializers.CharField()


class AuditPageSerializer(serializers.Serializer):
    revision = serializers.IntegerField(help_text="The canvas's current revision.")
    items = AuditEntrySerializer(many=True, help_text="Newest first.")
    next_before = serializers.IntegerField(allow_null=True, help_text="Pass as ?before= for older entries.")
    actors = AuditActorSerializer(many=True, help_text="Everyone in the log, for the actor filter.")


class ChainProblemSerializer(serializers.Serializer):
    revision = serializers.IntegerField(allow_null=True)
    seq = serializers.IntegerField(allow_null=True)
    problem = serializers.CharField()
    expected = serializers.CharField(allow_null=True)
    stored = serializers.CharField(allow_null=True)


class ChainReportSerializer(serializers.Serializer):
    ok = serializers.BooleanField()
    entries = serializers.IntegerField(help_text="Entries checked.")
    problem = ChainProblemSerializer(allow_null=True, help_text="The first entry that breaks the chain.")


def _query_time(request, name: str) -> datetime | None:
    raw = request.query_params.get(name)
    if raw is None:
        return None
    try:
        value = parse_datetime(raw) if raw else None
        # In UTC here, not in the query: an offset that moves the time past year 1 or 9999
        # ("9999-12-31T23:59:59-23:59") overflows, which the database adapter raised as a 500.
        if value is not None:
            value = make_aware(value, UTC) if is_naive(value) else value.astimezone(UTC)
    except (ValueError, OverflowError):
        value = None
    if value is None:
        raise InvalidOperation(f"{name} must be an ISO 8601 date-time, e.g. 2026-12-01T09:30:00Z", field=name)
    return value


def _query_node(request) -> str | None:
    raw = request.query_params.get("node_id")
    if raw is None:
        return None
    parsed = canonical_uuid(raw)
    if parsed is None:
        raise InvalidOperation("node_id must be a node id (UUID)", field="node_id")
    return str(parsed)


def _owner(request, canvas_id: int):
    canvas, role = canvas_selectors.canvas_for_member(user=request.user, canvas_id=canvas_id)
    return canvas, audit_selectors.require_audit_reader(role=role, user=request.user)


class AuditView(JSONAPIView):
    @extend_schema(
        operation_id="canvas_audit",
        tags=[HISTORY, AUDIT],
        summary="The canvas's change log for review, newest first (owners)",
        parameters=[
            CANVAS_ID,
            ACTOR_KIND,
            OpenApiParameter(
                "actor",
                {"type": "integer", "minimum": 1},
                OpenApiParameter.QUERY,
                required=False,
                description="Only changes by this user (also agent changes made for them, or "
                "approved by them).",
            ),
            OpenApiParameter(
                "node_id",
                OpenApiTypes.UUID,
                OpenApiParameter.QUERY,
                required=False,
                description="Only this node's entries and those of edges touching it.",
            ),
            OpenApiParameter("since", OpenApiTypes.DATETIME, OpenApiParameter.QUERY, required=False),
            OpenApiParameter("until", OpenApiTypes.DATETIME, OpenApiParameter.QUERY, required=False),
            OpenApiParameter(
                "limit",
                {"type": "integer", "minimum": 1, "maximum": 10**18 - 1},
                OpenApiParameter.QUERY,
                required=False,
                description="About this many entries (1-200, default 50); a revision is never split.",
            ),
            OpenApiParameter(
                "before",
                {"type": "integer", "minimum": 1, "maximum": 10**18 - 1},
                OpenApiParameter.QUERY,
                required=False,
                description="Only revisions older than this (paging: pass next_before).",
            ),
        ],
        responses={200: AuditPageSerializer, **s.errors(400, 401, 403, 404)},
    )
    def get(self, request, canvas_id: int):
        """Every change log entry with its diff, actor, hash and, for edges, the texts of both nodes."""
        canvas, level = _owner(request, canvas_id)
        filters = audit_selectors.AuditFilters(
            actor_user_id=_query_int(request, "actor", default=None, minimum=1),
            actor_kind=query_choice(request, "actor_kind", audit_selectors.ACTOR_KINDS),
            node_id=_query_node(request),
            since=_query_time(request, "since"),
            until=_query_time(request, "until"),
        )
        limit = _query_int(request, "limit", default=audit_selectors.DEFAULT_AUDIT_PAGE, minimum=1)
        page = audit_selectors.canvas_audit(
            canvas=canvas,
            level=level,
            filters=filters,
            limit=min(limit or 1, audit_selectors.MAX_ACTIVITY),
            before=_query_int(request, "before", default=None, minimum=1),
        )
        page["actors"] = audit_selectors.canvas_audit_actors(canvas=canvas)
        return Response(page)


class AuditVerifyView(JSONAPIView):
    @extend_schema(
        operation_id="canvas_audit_verify",
        tags=[HISTORY, AUDIT],
        summary="Check the canvas's hash chain (owners)",
        parameters=[CANVAS_ID],
        request=None,
        responses={200: ChainReportSerializer, **s.errors(400, 401, 403, 404)},
    )
    def post(self, request, canvas_id: int):
        """Recomputes every entry's hash from its content and the previous hash, as `manage.py verify_audit`
        does; `ok: false` names the first entry that does not match (or a gap in the revisions)."""
        json_object(request.data, allowed=())
        canvas, _ = _owner(request, canvas_id)
        return Response(audit_selectors.verify_canvas_chain(canvas=canvas))
