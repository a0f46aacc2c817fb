"""REST API views (reference: docs/api.md). Thin: parse, call a service or selector, shape the answer.

Writes go through `canvasweb.canvases.services` only (the one write path);
reads through `canvasweb.canvases.selectors`. Errors are `CanvasError`s,
rendered as {"error": {code, message, field}} by common.api_errors.
"""

from __future__ import annotations

import uuid
from typing import Any

from django.contrib.auth import authenticate, login, logout
from django.contrib.auth.models import User
from django.middleware.csrf import get_token
from django.urls import reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.exceptions import NotAuthenticated
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response

from canvasweb.canvases import permissions, selectors, services
from canvasweb.canvases.actors import Actor, user_actor
from canvasweb.canvases.models import Canvas
from canvasweb.canvases.serialization import canvas_to_dict, user_ref
from canvasweb.canvases.visibility import filter_changes
from canvasweb.common import auth_services
from canvasweb.common.drf import JSONAPIView, enforce_csrf, json_object
from canvasweb.common.errors import InvalidOperation, NotFound
from canvasweb.common.throttles import AuthRateThrottle

from . import serializers as s

AUTH = "auth"
CANVASES = "canvases"
MEMBERS = "members"
SYNC = "sync"


CANVAS_ID = OpenApiParameter("canvas_id", OpenApiTypes.INT, OpenApiParameter.PATH, description="Canvas id.")
USER_ID = OpenApiParameter(
    "user_id", OpenApiTypes.INT, OpenApiParameter.PATH, description="The member's user id."
)


def _user(request: Request) -> User:
    """The authenticated user (every view but login/token requires one)."""
    user = request.user
    if not isinstance(user, User):
        raise NotAuthenticated()
    return user


def _actor(request: Request) -> Actor:
    return user_actor(_user(request), channel="rest")


def _credentials(data: Any) -> tuple[str, str]:
    body = json_object(data, allowed={"username", "password"}, required={"username", "password"})
    for name in ("username", "password"):
        if not isinstance(body[name], str) or not body[name]:
            raise InvalidOperation(f"{name} must be a non-empty string", field=name)
    return body["username"], body["password"]


def _authenticate(request: Request, data: Any) -> User:
    username, password = _credentials(data)
    user = authenticate(request._request, username=username, password=password)
    if user is None or not user.is_active:
        raise InvalidOperation("invalid username or password")
    return user


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


# --- auth ---------------------------------------------------------------------------------------------------


class CsrfView(JSONAPIView):
    authentication_classes: list[Any] = []
    permission_classes = [AllowAny]

    @extend_schema(
        operation_id="auth_csrf",
        tags=[AUTH],
        auth=[],
        summary="Get a CSRF token (also set as the csrftoken cookie)",
        responses={200: s.CsrfOutputSerializer},
    )
    def get(self, request: Request) -> Response:
        """Sets the `csrftoken` cookie and returns a token valid for it (a masked form, so not the cookie's string).
        Browsers send it back in the `X-CSRFToken` header on every POST/PATCH/DELETE made with the session cookie."""
        # get_token marks the cookie for sending, like @ensure_csrf_cookie.
        return Response({"csrf_token": get_token(request._request)})


class LoginView(JSONAPIView):
    authentication_classes: list[Any] = []
    permission_classes = [AllowAny]
    throttle_classes = [AuthRateThrottle]  # password guessing: 429 RATE_LIMITED past the rate

    @extend_schema(
        operation_id="auth_login",
        tags=[AUTH],
        auth=[],
        summary="Log in with a session cookie (browsers; needs the CSRF token even though anonymous)",
        request=s.LoginInputSerializer,
        responses={200: s.LoginOutputSerializer, **s.errors(400, 403, 413, 415, 429)},
    )
    def post(self, request: Request) -> Response:
        """Checks username and password and starts a session (`sessionid` cookie). Requires the CSRF cookie and
        `X-CSRFToken` header even though the caller is anonymous. Django rotates the CSRF token on login;
        the new one is returned (and set as the cookie)."""
        # DRF's SessionAuthentication checks CSRF only for logged-in users: check it here too
        # so another site cannot log a browser into an account of its choosing.
        enforce_csrf(request)
        user = _authenticate(request, request.data)
        login(request._request, user)
        return Response({"user": user_ref(user), "csrf_token": get_token(request._request)})


class LogoutView(JSONAPIView):
    permission_classes = [AllowAny]

    @extend_schema(
        operation_id="auth_logout",
        tags=[AUTH],
        summary="End the session (no-op when not logged in; does not revoke API tokens)",
        request=None,
        responses={204: None, **s.errors(403)},
    )
    def post(self, request: Request) -> Response:
        """Ends the session. With a session cookie the CSRF header is required. API tokens stay valid (revoke them with
        DELETE /api/auth/token/)."""
        if request.user.is_authenticated:
            logout(request._request)
        return Response(status=status.HTTP_204_NO_CONTENT)


class MeView(JSONAPIView):
    @extend_schema(
        operation_id="auth_me",
        tags=[AUTH],
        summary="The logged-in user",
        responses={200: s.UserRefSerializer, **s.errors(401)},
    )
    def get(self, request: Request) -> Response:
        """The user behind the session cookie or token."""
        return Response(user_ref(_user(request)))


class TokenView(JSONAPIView):
    def _is_post(self) -> bool:
        return getattr(getattr(self, "request", None), "method", None) == "POST"

    def get_permissions(self) -> Any:
        return [AllowAny()] if self._is_post() else super().get_permissions()

    def get_authenticators(self) -> list[Any]:
        # POST takes username + password only: no session, so no CSRF token needed.
        return [] if self._is_post() else super().get_authenticators()

    def get_throttles(self) -> list[Any]:
        return [AuthRateThrottle()] if self._is_post() else []

    @extend_schema(
        operation_id="auth_token_create",
        tags=[AUTH],
        auth=[],
        summary="Get (or create) your API token for scripts",
        request=s.LoginInputSerializer,
        responses={200: s.TokenOutputSerializer, **s.errors(400, 413, 415, 429)},
    )
    def post(self, request: Request) -> Response:
        """Returns the user's API token, creating it on first use (one token per user; the same key every time until
        revoked). No session or CSRF token needed."""
        user = _authenticate(request, request.data)
        return Response({"token": auth_services.token_get_or_create(user=user)})

    @extend_schema(
        operation_id="auth_token_revoke",
        tags=[AUTH],
        summary="Revoke your API token",
        request=None,
        responses={204: None, **s.errors(401, 403)},
    )
    def delete(self, request: Request) -> Response:
        """Deletes your API token; the next POST /api/auth/token/ issues a new key."""
        auth_services.token_revoke(user=_user(request))
        return Response(status=status.HTTP_204_NO_CONTENT)


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
        rows = selectors.canvas_list_for_user(user=_user(request))
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
            user=_user(request), name=body["name"], description=body.get("description", "")
        )
        return Response(
            _canvas_detail(_user(request), canvas.pk),
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
        return Response(_canvas_detail(_user(request), canvas_id))

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
            actor=_actor(request),
            canvas_id=canvas_id,
            name=body.get("name"),
            description=body.get("description"),
            agent_policy=body.get("agent_policy"),
        )
        return Response(_canvas_detail(_user(request), canvas_id))

    @extend_schema(
        parameters=[CANVAS_ID],
        operation_id="canvas_destroy",
        tags=[CANVASES],
        summary="Delete a canvas (owners; the history is kept)",
        responses={204: None, **s.errors(401, 403, 404)},
    )
    def delete(self, request: Request, canvas_id: int) -> Response:
        """Owners only. The canvas disappears for everyone; its change log is kept."""
        services.canvas_delete(actor=_actor(request), canvas_id=canvas_id)
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
        canvas, _ = selectors.canvas_for_member(user=_user(request), canvas_id=canvas_id)
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
            actor=_actor(request),
            canvas_id=canvas_id,
            role=body["role"],
            username=body.get("username"),
            user_id=user_id,
        )
        created = any(c["entity"] == "member" and c["action"] == "created" for c in result.changes)
        member = _member(canvas_id, _user(request), user_id=user_id, username=body.get("username"))
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
        _member(canvas_id, _user(request), user_id=user_id)  # PATCH never adds a member
        services.member_set(actor=_actor(request), canvas_id=canvas_id, user_id=user_id, role=body["role"])
        return Response(_member(canvas_id, _user(request), user_id=user_id))

    @extend_schema(
        parameters=[CANVAS_ID, USER_ID],
        operation_id="member_remove",
        tags=[MEMBERS],
        summary="Remove a member (owners; the last owner stays)",
        responses={204: None, **s.errors(400, 401, 403, 404)},
    )
    def delete(self, request: Request, canvas_id: int, user_id: int) -> Response:
        """Owners only. Removing the last owner is refused (400 INVALID)."""
        services.member_remove(actor=_actor(request), canvas_id=canvas_id, user_id=user_id)
        return Response(status=status.HTTP_204_NO_CONTENT)


# --- content and sync ---------------------------------------------------------------------------------------------


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
        canvas, role = selectors.canvas_for_member(user=_user(request), canvas_id=canvas_id)
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
            actor=_actor(request), canvas_id=canvas_id, op=body["op"], client_op_id=body.get("client_op_id")
        )
        # The service returns unfiltered records; show the caller only what their role may see.
        role = selectors.user_role(user=_user(request), canvas_id=canvas_id)
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
        canvas, role = selectors.canvas_for_member(user=_user(request), canvas_id=canvas_id)
        if since > canvas.revision:
            # The client holds revisions this canvas never had (e.g. the database was reset).
            return Response(
                {"from": since, "to": since, "events": [], "needs_resync": True, "has_more": False}
            )
        return Response(
            selectors.changes_since(
                canvas=canvas, role=role, since=since, limit=limit, user_id=_user(request).pk
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
        canvas, role = selectors.canvas_for_member(user=_user(request), canvas_id=canvas_id)
        history = selectors.node_history(canvas=canvas, role=role, node_id=str(node_id))
        if not history:
            # A deleted node you could never see: same answer as an unknown id.
            raise NotFound("no such node", field="node_id")
        return Response(history)
