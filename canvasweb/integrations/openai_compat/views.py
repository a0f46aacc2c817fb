"""POST /v1/chat/completions and GET /v1/models: an OpenAI-compatible face on a canvas.

Thin async views: authenticate, parse, open the chat turn (services.py), stream
the upstream model's reply through `chat.llm.stream_chat` (the chat's own
client: retries, timeouts, errors as ModelError), answer in the OpenAI format
(SSE chunks or one JSON object), close the turn on record. Every failure is an
OpenAI-shaped error with a proper status; an upstream that is down or answers
garbage is a 502/504 before any byte is streamed, or an `error` event after.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
import uuid

from channels.db import database_sync_to_async
from django.core.exceptions import RequestDataTooBig
from django.http import HttpResponse, StreamingHttpResponse
from django.views.decorators.csrf import csrf_exempt

from canvasweb.chat.llm import ModelConfig, ModelError, ModelNotConfigured, stream_chat
from canvasweb.chat.turns import fold_summary
from canvasweb.context.tokens import count_tokens
from canvasweb.context.types import CompiledContext

from . import services
from .errors import OpenAIError
from .requests import MAX_BODY_BYTES, chat_request, parse_body

logger = logging.getLogger(__name__)
_BACKGROUND: set[asyncio.Task] = set()


def _json(payload: dict, *, status: int = 200, headers: dict | None = None) -> HttpResponse:
    response = HttpResponse(
        json.dumps(payload, ensure_ascii=False), status=status, content_type="application/json"
    )
    for name, value in (headers or {}).items():
        response[name] = value
    return response


@csrf_exempt  # token-authenticated only; no cookie is ever read
async def models(request, model: str | None = None):
    if request.method != "GET":
        return OpenAIError(405, "use GET", code="method_not_allowed").response()
    try:
        user = await database_sync_to_async(services.authenticate)(
            authorization=request.headers.get("Authorization")
        )
        listed = await database_sync_to_async(services.models_for)(user=user)
    except OpenAIError as exc:
        return exc.response()
    if model is None:
        return _json({"object": "list", "data": listed})
    entry = next((m for m in listed if m["id"] == model), None)
    if entry is None:
        return OpenAIError(
            404,
            f"The model {model[:100]!r} does not exist or you do not have access to it",
            code="model_not_found",
            param="model",
        ).response()
    return _json(entry)


@csrf_exempt
async def chat_completions(request):
    if request.method != "POST":
        return OpenAIError(405, "use POST", code="method_not_allowed").response()
    try:
        user = await database_sync_to_async(services.authenticate)(
            authorization=request.headers.get("Authorization")
        )
        try:
            raw = request.body
        except RequestDataTooBig:
            raise OpenAIError(
                413, f"the request body is larger than {MAX_BODY_BYTES} bytes", code="request_too_large"
            ) from None
        chat = chat_request(parse_body(raw), canvas_header=request.headers.get("X-Canvasweb-Canvas"))
        api_turn = await database_sync_to_async(services.turn_open)(
            user=user, chat=chat, conversation_header=request.headers.get("X-Canvasweb-Conversation")
        )
    except OpenAIError as exc:
        return exc.response()
    return await _answer(chat, api_turn)


async def _answer(chat, api_turn: services.ApiTurn):
    config = ModelConfig.from_settings()
    started = time.monotonic()
    headers = {
        "X-Canvasweb-Conversation": str(api_turn.turn.conversation.pk),
        "X-Canvasweb-Model-Request": str(api_turn.turn.model_request.pk),
    }
    events = stream_chat(config, messages=api_turn.messages)
    try:
        if not config.configured:
            raise ModelNotConfigured()
        first = await events.__anext__()  # the upstream's status is known before we answer
    except (ModelError, ModelNotConfigured) as exc:
        error = _upstream_error(exc)
        await _close(api_turn, started, error=error)
        response = error.response()
        for name, value in headers.items():
            response[name] = value
        return response
    reply = _Reply(chat=chat, api_turn=api_turn, config=config, started=started)
    if chat.stream:
        stream = StreamingHttpResponse(reply.sse(first, events), content_type="text/event-stream")
        stream["Cache-Control"] = "no-cache"
        stream["X-Accel-Buffering"] = "no"
        for name, value in headers.items():
            stream[name] = value
        return stream
    try:
        await reply.collect(first, events)
    except ModelError as exc:
        error = _upstream_error(exc)
        await _close(api_turn, started, error=error, text=reply.text)
        return error.response()
    await reply.close()
    return _json(reply.completion(), headers=headers)


class _Reply:
    def __init__(self, *, chat, api_turn: services.ApiTurn, config: ModelConfig, started: float):
        self.chat = chat
        self.api_turn = api_turn
        self.config = config
        self.started = started
        self.id = f"chatcmpl-{uuid.uuid4().hex}"
        self.created = int(time.time())
        self.parts: list[str] = []
        self.usage: dict | None = None
        self.finish: str | None = None

    @property
    def text(self) -> str:
        return "".join(self.parts)

    async def collect(self, first, events) -> None:
        async for event in _chain(first, events):
            self._take(event)
        self._check_not_empty()

    def _take(self, event) -> str:
        if event.kind == "delta":
            self.parts.append(event.text)
            return event.text
        if event.kind == "done":
            self.usage, self.finish = event.usage, event.finish_reason
        return ""

    def _check_not_empty(self) -> None:
        if not self.text.strip():
            raise ModelError("it returned an empty reply", code="MODEL_EMPTY")

    async def close(self) -> None:
        await _close(self.api_turn, self.started, text=self.text, usage=self.usage)
        task = asyncio.ensure_future(_fold(self.api_turn, self.config))
        _BACKGROUND.add(task)
        task.add_done_callback(_BACKGROUND.discard)

    def _compiled(self) -> CompiledContext:
        compiled = self.api_turn.turn.compiled
        if compiled is None:  # never: services.prepare compiles the context before any reply
            raise RuntimeError("the turn has no compiled context")
        return compiled

    def usage_dict(self) -> dict:
        usage = self.usage or {}
        prompt = usage.get("prompt_tokens") or self._compiled().report.total_tokens
        completion = usage.get("completion_tokens") or count_tokens(self.text)
        return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}

    def _extra(self) -> dict:
        turn = self.api_turn.turn
        return {
            "conversation_id": turn.conversation.pk,
            "model_request_id": turn.model_request.pk,
            "role": self.api_turn.role,
            "included_nodes": len(self._compiled().report.included_nodes),
            "suggestions": len(turn.suggestions),
        }

    def completion(self) -> dict:
        return {
            "id": self.id,
            "object": "chat.completion",
            "created": self.created,
            "model": self.chat.model,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": self.text, "refusal": None},
                    "logprobs": None,
                    "finish_reason": self.finish or "stop",
                }
            ],
            "usage": self.usage_dict(),
            "canvasweb": self._extra(),
        }

    def _chunk(self, delta: dict, finish: str | None = None, **extra) -> str:
        body = {
            "id": self.id,
            "object": "chat.completion.chunk",
            "created": self.created,
            "model": self.chat.model,
            "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
            **extra,
        }
        return f"data: {json.dumps(body, ensure_ascii=False)}\n\n"

    async def sse(self, first, events):
        closed = False
        try:
            yield self._chunk({"role": "assistant", "content": ""})
            async for event in _chain(first, events):
                text = self._take(event)
                if text:
                    yield self._chunk({"content": text})
            self._check_not_empty()
            await self.close()
            closed = True
            yield self._chunk({}, self.finish or "stop")
            if self.chat.include_usage:
                body = {
                    "id": self.id,
                    "object": "chat.completion.chunk",
                    "created": self.created,
                    "model": self.chat.model,
                    "choices": [],
                    "usage": self.usage_dict(),
                    "canvasweb": self._extra(),
                }
                yield f"data: {json.dumps(body, ensure_ascii=False)}\n\n"
            yield "data: [DONE]\n\n"
        except ModelError as exc:  # mid-stream: the status is already sent, so an error event says it
            error = _upstream_error(exc)
            await _close(self.api_turn, self.started, error=error, text=self.text)
            closed = True
            yield f"data: {json.dumps(error.as_dict(), ensure_ascii=False)}\n\n"
        finally:
            if not closed:  # the client went away: keep what streamed, marked stopped
                task = asyncio.ensure_future(
                    _close(self.api_turn, self.started, text=self.text, stopped=True)
                )
                _BACKGROUND.add(task)
                task.add_done_callback(_BACKGROUND.discard)


async def _chain(first, events):
    yield first
    async for event in events:
        yield event


def _upstream_error(exc: Exception) -> OpenAIError:
    if isinstance(exc, ModelNotConfigured):
        return OpenAIError(
            503,
            "No upstream model is configured on this Canvasweb server (LLM_BASE_URL, "
            "LLM_API_KEY, LLM_MODEL; see README 'Connecting a model')",
            code="model_not_configured",
        )
    return OpenAIError.upstream(getattr(exc, "code", "MODEL_ERROR"), getattr(exc, "message", str(exc)))


async def _close(
    api_turn,
    started: float,
    *,
    error: OpenAIError | None = None,
    text: str = "",
    usage: dict | None = None,
    stopped: bool = False,
) -> None:
    try:
        await database_sync_to_async(services.turn_close)(
            api_turn=api_turn,
            text=text,
            usage=usage,
            latency_ms=int((time.monotonic() - started) * 1000),
            error=error.message if error else "",
            error_code=(error.code.upper()[:40] if error else ""),
            stopped=stopped,
        )
    except Exception:  # the answer (or the error) must still reach the client
        logger.exception("could not close an API chat turn")


async def _fold(api_turn, config: ModelConfig) -> None:
    try:
        await fold_summary(api_turn.turn, config)
    except Exception:
        logger.exception("summary fold after an API turn failed")


@csrf_exempt
async def not_found(request, rest: str = ""):
    return OpenAIError(
        404,
        f"unknown endpoint /v1/{rest[:100]}: this server offers POST /v1/chat/completions and GET /v1/models",
        code="unknown_url",
    ).response()
