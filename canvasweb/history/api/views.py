"""The history API's views: node timeline, activity feed, revert, undo/redo, JSON Canvas export and import."""

from __future__ import annotations

from django.urls import reverse
from django.utils.http import content_disposition_header
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
)
from rest_framework import status
from rest_framework.response import Response

from canvasweb.canvases import permissions
from canvasweb.canvases import selectors as canvas_selectors
from canvasweb.canvases.actors import user_actor
from canvasweb.canvases.api import serializers as s
from canvasweb.common.drf import JSONAPIView, json_object, query_choice

from .. import jsoncanvas, selectors, services
from .params import ACTOR_KIND, CANVAS_ID, HISTORY, NODE_ID, _query_bool, _query_int
from .serializers import (
    ActivityPageSerializer,
    ImportErrorSerializer,
    ImportOutputSerializer,
    RevertInputSerializer,
    RevertOutputSerializer,
    TimelineSerializer,
    UndoOutputSerializer,
    UndoStatusSerializer,
    _error,
)

# --- helpers --------------------------------------------------------------------------------------------------


def _actor(request):
    return user_actor(request.user, channel="rest")


def _member(request, canvas_id: int):
    canvas, role = canvas_selectors.canvas_for_member(user=request.user, canvas_id=canvas_id)
    return canvas, permissions.role_level(role), role


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
