"""The error envelope {"error": {code, message, field}} and the documented error responses."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse
from rest_framework import serializers

from .fields import any_json


class ErrorDetailSerializer(serializers.Serializer):
    code = serializers.CharField(
        help_text="Stable machine-readable code, e.g. INVALID, NOT_FOUND, FORBIDDEN."
    )
    message = serializers.CharField(help_text="Human-readable explanation.")
    field = serializers.CharField(allow_null=True, help_text="The offending field (dotted path) or null.")
    current = any_json(
        required=False,
        allow_null=True,
        help_text="Only for CONFLICT on a stale node.update base_version: the node as it is now.",
    )


class ErrorSerializer(serializers.Serializer):
    error = ErrorDetailSerializer()


_ERROR_TEXT = {
    400: "INVALID: malformed JSON, unknown/missing field or a value out of range (`field` names it).",
    401: "UNAUTHENTICATED: no valid session or token.",
    403: "FORBIDDEN: your role may not do this; CSRF_FAILED: session request without a valid CSRF token.",
    404: "NOT_FOUND: no such canvas (or you are not a member), node, edge or member.",
    409: "CONFLICT: a client-chosen id already exists, or a content edit's base_version is stale "
    "(then `current` holds the node as it is now).",
    413: "TOO_LARGE: request body over the size limit.",
    415: "UNSUPPORTED_MEDIA_TYPE: send Content-Type: application/json.",
    429: "RATE_LIMITED: too many attempts from this address; retry after the Retry-After header's seconds.",
}


def errors(*statuses: int) -> dict[int, OpenApiResponse]:
    return {
        code: OpenApiResponse(response=ErrorSerializer, description=_ERROR_TEXT[code]) for code in statuses
    }
