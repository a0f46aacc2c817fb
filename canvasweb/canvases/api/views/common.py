"""What the canvas API views share: the OpenAPI tags and path parameters, the signed-in user and
the actor a request acts as."""

from __future__ import annotations

from django.contrib.auth.models import User
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter
from rest_framework.exceptions import NotAuthenticated
from rest_framework.request import Request

from canvasweb.canvases.actors import Actor, user_actor

AUTH = "auth"


CANVASES = "canvases"


MEMBERS = "members"


SYNC = "sync"


CANVAS_ID = OpenApiParameter("canvas_id", OpenApiTypes.INT, OpenApiParameter.PATH, description="Canvas id.")


USER_ID = OpenApiParameter(
    "user_id", OpenApiTypes.INT, OpenApiParameter.PATH, description="The member's user id."
)


def request_user(request: Request) -> User:
    """The authenticated user (every view but login/token requires one)."""
    user = request.user
    if not isinstance(user, User):
        raise NotAuthenticated()
    return user


def request_actor(request: Request) -> Actor:
    return user_actor(request_user(request), channel="rest")
