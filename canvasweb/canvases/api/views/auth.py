"""Auth endpoints: CSRF cookie, session login/logout, the signed-in user, API tokens."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import authenticate, login, logout
from django.contrib.auth.models import User
from django.middleware.csrf import get_token
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response

from canvasweb.canvases.serialization import user_ref
from canvasweb.common import auth_services
from canvasweb.common.drf import JSONAPIView, enforce_csrf, json_object
from canvasweb.common.errors import InvalidOperation
from canvasweb.common.throttles import AuthRateThrottle

from .. import serializers as s
from .common import AUTH, request_user


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
        responses={204: None, **s.errors(400, 403)},
    )
    def post(self, request: Request) -> Response:
        """Ends the session. With a session cookie the CSRF header is required. API tokens stay valid (revoke them with
        DELETE /api/auth/token/)."""
        json_object(request.data, allowed=())
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
        return Response(user_ref(request_user(request)))


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
        auth_services.token_revoke(user=request_user(request))
        return Response(status=status.HTTP_204_NO_CONTENT)
