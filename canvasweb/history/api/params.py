"""The history API's path and query parameters: their OpenAPI declarations and their parsing.

Shared with canvasweb/history/audit_api.py.
"""

from __future__ import annotations

from typing import overload

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter

from canvasweb.common.errors import InvalidOperation

from .. import selectors

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
