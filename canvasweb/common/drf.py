"""Shared DRF building blocks for Canvasweb's JSON APIs.

`JSONAPIView` is the base of every API view: JSON in and out only, a size cap
on request bodies, token auth before session auth (so anonymous requests get
401 with `WWW-Authenticate: Token` rather than DRF's 403), and CSRF failures
reported with their own error code so browser clients can refetch the token.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from drf_spectacular.authentication import SessionScheme
from rest_framework import exceptions
from rest_framework.authentication import SessionAuthentication, TokenAuthentication
from rest_framework.permissions import IsAuthenticated
from rest_framework.renderers import JSONRenderer
from rest_framework.views import APIView

from .errors import CanvasError, InvalidOperation

# The parser lives apart: DRF's settings import it while rest_framework.views loads.
from .parsers import LimitedJSONParser, PayloadTooLarge, max_body_bytes

__all__ = [
    "CsrfFailed",
    "CsrfSessionAuthentication",
    "CsrfSessionScheme",
    "JSONAPIView",
    "LimitedJSONParser",
    "PayloadTooLarge",
    "enforce_csrf",
    "json_object",
    "max_body_bytes",
    "query_choice",
]


class CsrfFailed(CanvasError):
    code = "CSRF_FAILED"
    http_status = 403


class _CsrfRejected(exceptions.PermissionDenied):
    """Raised inside authentication (an APIException so DRF resets request.user); mapped to CsrfFailed."""


class CsrfSessionAuthentication(SessionAuthentication):
    """Session auth whose CSRF refusal is recognisable (code CSRF_FAILED)."""

    def enforce_csrf(self, request):
        try:
            super().enforce_csrf(request)
        except exceptions.PermissionDenied as exc:
            raise _CsrfRejected(str(exc.detail)) from None


class CsrfSessionScheme(SessionScheme):
    """drf-spectacular: document the subclass like DRF's SessionAuthentication (cookieAuth)."""

    target_class = "canvasweb.common.drf.CsrfSessionAuthentication"


def enforce_csrf(request) -> None:
    """Check the CSRF token even for anonymous requests (DRF only checks authenticated sessions)."""
    CsrfSessionAuthentication().enforce_csrf(request)


class JSONAPIView(APIView):
    """Base for API views: authenticated by default, JSON only, structured errors."""

    authentication_classes = [TokenAuthentication, CsrfSessionAuthentication]
    permission_classes = [IsAuthenticated]
    parser_classes = [LimitedJSONParser]
    renderer_classes = [JSONRenderer]

    def initial(self, request, *args, **kwargs):
        # Refuse oversized bodies before anything reads them (the CSRF check may read a form body).
        limit = max_body_bytes()
        meta = request._request.META
        try:
            length = int(meta.get("CONTENT_LENGTH") or 0)
        except (TypeError, ValueError):
            length = 0
        if length > limit:
            raise PayloadTooLarge(f"request body is larger than {limit} bytes")
        if not length and "chunked" in meta.get("HTTP_TRANSFER_ENCODING", "").lower():
            # DRF treats a body without Content-Length as empty; under ASGI a chunked body is
            # readable, so read it (up to the limit) and hand it to the parser.
            raw = request._request.read(limit + 1)
            if len(raw) > limit:
                raise PayloadTooLarge(f"request body is larger than {limit} bytes")
            # What HttpRequest.body would have cached, plus the length DRF looks for.
            request._request._body = raw
            meta["CONTENT_LENGTH"] = str(len(raw))
        super().initial(request, *args, **kwargs)

    def handle_exception(self, exc):
        if isinstance(exc, _CsrfRejected):
            exc = CsrfFailed(f"{exc.detail} Fetch GET /api/auth/csrf/ and send the token in X-CSRFToken.")
        return super().handle_exception(exc)


def json_object(
    data: Any, *, allowed: Iterable[str], required: Iterable[str] = (), nullable: Iterable[str] = ()
) -> dict:
    """The request body as a dict with only `allowed` keys, `required` ones present, no nulls except `nullable`.

    Value checks (types, lengths, ranges) belong to the services, the one place that validates writes.
    """
    if not isinstance(data, dict):
        raise InvalidOperation("the request body must be a JSON object", field=None)
    allowed = set(allowed)
    unknown = sorted(str(key) for key in data.keys() - allowed)
    if unknown:
        raise InvalidOperation(f"unknown field {unknown[0]}", field=unknown[0])
    for name in required:
        if name not in data:
            raise InvalidOperation(f"{name} is required", field=name)
    nullable = set(nullable)
    for name, value in data.items():
        if value is None and name not in nullable:
            raise InvalidOperation(f"{name} must not be null", field=name)
    return data


def query_choice(request, name: str, choices: Iterable[str]) -> str | None:
    """An optional enum query parameter: None when absent; anything else (an empty value too) must be a choice."""
    if name not in request.query_params:
        return None
    value = request.query_params.get(name)
    choices = tuple(choices)
    if value not in choices:
        raise InvalidOperation(f"{name} must be one of {', '.join(choices)}", field=name)
    return value
