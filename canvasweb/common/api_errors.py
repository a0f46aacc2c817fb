"""DRF exception handler: every API error has the shape {"error": {code, message, field}}."""
from __future__ import annotations

from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler

from .errors import CanvasError

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
    return Response({"error": error.as_dict()}, status=error.http_status)


def api_exception_handler(exc, context):
    if isinstance(exc, CanvasError):
        return error_response(exc)
    response = exception_handler(exc, context)
    if response is None:
        return None
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
    response.data = {"error": {"code": code, "message": message or "request failed", "field": field}}
    return response
