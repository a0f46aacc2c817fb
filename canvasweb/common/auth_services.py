"""Writes for API authentication: DRF tokens for scripts."""

from __future__ import annotations

from rest_framework.authtoken.models import Token


def token_get_or_create(*, user) -> str:
    """The user's API token, created on first use (one token per user)."""
    token, _ = Token.objects.get_or_create(user=user)
    return token.key


def token_revoke(*, user) -> bool:
    """Delete the user's API token; True if there was one."""
    deleted, _ = Token.objects.filter(user=user).delete()
    return bool(deleted)
