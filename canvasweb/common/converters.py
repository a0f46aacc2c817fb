"""URL converters shared by every app's routes (registered once, in config/urls.py)."""
from django.urls import register_converter


class DatabaseIdConverter:
    """A positive integer id that fits a 64-bit column (longer numbers 404 instead of overflowing)."""

    regex = "[0-9]{1,18}"

    def to_python(self, value: str) -> int:
        return int(value)

    def to_url(self, value) -> str:
        return str(int(value))


def register() -> None:
    register_converter(DatabaseIdConverter, "dbid")
