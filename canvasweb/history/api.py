"""REST endpoints for history: node timelines, the activity feed, revert, undo/redo, JSON Canvas.

Thin views, like canvasweb/canvases/api/views/: parse, call a selector or a
service, shape the answer. Writes go through canvasweb.history.services, which
hands every change to the one write path. Errors are CanvasErrors rendered as
{"error": {code, message, field}}; a rejected import adds `problems`.
Reference: docs/api.md, section "History, undo and JSON Canvas".
"""

from __future__ import annotations

from typing import overload

from django.urls import reverse
from django.utils.http import content_disposition_header
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
)
from rest_framework import serializers, status
from rest_framework.response import Response

from canvasweb.canvases import permissions
from canvasweb.canvases import selectors as canvas_selectors
from canvasweb.canvases.actors import user_actor
from canvasweb.canvases.api import serializers as s
from canvasweb.common.drf import JSONAPIView, json_object, query_choice
from canvasweb.common.errors import InvalidOperation

from . import jsoncanvas, selectors, services

HISTORY = "history"

CANVAS_ID = OpenApiParameter("canvas_id", OpenApiTypes.INT, OpenApiParameter.PATH, description="Canvas id.")
NODE_ID = OpenApiParameter("node_id", OpenApiTypes.UUID, OpenApiParameter.PATH, description="Node id.")
ACTOR_KIND = OpenApiParameter(
    "actor_kind",
    OpenApiTypes.STR,
    OpenApiParameter.QUERY,
    required=False,
    enum=list(selectors.ACTOR_KINDS),
    description="Only changes by this kind of actor.",
)


# --- response shapes (for the OpenAPI schema) -------------------------------------------------------------------


class HistoryDiffRowSerializer(serializers.Serializer):
    field = serializers.CharField()
    before = s.any_json(allow_null=True)
    after = s.any_json(allow_null=True)


class UndoRefSerializer(serializers.Serializer):
    kind = s.enum(["undo", "redo"], component="UndoKind")
    revision = serializers.IntegerField(help_text="The revision this undo/redo inverted.")


class TimelineEntrySerializer(serializers.Serializer):
    revision = serializers.IntegerField()
    seq = serializers.IntegerField(help_text="Order within the revision.")
    at = serializers.DateTimeField()
    actor = s.ActorSerializer()
    op_type = serializers.CharField(help_text="The operation asked for, e.g. node.update, node.supersede.")
    reason = serializers.CharField(
        allow_null=True, help_text="revert, undo, redo, import; null for plain edits."
    )
    entity = s.enum(["node", "edge", "canvas", "member"], component="HistoryEntity")
    action = s.enum(
        ["created", "updated", "deleted", "removed"],
        component="HistoryAction",
        help_text="removed: the entity became invisible to you with this change.",
    )
    target_id = serializers.CharField()
    node_id = serializers.CharField(allow_null=True, help_text="The node to focus (an edge's source).")
    fields = serializers.ListField(child=serializers.CharField())  # type: ignore[assignment]  # DRF's metaclass moves declared fields out of the class; the stubs can't model that
    diff = HistoryDiffRowSerializer(
        many=True, help_text="Field by field; for created/deleted the non-empty fields."
    )
    before = s.any_json(
        allow_null=True, help_text="The entity before (null if created or not visible to you)."
    )
    after = s.any_json(allow_null=True, help_text="The entity after (null if deleted or not visible to you).")
    summary = serializers.CharField(allow_blank=True, help_text="First line of the content, or the relation.")
    undo_of = UndoRefSerializer(allow_null=True)
    source_text = serializers.CharField(
        required=False,
        allow_blank=True,
        help_text="Edges: first line of the source node's text ('' if not visible).",
    )
    target_text = serializers.CharField(
        required=False,
        allow_blank=True,
        help_text="Edges: first line of the target node's text ('' if not visible).",
    )


class NodeTimelineEntrySerializer(TimelineEntrySerializer):
    revertible = serializers.BooleanField(help_text="True if POST …/revert/ with this revision restores it.")


class SupersededChainItemSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    position = s.enum(["before", "current", "after"], component="ChainPosition")
    deleted = serializers.BooleanField()
    content = serializers.CharField(allow_blank=True)
    kind = serializers.CharField(allow_null=True)
    superseded_by = serializers.UUIDField(allow_null=True)


class TimelineSerializer(serializers.Serializer):
    node = s.NodeSerializer(allow_null=True, help_text="The node now, or its last version if deleted.")
    deleted = serializers.BooleanField()
    chain = SupersededChainItemSerializer(many=True, help_text="The superseded chain, oldest version first.")
    entries = NodeTimelineEntrySerializer(many=True, help_text="Oldest first.")


class ActivityPageSerializer(serializers.Serializer):
    revision = serializers.IntegerField(help_text="The canvas's current revision.")
    items = TimelineEntrySerializer(many=True, help_text="Newest first.")
    next_before = serializers.IntegerField(allow_null=True, help_text="Pass as ?before= for older items.")


class RevertInputSerializer(serializers.Serializer):
    revision = serializers.IntegerField(
        min_value=1, help_text="Restore the node as it was after this revision."
    )


class RevertOutputSerializer(serializers.Serializer):
    reverted_to = serializers.IntegerField()
    node_id = serializers.UUIDField()
    recreated = serializers.BooleanField(help_text="The node had been deleted and was created again.")
    fields = serializers.ListField(  # type: ignore[assignment]  # DRF's metaclass moves declared fields out of the class; the stubs can't model that
        child=serializers.CharField(), help_text="Fields that changed (empty: no-op)."
    )
    revision = serializers.IntegerField(help_text="The new revision (unchanged if nothing differed).")
    changes = s.ChangeSerializer(many=True)


class UndoAppliedSerializer(serializers.Serializer):
    entity = s.enum(["node", "edge"], component="UndoEntity")
    id = serializers.CharField()
    action = s.enum(["created", "updated", "deleted"], component="UndoAction")
    fields = serializers.ListField(child=serializers.CharField())  # type: ignore[assignment]  # DRF's metaclass moves declared fields out of the class; the stubs can't model that


class UndoSkippedBySerializer(serializers.Serializer):
    kind = serializers.CharField()
    username = serializers.CharField()
    label = serializers.CharField(help_text="e.g. bob, or the agent for bob.")  # type: ignore[assignment]  # DRF's metaclass moves declared fields out of the class; the stubs can't model that


class UndoSkippedSerializer(serializers.Serializer):
    entity = s.enum(["node", "edge"], component="UndoEntity")
    id = serializers.CharField()
    field = serializers.CharField(
        allow_null=True, help_text="The field left alone; null for the whole entity."
    )
    reason = serializers.CharField()
    by = UndoSkippedBySerializer(allow_null=True)
    revision = serializers.IntegerField(allow_null=True, help_text="The revision of the other change.")
    summary = serializers.CharField(allow_blank=True)


class UndoOutputSerializer(serializers.Serializer):
    kind = s.enum(["undo", "redo"], component="UndoKind")
    inverted_revision = serializers.IntegerField()
    revision = serializers.IntegerField(
        allow_null=True, help_text="The new revision; null if all was skipped."
    )
    applied = UndoAppliedSerializer(many=True)
    skipped = UndoSkippedSerializer(many=True)
    changes = s.ChangeSerializer(many=True)
    can_undo = serializers.BooleanField()
    can_redo = serializers.BooleanField()


class UndoStatusSerializer(serializers.Serializer):
    can_undo = serializers.BooleanField()
    can_redo = serializers.BooleanField()
    undo_revision = serializers.IntegerField(allow_null=True, help_text="What an undo would invert.")
    redo_revision = serializers.IntegerField(allow_null=True, help_text="What a redo would invert.")


class ImportUnknownKeysSerializer(serializers.Serializer):
    where = serializers.CharField()
    keys = serializers.ListField(child=serializers.CharField())


class ImportOutputSerializer(serializers.Serializer):
    canvas = s.CanvasSerializer()
    revision = serializers.IntegerField()
    nodes = serializers.IntegerField()
    edges = serializers.IntegerField()
    id_map = serializers.DictField(child=serializers.UUIDField(), help_text="File id → new Canvasweb id.")
    unknown_keys = ImportUnknownKeysSerializer(
        many=True, help_text="Keys Canvasweb does not know (not kept)."
    )
    notes = serializers.ListField(child=serializers.CharField(), help_text="How foreign things were mapped.")


class ImportErrorDetailSerializer(s.ErrorDetailSerializer):
    problems = serializers.ListField(
        child=serializers.CharField(),
        required=False,
        help_text="Every problem found in the file (code INVALID_CANVAS_FILE).",
    )


class ImportErrorSerializer(serializers.Serializer):
    error = ImportErrorDetailSerializer()


def _error(status_code: int, text: str) -> dict:
    return {status_code: OpenApiResponse(response=s.ErrorSerializer, description=text)}


# --- helpers --------------------------------------------------------------------------------------------------


def _actor(request):
    return user_actor(request.user, channel="rest")


def _member(request, canvas_id: int):
    canvas, role = canvas_selectors.canvas_for_member(user=request.user, canvas_id=canvas_id)
    return canvas, permissions.role_level(role), role


@overload
def _query_int(request, name: str, *, default: int, minimum: int = 0) -> int: ...
@overload
def _query_int(request, name: str, *, default: None, minimum: int = 0) -> int | None: ...
def _query_int(request, name: str, *, default: int | None, minimum: int = 0) -> int | None:
    raw = request.query_params.get(name)
    if raw is None or raw == "":
        return default
    if not raw.isascii() or not raw.isdigit():
        raise InvalidOperation(f"{name} must be an integer of at least {minimum}", field=name)
    if len(raw.lstrip("0")) > 18:
        raise InvalidOperation(f"{name} is too large; the largest accepted value is {10**18 - 1}", field=name)
    if int(raw) < minimum:
        raise InvalidOperation(f"{name} must be an integer of at least {minimum}", field=name)
    return int(raw)


def _query_bool(request, name: str, *, default: bool) -> bool:
    raw = request.query_params.get(name)
    if raw is None or raw == "":
        return default
    if raw.lower() in ("1", "true", "yes"):
        return True
    if raw.lower() in ("0", "false", "no"):
        return False
    raise InvalidOperation(f"{name} must be true or false", field=name)


# --- views ----------------------------------------------------------------------------------------------------


class NodeTimelineView(JSONAPIView):
    @extend_schema(
        operation_id="node_timeline",
        tags=[HISTORY],
        summary="A node's timeline: every change, field diffs, actors and its superseded chain",
        parameters=[
            CANVAS_ID,
            NODE_ID,
            ACTOR_KIND,
            OpenApiParameter(
                "chain",
                OpenApiTypes.BOOL,
                OpenApiParameter.QUERY,
                required=False,
                description="Include the changes of every version in the superseded chain (default true).",
            ),
            OpenApiParameter(
                "edges",
                OpenApiTypes.BOOL,
                OpenApiParameter.QUERY,
                required=False,
                description="Include changes to edges touching the node(s) (default true).",
            ),
        ],
        responses={200: TimelineSerializer, **s.errors(400, 401, 404)},
    )
    def get(self, request, canvas_id: int, node_id):
        """Every logged change to the node (also after it was deleted), oldest first, with who made it (a person,
        or the agent for a person, with the conversation id), field-by-field diffs, and the versions before and
        after it in its superseded chain. Versions you may not see are null; entries you may not see at all are
        left out."""
        canvas, level, _ = _member(request, canvas_id)
        return Response(
            selectors.node_timeline(
                canvas=canvas,
                level=level,
                node_id=str(node_id),
                actor_kind=query_choice(request, "actor_kind", selectors.ACTOR_KINDS),
                include_chain=_query_bool(request, "chain", default=True),
                include_edges=_query_bool(request, "edges", default=True),
            )
        )


class ActivityView(JSONAPIView):
    @extend_schema(
        operation_id="canvas_activity",
        tags=[HISTORY],
        summary="Recent changes on the canvas, newest first (what your role may see)",
        parameters=[
            CANVAS_ID,
            ACTOR_KIND,
            OpenApiParameter(
                "limit",
                {"type": "integer", "minimum": 1, "maximum": 10**18 - 1},
                OpenApiParameter.QUERY,
                required=False,
                description=f"About this many entries (1-{selectors.MAX_ACTIVITY}, default "
                f"{selectors.DEFAULT_ACTIVITY}); a revision is never split.",
            ),
            OpenApiParameter(
                "before",
                {"type": "integer", "minimum": 1, "maximum": 10**18 - 1},
                OpenApiParameter.QUERY,
                required=False,
                description="Only revisions older than this (paging: pass next_before).",
            ),
        ],
        responses={200: ActivityPageSerializer, **s.errors(400, 401, 404)},
    )
    def get(self, request, canvas_id: int):
        """The activity feed: one item per change log entry, newest first, each with its actor and the node to focus
        (`node_id`)."""
        canvas, level, _ = _member(request, canvas_id)
        limit = _query_int(request, "limit", default=selectors.DEFAULT_ACTIVITY, minimum=1)
        return Response(
            selectors.canvas_activity(
                canvas=canvas,
                level=level,
                limit=min(limit, selectors.MAX_ACTIVITY),
                before=_query_int(request, "before", default=None, minimum=1),
                actor_kind=query_choice(request, "actor_kind", selectors.ACTOR_KINDS),
            )
        )


class NodeRevertView(JSONAPIView):
    @extend_schema(
        operation_id="node_revert",
        tags=[HISTORY],
        summary="Revert a node to a past version (a new, logged change; history is never edited)",
        parameters=[CANVAS_ID, NODE_ID],
        request=RevertInputSerializer,
        responses={200: RevertOutputSerializer, **s.errors(400, 401, 403, 404, 413, 415)},
        examples=[OpenApiExample("Revert to revision 12", request_only=True, value={"revision": 12})],
    )
    def post(self, request, canvas_id: int, node_id):
        """Restores content, kind, position, weight, tags, pinned, sensitivity and archived as they were right after
        `revision`, through the write path with reason `revert` (one new revision, broadcast to everyone). A
        deleted node is created again with its old id. Editors and owners only."""
        body = json_object(request.data, allowed={"revision"}, required={"revision"})
        return Response(
            services.node_revert(
                actor=_actor(request), canvas_id=canvas_id, node_id=node_id, revision=body["revision"]
            )
        )


class UndoView(JSONAPIView):
    @extend_schema(
        operation_id="undo_status",
        tags=[HISTORY],
        summary="Whether you can undo or redo on this canvas",
        parameters=[CANVAS_ID],
        responses={200: UndoStatusSerializer, **s.errors(401, 404)},
    )
    def get(self, request, canvas_id: int):
        """Your undo and redo stacks on this canvas: what an undo or redo would invert."""
        return Response(services.undo_status(user=request.user, canvas_id=canvas_id))

    @extend_schema(
        operation_id="undo",
        tags=[HISTORY],
        summary="Undo your most recent own edit on this canvas",
        parameters=[CANVAS_ID],
        request=None,
        responses={
            200: UndoOutputSerializer,
            **s.errors(400, 401, 403, 404),
            **_error(409, "NOTHING_TO_UNDO: you have no recent edits left to undo on this canvas."),
        },
    )
    def post(self, request, canvas_id: int):
        """Inverts your most recent own edit (including reverts and redos; not the agent's writes) as one new
        revision with reason `undo`. Fields someone else changed since are left alone and listed in `skipped`;
        if everything was skipped, nothing is written (`revision` null) and the edit leaves the stack."""
        json_object(request.data, allowed=())  # no body (or `{}`): `{"revision": 5}` must not pass silently
        return Response(services.undo(actor=_actor(request), canvas_id=canvas_id))


class RedoView(JSONAPIView):
    @extend_schema(
        operation_id="redo",
        tags=[HISTORY],
        summary="Redo your most recent undo on this canvas",
        parameters=[CANVAS_ID],
        request=None,
        responses={
            200: UndoOutputSerializer,
            **s.errors(400, 401, 403, 404),
            **_error(409, "NOTHING_TO_REDO: nothing undone to redo (a new edit clears the redo stack)."),
        },
    )
    def post(self, request, canvas_id: int):
        """Inverts your most recent undo, with reason `redo`; the same skipping rules as undo."""
        json_object(request.data, allowed=())
        return Response(services.redo(actor=_actor(request), canvas_id=canvas_id))


class ExportView(JSONAPIView):
    @extend_schema(
        operation_id="canvas_export",
        tags=[HISTORY],
        summary="Export the canvas as a JSON Canvas 1.0 file",
        parameters=[
            CANVAS_ID,
            OpenApiParameter(
                "include_secret",
                OpenApiTypes.BOOL,
                OpenApiParameter.QUERY,
                required=False,
                description="Owners: also export secret nodes (default false: they and their edges are left out).",
            ),
        ],
        responses={
            200: OpenApiResponse(OpenApiTypes.OBJECT, description="A JSON Canvas document (.canvas)."),
            **s.errors(400, 401, 404),
        },
    )
    def get(self, request, canvas_id: int):
        """Nodes become `text` nodes and edges keep their labels; Canvasweb's fields (kind, weight, tags, pinned,
        sensitivity, archived, superseded_by, relation) sit under the `canvasweb` key. Only what you may see is
        exported (viewers: public; editors: +internal; owners: +secret, only with `include_secret=true`)."""
        canvas, _, role = _member(request, canvas_id)
        include_secret = _query_bool(request, "include_secret", default=False)
        document = jsoncanvas.export_canvas(canvas=canvas, role=role, include_secret=include_secret)
        response = Response(document)
        response["Content-Disposition"] = content_disposition_header(True, jsoncanvas.filename_for(canvas))
        return response


class ImportView(JSONAPIView):
    @extend_schema(
        operation_id="canvas_import",
        tags=[HISTORY],
        summary="Import a JSON Canvas file as a new canvas (all or nothing)",
        parameters=[
            OpenApiParameter(
                "name",
                OpenApiTypes.STR,
                OpenApiParameter.QUERY,
                required=False,
                description="Name of the new canvas (default: the name in the file's "
                'canvasweb key, else "Imported canvas").',
            )
        ],
        request=OpenApiTypes.OBJECT,
        responses={
            201: ImportOutputSerializer,
            400: OpenApiResponse(
                ImportErrorSerializer,
                description="INVALID_CANVAS_FILE: the file was rejected "
                "whole (`problems` lists every problem); INVALID: malformed JSON or bad name.",
            ),
            **s.errors(401, 403, 413, 415),
        },
    )
    def post(self, request):
        """The body is the `.canvas` file itself. You become the owner of the new canvas; every node and edge is
        created in one revision with reason `import`. Obsidian groups become notes tagged `group` (nodes inside
        are tagged `group:<label>`), file and link nodes become notes holding the path or URL. New ids are
        given out (`id_map`); unknown keys are reported, not kept."""
        result = services.canvas_import(
            user=request.user, document=request.data, name=request.query_params.get("name")
        )
        canvas, role = canvas_selectors.canvas_for_member(user=request.user, canvas_id=result["canvas"]["id"])
        result["canvas"] = {
            **result["canvas"],
            "role": role,
            "member_count": len(canvas_selectors.canvas_members(canvas=canvas)),
        }
        return Response(
            result,
            status=status.HTTP_201_CREATED,
            headers={"Location": reverse("api:canvas-detail", args=[result["canvas"]["id"]])},
        )
