"""The body of POST /v1/chat/completions, checked strictly (no ORM here)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from canvasweb.chat.services import MAX_QUESTION_CHARS
from canvasweb.common.errors import InvalidOperation
from canvasweb.common.json_safety import find_unsafe, loads_strict

from ..access import canvas_id_from
from .errors import OpenAIError

MAX_BODY_BYTES = 1024 * 1024
MAX_MESSAGES = 200
MAX_MESSAGE_CHARS = 32_000  # one earlier message; the question itself is limited like the chat's
MAX_SYSTEM_CHARS = 8_000  # the client's own instructions, all system/developer messages together
ROLES = {"system", "developer", "user", "assistant", "tool"}
# Accepted and not forwarded: the upstream's settings are Canvasweb's (settings.LLM).
IGNORED = {
    "temperature",
    "top_p",
    "max_tokens",
    "max_completion_tokens",
    "presence_penalty",
    "frequency_penalty",
    "stop",
    "user",
    "seed",
    "logit_bias",
    "response_format",
    "metadata",
    "store",
    "parallel_tool_calls",
    "service_tier",
    "reasoning_effort",
    "stream_options",
    "n",
    "logprobs",
    "top_logprobs",
}
UNSUPPORTED = {"tools", "tool_choice", "functions", "function_call", "audio", "modalities", "prediction"}


@dataclass
class ChatRequest:
    model: str
    canvas_id: int
    question: str
    history: list[tuple[str, str]] = field(default_factory=list)  # (role, text), before the question
    system: str = ""
    stream: bool = False
    include_usage: bool = False


def parse_body(raw: bytes) -> dict:
    if len(raw) > MAX_BODY_BYTES:
        raise OpenAIError(
            413,
            f"the request body is {len(raw)} bytes; the limit is {MAX_BODY_BYTES}",
            code="request_too_large",
        )
    try:
        # NaN / Infinity are not JSON (the REST API and the socket refuse them too).
        body = loads_strict(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise OpenAIError(400, "the request body is not valid JSON", code="invalid_json") from None
    if not isinstance(body, dict):
        raise OpenAIError(400, "the request body must be a JSON object", code="invalid_json")
    # A lone surrogate (`"\ud800"`) or a NUL character anywhere, or an integer too large for a float:
    # valid JSON that no UTF-8 encoder or database takes (a lone surrogate in a message was a 500 HTML
    # page when the question was stored).
    unsafe = find_unsafe(body)
    if unsafe is not None:
        raise OpenAIError(400, unsafe[1], code="invalid_value", param=unsafe[0] or None)
    return body


def chat_request(body: dict, *, canvas_header: str | None) -> ChatRequest:
    for name in sorted(set(body) & UNSUPPORTED):
        if body[name] not in (None, [], {}):
            raise OpenAIError(
                400,
                f"{name} is not supported here: the answer comes from the canvas's context; "
                "an agent that writes to the canvas uses the MCP server (docs/integrations.md)",
                code="unsupported_parameter",
                param=name,
            )
    unknown = sorted(set(body) - {"model", "messages", "stream"} - IGNORED - UNSUPPORTED)
    if unknown:
        raise OpenAIError(400, f"unknown parameter {unknown[0]}", code="unknown_parameter", param=unknown[0])
    model = body.get("model")
    if not isinstance(model, str) or not model.strip() or len(model) > 200:
        raise OpenAIError(
            400, 'model must name a canvas, e.g. "canvas:3"', code="invalid_value", param="model"
        )
    n = body.get("n", 1)
    if n not in (1, None):
        raise OpenAIError(400, "only n=1 is supported", code="unsupported_value", param="n")
    stream = body.get("stream", False)
    if stream is None:
        stream = False
    if not isinstance(stream, bool):
        raise OpenAIError(400, "stream must be true or false", code="invalid_type", param="stream")
    options = body.get("stream_options") or {}
    include_usage = isinstance(options, dict) and options.get("include_usage") is True
    canvas_id = _canvas_id(model, canvas_header)
    system, turns = _messages(body.get("messages"))
    role, question = turns.pop()
    if role != "user" or not question.strip():
        raise OpenAIError(
            400,
            "the last message must be a user message with text (the question)",
            code="invalid_value",
            param="messages",
        )
    if len(question) > MAX_QUESTION_CHARS:
        raise OpenAIError(
            400,
            f"the last user message is {len(question)} characters; the limit is {MAX_QUESTION_CHARS}",
            code="string_above_max_length",
            param="messages",
        )
    return ChatRequest(
        model=model.strip(),
        canvas_id=canvas_id,
        question=question.strip(),
        history=turns,
        system=system,
        stream=stream,
        include_usage=include_usage,
    )


def _canvas_id(model: str, header: str | None) -> int:
    """The canvas from the X-Canvasweb-Canvas header, else from the model name canvas:<id>."""
    raw = header if header not in (None, "") else model
    if header in (None, "") and not model.strip().lower().startswith("canvas:"):
        raise OpenAIError(
            404,
            f'The model {model[:100]!r} does not exist here: use "canvas:<id>" as the model '
            "(GET /v1/models lists yours) or send the header X-Canvasweb-Canvas: <id>",
            code="model_not_found",
            param="model",
        )
    try:
        return canvas_id_from(raw, field="model")
    except InvalidOperation as exc:
        raise OpenAIError(400, exc.message, code="invalid_value", param="model") from None


def _messages(raw: Any) -> tuple[str, list[tuple[str, str]]]:
    if not isinstance(raw, list) or not raw:
        raise OpenAIError(400, "messages must be a non-empty list", code="invalid_value", param="messages")
    if len(raw) > MAX_MESSAGES:
        raise OpenAIError(
            400, f"at most {MAX_MESSAGES} messages", code="array_above_max_length", param="messages"
        )
    system_parts: list[str] = []
    turns: list[tuple[str, str]] = []
    for index, message in enumerate(raw):
        where = f"messages[{index}]"
        if not isinstance(message, dict):
            raise OpenAIError(400, f"{where} must be an object", code="invalid_type", param=where)
        role = message.get("role")
        if role not in ROLES:
            raise OpenAIError(
                400,
                f"{where}.role must be one of {', '.join(sorted(ROLES))}",
                code="invalid_value",
                param=f"{where}.role",
            )
        text = _text(message.get("content"), where)
        if len(text) > MAX_MESSAGE_CHARS:
            raise OpenAIError(
                400,
                f"{where} is {len(text)} characters; the limit is {MAX_MESSAGE_CHARS}",
                code="string_above_max_length",
                param=where,
            )
        if role in ("system", "developer"):
            system_parts.append(text)
        elif role in ("user", "assistant") and text.strip():
            turns.append((role, text))
        # tool results and empty assistant tool-call echoes carry nothing the canvas chat keeps
    if not turns:
        raise OpenAIError(400, "messages hold no user message", code="invalid_value", param="messages")
    system = "\n\n".join(p for p in system_parts if p.strip())
    if len(system) > MAX_SYSTEM_CHARS:
        raise OpenAIError(
            400,
            f"system messages are {len(system)} characters together; the limit is {MAX_SYSTEM_CHARS}",
            code="string_above_max_length",
            param="messages",
        )
    return system, turns


def _text(content: Any, where: str) -> str:
    """A message's text: a string, or the text parts of a content list (images are refused)."""
    if content is None:
        return ""
    if isinstance(content, str):
        text = content
    elif isinstance(content, list):
        parts = []
        for index, part in enumerate(content):
            if (
                not isinstance(part, dict)
                or part.get("type") != "text"
                or not isinstance(part.get("text"), str)
            ):
                raise OpenAIError(
                    400,
                    f"{where}.content[{index}]: only text parts are supported",
                    code="invalid_value",
                    param=f"{where}.content",
                )
            parts.append(part["text"])
        text = "\n".join(parts)
    else:
        raise OpenAIError(
            400,
            f"{where}.content must be a string or a list of text parts",
            code="invalid_type",
            param=f"{where}.content",
        )
    if "\x00" in text:
        raise OpenAIError(
            400,
            f"{where}.content must not contain NUL characters",
            code="invalid_value",
            param=f"{where}.content",
        )
    return text
