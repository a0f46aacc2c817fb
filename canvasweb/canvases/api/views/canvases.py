"""Canvases and their members: list, create, read, rename, delete; add, change and remove members."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.urls import reverse
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response

from canvasweb.canvases import selectors, services
from canvasweb.canvases.models import Canvas
from canvasweb.canvases.serialization import canvas_to_dict
from canvasweb.common.drf import JSONAPIView, json_object
from canvasweb.common.errors import InvalidOperation, NotFound

from .. import serializers as s
from .common import CANVAS_ID, CANVASES, MEMBERS, USER_ID, request_actor, request_user


def _canvas_out(canvas: Canvas, role: str, member_count: int) -> dict[str, Any]:
    return {**canvas_to_dict(canvas), "role": role, "member_count": member_count}


def _canvas_detail(user: User, canvas_id: int) -> dict[str, Any]:
    canvas, role = selectors.canvas_for_member(user=user, canvas_id=canvas_id)
    return _canvas_out(canvas, role, len(selectors.canvas_members(canvas=canvas)))


def _member(
    canvas_id: int, user: User, *, user_id: int | None = None, username: str | None = None
) -> dict[str, Any]:
    canvas, _ = selectors.canvas_for_member(user=user, canvas_id=canvas_id)
    for member in selectors.canvas_members(canvas=canvas):
        if member["user"]["id"] == user_id or (
            username is not None and member["user"]["username"] == username
        ):
            return member
    raise NotFound("no such member", field="user_id")


# --- canvases ---------------------------------------------------------------------------------------------------


class CanvasListView(JSONAPIView):
    @extend_schema(
        operation_id="canvas_list",
        tags=[CANVASES],
        summary="Canvases you are a member of (recently updated first)",
        responses={200: s.CanvasSerializer(many=True), **s.errors(401)},
    )
    def get(self, request: Request) -> Response:
        """Every canvas you are a member of, most recently updated first, with your role and the member count."""
        rows = selectors.canvas_list_for_user(user=request_user(request))
        return Response([_canvas_out(canvas, role, count) for canvas, role, count in rows])

    @extend_schema(
        operation_id="canvas_create",
        tags=[CANVASES],
        summary="Create a canvas (you become its owner)",
        request=s.CanvasCreateSerializer,
        responses={201: s.CanvasSerializer, **s.errors(400, 401, 403, 413, 415)},
    )
    def post(self, request: Request) -> Response:
        """Creates a canvas with you as its owner (revision 1)."""
        body = json_object(request.data, allowed={"name", "description"}, required={"name"})
        canvas = services.canvas_create(
            user=request_user(request), name=body["name"], description=body.get("description", "")
        )
        return Response(
            _canvas_detail(request_user(request), canvas.pk),
            status=status.HTTP_201_CREATED,
            headers={"Location": reverse("api:canvas-detail", args=[canvas.pk])},
        )


class CanvasDetailView(JSONAPIView):
    @extend_schema(
        parameters=[CANVAS_ID],
        operation_id="canvas_retrieve",
        tags=[CANVASES],
        summary="One canvas",
        responses={200: s.CanvasSerializer, **s.errors(401, 404)},
    )
    def get(self, request: Request, canvas_id: int) -> Response:
        """Non-members get 404 NOT_FOUND, exactly as for a canvas that does not exist."""
        return Response(_canvas_detail(request_user(request), canvas_id))

    @extend_schema(
        parameters=[CANVAS_ID],
        operation_id="canvas_update",
        tags=[CANVASES],
        summary="Rename, describe or set the agent policy (owners)",
        request=s.CanvasUpdateSerializer,
        responses={200: s.CanvasSerializer, **s.errors(400, 401, 403, 404, 413, 415)},
    )
    def patch(self, request: Request, canvas_id: int) -> Response:
        """Owners only. Any subset of name, description and agent_policy; an unchanged value is not a change (no new
        revision)."""
        body = json_object(request.data, allowed={"name", "description", "agent_policy"})
        services.canvas_update(
            actor=request_actor(request),
            canvas_id=canvas_id,
            name=body.get("name"),
            description=body.get("description"),
            agent_policy=body.get("agent_policy"),
        )
        return Response(_canvas_detail(request_user(request), canvas_id))

    @extend_schema(
        parameters=[CANVAS_ID],
        operation_id="canvas_destroy",
        tags=[CANVASES],
        summary="Delete a canvas (owners; the history is kept)",
        responses={204: None, **s.errors(401, 403, 404)},
    )
    def delete(self, request: Request, canvas_id: int) -> Response:
        """Owners only. The canvas disappears for everyone; its change log is kept."""
        services.canvas_delete(actor=request_actor(request), canvas_id=canvas_id)
        return Response(status=status.HTTP_204_NO_CONTENT)


# --- members ------------------------------------------------------------------------------------------------------


class MemberListView(JSONAPIView):
    @extend_schema(
        parameters=[CANVAS_ID],
        operation_id="member_list",
        tags=[MEMBERS],
        summary="Members of a canvas (any member may list them)",
        responses={200: s.MemberSerializer(many=True), **s.errors(401, 404)},
    )
    def get(self, request: Request, canvas_id: int) -> Response:
        """Any member may list the members."""
        canvas, _ = selectors.canvas_for_member(user=request_user(request), canvas_id=canvas_id)
        return Response(selectors.canvas_members(canvas=canvas))

    @extend_schema(
        parameters=[CANVAS_ID],
        operation_id="member_add",
        tags=[MEMBERS],
        summary="Add a member, or set the role of an existing one (owners)",
        request=s.MemberCreateSerializer,
        responses={
            201: OpenApiResponse(s.MemberSerializer, description="Added."),
            200: OpenApiResponse(
                s.MemberSerializer, description="Already a member: role set (or unchanged)."
            ),
            **s.errors(400, 401, 403, 404, 413, 415),
        },
    )
    def post(self, request: Request, canvas_id: int) -> Response:
        """Owners only. Identify the user by username or user_id. 201 when added, 200 when the user was already a
        member (their role is set to the given one)."""
        body = json_object(request.data, allowed={"username", "user_id", "role"}, required={"role"})
        if ("username" in body) == ("user_id" in body):
            raise InvalidOperation("give exactly one of username or user_id", field="username")
        user_id = body.get("user_id")
        if "user_id" in body and (isinstance(user_id, bool) or not isinstance(user_id, int)):
            raise InvalidOperation("user_id must be an integer", field="user_id")
        result = services.member_set(
            actor=request_actor(request),
            canvas_id=canvas_id,
            role=body["role"],
            username=body.get("username"),
            user_id=user_id,
        )
        created = any(c["entity"] == "member" and c["action"] == "created" for c in result.changes)
        member = _member(canvas_id, request_user(request), user_id=user_id, username=body.get("username"))
        return Response(member, status=status.HTTP_201_CREATED if created else status.HTTP_200_OK)


class MemberDetailView(JSONAPIView):
    @extend_schema(
        parameters=[CANVAS_ID, USER_ID],
        operation_id="member_update",
        tags=[MEMBERS],
        summary="Change a member's role (owners)",
        request=s.MemberUpdateSerializer,
        responses={200: s.MemberSerializer, **s.errors(400, 401, 403, 404, 413, 415)},
    )
    def patch(self, request: Request, canvas_id: int, user_id: int) -> Response:
        """Owners only. 404 if the user is not a member (PATCH never adds one). A canvas keeps at least one owner."""
        body = json_object(request.data, allowed={"role"}, required={"role"})
        _member(canvas_id, request_user(request), user_id=user_id)  # PATCH never adds a member
        services.member_set(
            actor=request_actor(request), canvas_id=canvas_id, user_id=user_id, role=body["role"]
        )
        return Response(_member(canvas_id, request_user(request), user_id=user_id))

    @extend_schema(
        parameters=[CANVAS_ID, USER_ID],
        operation_id="member_remove",
        tags=[MEMBERS],
        summary="Remove a member (owners; the last owner stays)",
        responses={204: None, **s.errors(400, 401, 403, 404)},
    )
    def delete(self, request: Request, canvas_id: int, user_id: int) -> Response:
        """Owners only. Removing the last owner is refused (400 INVALID)."""
        services.member_remove(actor=request_actor(request), canvas_id=canvas_id, user_id=user_id)
        return Response(status=status.HTTP_204_NO_CONTENT)
