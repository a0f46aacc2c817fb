"""Errors in the OpenAI shape: {"error": {"message", "type", "param", "code"}} with a matching HTTP status."""

from __future__ import annotations

import json

from django.http import HttpResponse

from canvasweb.common.errors import CanvasError

_TYPES = {
    400: "invalid_request_error",
    401: "invalid_request_error",
    403: "permission_error",
    404: "invalid_request_error",
    409: "invalid_request_error",
    413: "invalid_request_error",
    429: "rate_limit_error",
    502: "upstream_error",
    503: "server_error",
    504: "upstream_error",
}

# chat.llm.ModelError codes → (HTTP status, OpenAI code). The upstream failed, Canvasweb did not.
UPSTREAM_STATUS = {
    "MODEL_TIMEOUT": (504, "upstream_timeout"),
    "MODEL_UNREACHABLE": (502, "upstream_unreachable"),
    "MODEL_RATE_LIMITED": (429, "upstream_rate_limited"),
    "MODEL_HTTP_ERROR": (502, "upstream_error"),
    "MODEL_BAD_RESPONSE": (502, "upstream_bad_response"),
    "MODEL_EMPTY": (502, "upstream_empty_reply"),
}


class OpenAIError(Exception):
    def __init__(
        self, status: int, message: str, *, code: str, param: str | None = None, type_: str | None = None
    ):
        super().__init__(message)
        self.status = status
        self.message = message
        self.code = code
        self.param = param
        self.type = type_ or _TYPES.get(status, "server_error")

    def as_dict(self) -> dict:
        return {"error": {"message": self.message, "type": self.type, "param": self.param, "code": self.code}}

    def response(self) -> HttpResponse:
        response = HttpResponse(
            json.dumps(self.as_dict(), ensure_ascii=False),
            status=self.status,
            content_type="application/json",
        )
        if self.status == 401:
            response["WWW-Authenticate"] = 'Bearer realm="canvasweb"'
        return response

    @classmethod
    def from_canvas_error(cls, error: CanvasError, *, param: str | None = None) -> OpenAIError:
        if error.code == "NOT_FOUND" and error.field in ("conversation_id", "X-Canvasweb-Conversation"):
            return cls(404, error.message, code="conversation_not_found", param="X-Canvasweb-Conversation")
        code = {
            "NOT_FOUND": "model_not_found",
            "UNAUTHENTICATED": "invalid_api_key",
            "FORBIDDEN": "permission_denied",
            "RATE_LIMITED": "rate_limit_exceeded",
        }.get(error.code, "invalid_value")
        return cls(error.http_status, error.message, code=code, param=param or error.field)

    @classmethod
    def upstream(cls, code: str, message: str) -> OpenAIError:
        status, openai_code = UPSTREAM_STATUS.get(code, (502, "upstream_error"))
        return cls(status, f"The upstream model failed: {message}", code=openai_code)
