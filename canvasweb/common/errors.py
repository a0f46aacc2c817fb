"""Domain errors with the structured shape every channel reports: {code, message, field}."""

from __future__ import annotations


class CanvasError(Exception):
    code = "INVALID"
    http_status = 400

    def __init__(self, message: str, *, field: str | None = None):
        super().__init__(message)
        self.message = message
        self.field = field

    def as_dict(self) -> dict:
        return {"code": self.code, "message": self.message, "field": self.field}


class InvalidOperation(CanvasError):
    code = "INVALID"
    http_status = 400


class BadMessage(CanvasError):
    code = "BAD_MESSAGE"
    http_status = 400


class NotFound(CanvasError):
    code = "NOT_FOUND"
    http_status = 404


class Forbidden(CanvasError):
    code = "FORBIDDEN"
    http_status = 403
    # Set on a refusal whose security-log record is written after the rollback (agent/services.py).
    security_event: dict | None = None


class Conflict(CanvasError):
    code = "CONFLICT"
    http_status = 409


class RateLimited(CanvasError):
    code = "RATE_LIMITED"
    http_status = 429

    def __init__(self, message: str, *, field: str | None = None, retry_after_ms: int | None = None):
        super().__init__(message, field=field)
        self.retry_after_ms = retry_after_ms

    def as_dict(self) -> dict:
        data = super().as_dict()
        if self.retry_after_ms is not None:
            data["retry_after_ms"] = self.retry_after_ms
        return data


class EditConflict(Conflict):
    """A content edit made on a stale base: carries the node as it is now, so the client can offer a choice."""

    def __init__(self, message: str, *, field: str | None = None, current: dict | None = None):
        super().__init__(message, field=field)
        self.current = current

    def as_dict(self) -> dict:
        return {**super().as_dict(), "current": self.current}
