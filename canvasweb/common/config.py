"""Typed access to the project's own settings dictionaries."""

from __future__ import annotations

from typing import Any

from django.conf import settings


def canvasweb_config() -> dict[str, Any]:
    """settings.CANVASWEB, read at call time (tests override it). The Django stubs see its mixed values
    as `object`; the keys and their types are documented in the README's settings table."""
    config: dict[str, Any] = getattr(settings, "CANVASWEB")  # noqa: B009 (typed read, see docstring)
    return config
