"""The model: any OpenAI-compatible endpoint, through the official openai SDK.

The SDK retries 429 and 5xx with exponential backoff (`LLM_MAX_RETRIES`) and
enforces `LLM_TIMEOUT_SECONDS`. Failures become `ModelError` with a message a
person can act on; nothing here raises SDK exceptions to callers.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import openai
from django.conf import settings


class ModelNotConfigured(Exception):
    message = (
        "No model is configured. Set LLM_BASE_URL (and LLM_API_KEY, LLM_MODEL) — see README "
        "'Connecting a model'. The canvas, context preview and benchmarks work without one."
    )


class ModelError(Exception):
    def __init__(self, message: str, *, code: str = "MODEL_ERROR"):
        super().__init__(message)
        self.message = message
        self.code = code


@dataclass
class ModelConfig:
    base_url: str
    api_key: str
    model: str
    context_window: int
    max_output_tokens: int
    timeout: float
    max_retries: int

    @classmethod
    def from_settings(cls) -> ModelConfig:
        llm = settings.LLM
        return cls(
            base_url=llm["BASE_URL"],
            api_key=llm["API_KEY"],
            model=llm["MODEL"],
            context_window=llm["CONTEXT_WINDOW"],
            max_output_tokens=llm["MAX_OUTPUT_TOKENS"],
            timeout=llm["TIMEOUT_SECONDS"],
            max_retries=llm["MAX_RETRIES"],
        )

    @property
    def configured(self) -> bool:
        # A local server (llama.cpp, Ollama, vLLM) needs only a base URL; OpenAI needs a key.
        return bool(self.base_url or self.api_key)

    @property
    def prompt_budget(self) -> int:
        return self.context_window - self.max_output_tokens


@dataclass
class StreamEvent:
    kind: str  # "delta", "tool_calls", "done"
    text: str = ""
    tool_calls: list[dict] | None = None
    usage: dict | None = None
    finish_reason: str | None = None


# One client per configuration and event loop: building one loads the TLS
# certificates (~0.1 s), and an async HTTP pool must not cross event loops.
_CLIENTS: dict[tuple, openai.AsyncOpenAI] = {}


def async_client(config: ModelConfig) -> openai.AsyncOpenAI:
    if not config.configured:
        raise ModelNotConfigured()
    loop = asyncio.get_running_loop()
    key = (config.base_url, config.api_key, config.timeout, config.max_retries, id(loop))
    client = _CLIENTS.get(key)
    if client is None:
        for stale in [k for k in _CLIENTS if k[4] == id(loop) or len(_CLIENTS) > 32]:
            _CLIENTS.pop(stale, None)
        client = openai.AsyncOpenAI(
            base_url=config.base_url or None,
            api_key=config.api_key or "not-needed",
            timeout=config.timeout,
            max_retries=config.max_retries,
        )
        _CLIENTS[key] = client
        # Forget it with its loop so a recycled loop id never gets a dead pool.
        _forget_with_loop(loop, key)
    return client


def _forget_with_loop(loop: asyncio.AbstractEventLoop, key: tuple) -> None:
    original_close = loop.close

    def close() -> None:
        _CLIENTS.pop(key, None)
        original_close()

    try:
        loop.close = close  # type: ignore[method-assign]
    except AttributeError:  # a loop that does not allow it just keeps no cache entry
        _CLIENTS.pop(key, None)


async def stream_chat(
    config: ModelConfig, *, messages: list[dict], tools: list[dict] | None = None
) -> AsyncIterator[StreamEvent]:
    """Stream one completion: text deltas, then at most one tool_calls event, then done."""
    client = async_client(config)
    kwargs: dict[str, Any] = {
        "model": config.model,
        "messages": messages,
        "stream": True,
        "max_tokens": config.max_output_tokens,
        "stream_options": {"include_usage": True},
    }
    if tools:
        kwargs["tools"] = tools
    calls: dict[int, dict] = {}
    usage = None
    finish = None
    try:
        stream = await client.chat.completions.create(**kwargs)
        async for chunk in stream:
            if getattr(chunk, "usage", None):
                usage = chunk.usage.model_dump()
            for choice in chunk.choices or []:
                delta = choice.delta
                if delta is not None and delta.content:
                    yield StreamEvent(kind="delta", text=delta.content)
                for call in (delta.tool_calls or []) if delta is not None else []:
                    slot = calls.setdefault(call.index, {"id": None, "name": "", "arguments": ""})
                    if call.id:
                        slot["id"] = call.id
                    if call.function is not None:
                        slot["name"] += call.function.name or ""
                        slot["arguments"] += call.function.arguments or ""
                if choice.finish_reason:
                    finish = choice.finish_reason
    except openai.APITimeoutError:
        raise ModelError(
            f"The model did not answer within {config.timeout:g} s.", code="MODEL_TIMEOUT"
        ) from None
    except openai.APIConnectionError:
        raise ModelError(
            f"Could not reach the model endpoint {config.base_url or 'api.openai.com'}.",
            code="MODEL_UNREACHABLE",
        ) from None
    except openai.RateLimitError:
        raise ModelError(
            "The model endpoint is rate limiting us (429) after retries; try again shortly.",
            code="MODEL_RATE_LIMITED",
        ) from None
    except openai.APIStatusError as exc:
        raise ModelError(
            f"The model endpoint answered HTTP {exc.status_code}: {_short(exc.message)}",
            code="MODEL_HTTP_ERROR",
        ) from None
    except (openai.APIResponseValidationError, ValueError) as exc:
        raise ModelError(
            f"The model endpoint sent a response we could not read: {_short(str(exc))}",
            code="MODEL_BAD_RESPONSE",
        ) from None
    if calls:
        yield StreamEvent(kind="tool_calls", tool_calls=[calls[i] for i in sorted(calls)])
    yield StreamEvent(kind="done", usage=usage, finish_reason=finish)


def _short(text: str, limit: int = 200) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
