"""WebSocket authentication: the session cookie (browsers) or `Authorization: Token <key>` (scripts)."""

from __future__ import annotations

from typing import Any

from channels.auth import AuthMiddlewareStack
from channels.db import database_sync_to_async
from channels.middleware import BaseMiddleware
from django.contrib.auth.models import AnonymousUser, User


@database_sync_to_async
def _user_for_token(key: str) -> User | AnonymousUser:
    from rest_framework.authtoken.models import Token

    token = Token.objects.select_related("user").filter(key=key).first()
    user = token.user if token is not None else None
    if not isinstance(user, User) or not user.is_active:
        return AnonymousUser()
    return user


class TokenHeaderAuthMiddleware(BaseMiddleware):
    """A valid token header wins over the cookie; an invalid one leaves the socket anonymous."""

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        header = dict(scope.get("headers") or []).get(b"authorization", b"").decode("latin-1").strip()
        if header:
            scheme, _, key = header.partition(" ")
            scope = dict(scope)
            scope["user"] = (
                await _user_for_token(key.strip()) if scheme.lower() == "token" else AnonymousUser()
            )
        return await super().__call__(scope, receive, send)


def SessionOrTokenAuthMiddleware(inner: Any) -> Any:
    return AuthMiddlewareStack(TokenHeaderAuthMiddleware(inner))
