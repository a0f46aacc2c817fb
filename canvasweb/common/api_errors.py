"""DRF exception handler: every API error has the shape {"error": {code, message, field}}.

An unexpected exception is logged and answered `500 INTERNAL` in the same shape: never Django's HTML
(debug) page with a traceback and settings, whatever DJANGO_DEBUG says. The OpenAI-compatible endpoint
under /v1/ gets the same care in its own shape ({"error": {message, type, param, code}},
docs/integrations.md), and a `Host` outside DJANGO_ALLOWED_HOSTS is a JSON 400 on both.
"""

from __future__ import annotations

import logging

from django.core.exceptions import DisallowedHost
from django.http import JsonResponse
from django.utils.deprecation import MiddlewareMixin
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler

from .errors import CanvasError
from .i18n import translate_message

logger = logging.getLogger("canvasweb.api")

INTERNAL_ERROR = {
    "code": "INTERNAL",
    "message": "the server failed to handle this request; nothing was changed",
    "field": None,
}

_DRF_CODES = {
    status.HTTP_400_BAD_REQUEST: "INVALID",
    status.HTTP_401_UNAUTHORIZED: "UNAUTHENTICATED",
    status.HTTP_403_FORBIDDEN: "FORBIDDEN",
    status.HTTP_404_NOT_FOUND: "NOT_FOUND",
    status.HTTP_405_METHOD_NOT_ALLOWED: "METHOD_NOT_ALLOWED",
    status.HTTP_409_CONFLICT: "CONFLICT",
    status.HTTP_413_REQUEST_ENTITY_TOO_LARGE: "TOO_LARGE",
    status.HTTP_415_UNSUPPORTED_MEDIA_TYPE: "UNSUPPORTED_MEDIA_TYPE",
    status.HTTP_429_TOO_MANY_REQUESTS: "RATE_LIMITED",
}


def error_response(error: CanvasError) -> Response:
    body = error.as_dict()
    body["message"] = translate_message(body.get("message"))
    return Response({"error": body}, status=error.http_status)


def api_exception_handler(exc, context):
    if isinstance(exc, CanvasError):
        return error_response(exc)
    response = exception_handler(exc, context)
    if response is None:
        view = context.get("view") if context else None
        logger.error("unhandled error in %s", type(view).__name__ if view else "an API view", exc_info=exc)
        return Response({"error": _internal_error()}, status=status.HTTP_500_INTERNAL_SERVER_ERROR)
    if isinstance(exc, (exceptions.NotAuthenticated, exceptions.AuthenticationFailed)):
        code = "UNAUTHENTICATED"
    else:
        code = _DRF_CODES.get(response.status_code, "ERROR")
    field, message = None, None
    detail = response.data
    if isinstance(detail, dict) and "detail" in detail:
        message = str(detail["detail"])
    elif isinstance(detail, dict) and detail:
        field = next(iter(detail))
        value = detail[field]
        message = f"{field}: {value[0] if isinstance(value, list) and value else value}"
        field = None if field == "non_field_errors" else field
    elif isinstance(detail, list) and detail:
        message = str(detail[0])
    response.data = {
        "error": {"code": code, "message": translate_message(message or "request failed"), "field": field}
    }
    return response


def _internal_error() -> dict:
    return {**INTERNAL_ERROR, "message": translate_message(INTERNAL_ERROR["message"])}


def internal_error_response() -> JsonResponse:
    return JsonResponse({"error": _internal_error()}, status=500)


def _openai_error(status_code: int, message: str, *, type_: str, code: str, param: str | None = None):
    body = {"error": {"message": message, "type": type_, "param": param, "code": code}}
    return JsonResponse(body, status=status_code, json_dumps_params={"ensure_ascii": False})


def openai_internal_error_response() -> JsonResponse:
    return _openai_error(500, str(INTERNAL_ERROR["message"]), type_="server_error", code="internal_error")


class APIHostMiddleware(MiddlewareMixin):
    """First in the chain: a `Host` outside DJANGO_ALLOWED_HOSTS on /api/ or /v1/ is answered in that
    surface's JSON error shape. Django would raise DisallowedHost in the first middleware that reads the
    host and answer with its HTML 400 page (the debug page with DJANGO_DEBUG on, the default)."""

    def process_request(self, request):
        path = request.path
        if not (path.startswith("/api/") or path.startswith("/v1/")):
            return None
        try:
            request.get_host()
        except DisallowedHost as exc:
            logging.getLogger("django.security.DisallowedHost").warning("%s", exc)
            host = request.META.get("HTTP_X_FORWARDED_HOST") or request.META.get("HTTP_HOST", "")
            message = f"host {host[:100]!r} is not in DJANGO_ALLOWED_HOSTS"
            if path.startswith("/v1/"):
                return _openai_error(
                    400, message, type_="invalid_request_error", code="invalid_value", param="host"
                )
            error = {"code": "INVALID", "message": translate_message(message), "field": "host"}
            return JsonResponse({"error": error}, status=400, json_dumps_params={"ensure_ascii": False})
        return None


class APIJSONErrorsMiddleware(MiddlewareMixin):
    """Non-DRF code under /api/ (URL resolvers, plain Django views, middleware below this one):
    an unexpected exception answers 500 INTERNAL as JSON, not the HTML or debug page; under /v1/ the
    same in the OpenAI error shape (code `internal_error`). (MiddlewareMixin: usable in an async chain too.)"""

    def process_exception(self, request, exception):
        if request.path.startswith("/api/"):
            logger.error("unhandled error on %s %s", request.method, request.path[:200], exc_info=exception)
            return internal_error_response()
        if request.path.startswith("/v1/"):
            logger.error("unhandled error on %s %s", request.method, request.path[:200], exc_info=exception)
            return openai_internal_error_response()
        return None


def handler500(request, *args, **kwargs):
    """urls.handler500: JSON for /api/ and /v1/ paths (DEBUG off), Django's plain page elsewhere."""
    if request.path.startswith("/api/"):
        return internal_error_response()
    if request.path.startswith("/v1/"):
        return openai_internal_error_response()
    from django.views.defaults import server_error

    return server_error(request)
