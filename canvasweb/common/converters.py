"""URL converters shared by every app's routes (registered once, in config/urls.py)."""

from django.urls import register_converter
from django.urls.converters import get_converters


class DatabaseIdConverter:
    """A positive integer id that fits a 64-bit column (longer numbers 404 instead of overflowing)."""

    regex = "[0-9]{1,18}"

    def to_python(self, value: str) -> int:
        return int(value)

    def to_url(self, value) -> str:
        return str(int(value))


def register() -> None:
    """Idempotent: every routes module may call it (Django warns on re-registration)."""
    if "dbid" not in get_converters():
        register_converter(DatabaseIdConverter, "dbid")
