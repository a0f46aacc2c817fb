"""Run a chat turn over the canvas WebSocket: stream the reply, let the agent act, record everything.

One turn at a time per connection. The turn runs as a task so `chat.stop`
and canvas traffic keep flowing while the model streams.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Awaitable, Callable

from channels.db import database_sync_to_async

from canvasweb.common.errors import BadMessage, CanvasError

from . import executor, extraction, services
from .executor import off_db_thread
from .llm import ModelConfig, ModelError, ModelNotConfigured, stream_chat
from .suggestion_capture import capture_suggestions

logger = logging.getLogger(__name__)

Send = Callable[[dict], Awaitable[None]]


class ChatSession:
    def __init__(self, *, user, canvas_id: int, send: Send):
        self.user = user
        self.canvas_id = canvas_id
        self.send = send
        self.task: asyncio.Task | None = None  # the reply being streamed
        self.prepare_task: asyncio.Task | None = None  # storing the question, compiling its context
        self.tasks: set[asyncio.Task] = set()  # the current turn and any summary fold still running
        self.active_message_id: int | None = None
        self.streaming = False  # a reply is on its way (the summary fold after it does not block)
        self.preparing = False  # a question is being stored and its context compiled
        self.stop_requested = False  # chat.stop came while preparing: stop as soon as the reply starts
        self.preview_lock = asyncio.Lock()
        self.fold_lock = asyncio.Lock()
        executor.prewarm(key=canvas_id)  # a worker process takes a second or two to start

    async def handle_send(self, message: dict) -> None:
        request_id = _request_id(message)
        if self.streaming or self.preparing:
            await self.send(
                {
                    "type": "chat.error",
                    "request_id": request_id,
                    "message_id": None,
                    "error": {
                        "code": "BUSY",
                        "message": "a reply is still streaming; stop it or wait",
                        "field": None,
                    },
                }
            )
            return
        # Storing the question and compiling its context run beside the socket's other frames: the
        # consumer handles one frame at a time, and a first compile (a worker process starting) can
        # take longer than the client's heartbeat allows.
        self.preparing = True
        self.stop_requested = False
        self.prepare_task = asyncio.ensure_future(self._prepare_and_start(message, request_id))
        self.tasks.add(self.prepare_task)
        self.prepare_task.add_done_callback(self.tasks.discard)

    async def wait_for_turn(self) -> None:
        """Until the current turn has been prepared and its reply has finished (tests and tools)."""
        if self.prepare_task is not None:
            await self.prepare_task
        if self.task is not None:
            await self.task

    async def _prepare_and_start(self, message: dict, request_id: str | None) -> None:
        try:
            await self._prepare_turn(message, request_id)
        except asyncio.CancelledError:
            raise
        except Exception:
            logger.exception("unhandled error preparing a chat turn on canvas %s", self.canvas_id)
            await self.send(_internal_error())
        finally:
            self.preparing = False

    async def _prepare_turn(self, message: dict, request_id: str | None) -> None:
        conversation_id = message.get("conversation_id")
        try:
            runner = _agent_runner(user=self.user, canvas_id=self.canvas_id)
            tools = await database_sync_to_async(runner.tools_offered)() if runner else None
            start = await database_sync_to_async(services.turn_begin)(
                user=self.user,
                canvas_id=self.canvas_id,
                text=message.get("text"),
                conversation_id=conversation_id,
            )
            # Compile and capture on the compile pool, outside any transaction: a big canvas must not
            # hold up the database thread every socket's ops go through.
            compiled = await off_db_thread(
                services.turn_compile, start=start, viewport=message.get("viewport"), key=self.canvas_id
            )
            turn = await database_sync_to_async(services.turn_store)(
                start=start, compiled=compiled, tools=tools
            )
            # (services.turn_capture's work, with only what it needs sent to the worker)
            turn.suggestions = await off_db_thread(
                capture_suggestions,
                conversation=turn.conversation,
                message=turn.user_message,
                role=turn.role,
                key=self.canvas_id,
            )
        except CanvasError as exc:
            await self.send(
                {"type": "chat.error", "request_id": request_id, "message_id": None, "error": exc.as_dict()}
            )
            return
        self.active_message_id = turn.assistant_message.pk
        self.streaming = True
        await self.send(
            {
                "type": "chat.started",
                "request_id": request_id,
                "conversation": services.conversation_to_dict(turn.conversation),
                "user_message": services.message_to_dict(turn.user_message),
                "assistant_message_id": turn.assistant_message.pk,
                "model_request_id": turn.model_request.pk,
                "context": turn.preview,
                "suggestions": turn.suggestions,
            }
        )
        self.task = asyncio.ensure_future(self._run(turn, request_id, runner, tools))
        self.tasks.add(self.task)
        self.task.add_done_callback(self.tasks.discard)
        if self.stop_requested:  # chat.stop arrived while the question was being prepared
            # After the task's first step (queued first), so the reply is recorded as stopped.
            asyncio.get_running_loop().call_soon(self.task.cancel)
        if turn.role != "viewer" and extraction.model_capture_enabled():
            refine = asyncio.ensure_future(self._refine_suggestions(turn))  # off the reply's path
            self.tasks.add(refine)
            refine.add_done_callback(self.tasks.discard)

    async def _refine_suggestions(self, turn) -> None:
        """The model's fact extraction; replaces the rules' suggestions of this message when it succeeds."""
        try:
            result = await database_sync_to_async(extraction.refine_with_model)(
                message_id=turn.user_message.pk, role=turn.role
            )
        except Exception:
            logger.exception("model fact extraction failed")
            return
        if result is not None:
            await self.send({"type": "chat.suggestions", **result})

    async def handle_stop(self, message: dict) -> None:
        message_id = _stop_message_id(message)
        # A stop for a reply that is not (or no longer) streaming here is ignored: it races the reply's end.
        if self.preparing and message_id is None:
            self.stop_requested = True
            return
        if self.streaming and self.task is not None and message_id in (None, self.active_message_id):
            self.task.cancel()

    async def handle_preview(self, message: dict) -> None:
        request_id = _request_id(message)
        task = asyncio.ensure_future(self._answer_preview(message, request_id))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def _answer_preview(self, message: dict, request_id: str | None) -> None:
        # One preview at a time per socket, in the order asked, without holding up pings and ops.
        async with self.preview_lock:
            try:
                await self._preview(message, request_id)
            except asyncio.CancelledError:
                raise
            except Exception:
                logger.exception("unhandled error in a context preview on canvas %s", self.canvas_id)
                await self.send(_internal_error())

    async def _preview(self, message: dict, request_id: str | None) -> None:
        try:
            payload = await off_db_thread(
                services.context_preview,
                user=self.user,
                canvas_id=self.canvas_id,
                text=message.get("text", ""),
                viewport=message.get("viewport"),
                conversation_id=message.get("conversation_id"),
                key=self.canvas_id,
            )
        except CanvasError as exc:
            await self.send({"type": "error", "request_id": request_id, "error": exc.as_dict()})
            return
        await self.send({"type": "context.preview", "request_id": request_id, **payload})

    async def close(self) -> None:
        for task in list(self.tasks):
            task.cancel()
        for task in list(self.tasks):
            try:
                await task
            except BaseException:
                pass

    async def _run(self, turn, request_id: str | None, runner, tools) -> None:
        config = ModelConfig.from_settings()
        started = time.monotonic()
        message_id = turn.assistant_message.pk
        text, usage, error, stopped = "", None, "", False
        code = None
        all_calls: list[dict] = []
        messages = list(turn.messages)
        try:
            if not config.configured:
                raise ModelNotConfigured()
            for round_number in range(1, (runner.max_rounds if runner else 0) + 2):
                round_text, calls, usage = "", None, None
                round_started = time.monotonic()
                async for event in stream_chat(config, messages=messages, tools=tools if runner else None):
                    if event.kind == "delta":
                        round_text += event.text
                        text += event.text
                        await self.send({"type": "chat.delta", "message_id": message_id, "delta": event.text})
                    elif event.kind == "tool_calls":
                        calls = event.tool_calls
                    else:
                        usage = event.usage
                if round_number > 1:
                    await database_sync_to_async(services.record_model_round)(
                        turn=turn,
                        purpose=f"agent round {round_number}",
                        messages=messages,
                        tools=tools,
                        text=round_text,
                        tool_calls=calls,
                        usage=usage,
                        latency_ms=int((time.monotonic() - round_started) * 1000),
                    )
                if not calls or runner is None or round_number > runner.max_rounds:
                    break
                all_calls.extend(calls)
                # The agent acts (validated and authorized in code), then the model sees the results.
                tool_messages, events = await runner.execute(
                    turn=turn, calls=calls, round_number=round_number
                )
                for event in events:
                    await self.send(event)
                messages += [
                    {
                        "role": "assistant",
                        "content": round_text or None,
                        "tool_calls": [
                            {
                                "id": c["id"] or f"call_{i}",
                                "type": "function",
                                "function": {"name": c["name"], "arguments": c["arguments"]},
                            }
                            for i, c in enumerate(calls)
                        ],
                    },
                    *tool_messages,
                ]
            if not text.strip() and not all_calls:
                raise ModelError(
                    "The model returned an empty reply. Try again or rephrase.", code="MODEL_EMPTY"
                )
        except asyncio.CancelledError:
            stopped = True
        except ModelNotConfigured as exc:
            error, code = exc.message, "MODEL_NOT_CONFIGURED"
        except ModelError as exc:
            error, code = exc.message, exc.code
        except Exception:  # never leave a turn half-open
            logger.exception("chat turn failed")
            error, code = (
                "Something went wrong while talking to the model; the conversation is intact.",
                "INTERNAL",
            )
        latency = int((time.monotonic() - started) * 1000)
        self.streaming = False
        try:
            final = await database_sync_to_async(_finish_as_dict)(
                turn=turn,
                text=text,
                usage=usage,
                latency_ms=latency,
                error=error,
                error_code=code or "",
                stopped=stopped,
                tool_calls=all_calls or None,
                handles=runner.handles if runner else None,
            )
            if error:
                await self.send(
                    {
                        "type": "chat.error",
                        "request_id": request_id,
                        "message_id": message_id,
                        "error": {"code": code, "message": error, "field": None},
                        "message": final,
                    }
                )
            else:
                await self.send({"type": "chat.done", "request_id": request_id, "message": final})
                async with self.fold_lock:
                    await fold_summary(turn, config)
        except Exception:
            logger.exception("could not finish a chat turn")
            await self.send(
                {
                    "type": "chat.error",
                    "request_id": request_id,
                    "message_id": message_id,
                    "error": {
                        "code": "INTERNAL",
                        "field": None,
                        "message": "The reply could not be saved; reload the conversation.",
                    },
                }
            )


async def fold_summary(turn, config: ModelConfig) -> None:
    """Fold old turns into the rolling summary when due: written by the model with the structured
    template when one is configured, extractive otherwise or when the model fails."""
    recent_budget = turn.compiled.report.budget.get("recent", 0) if turn.compiled else 0
    plan = await database_sync_to_async(services.summary_fold_plan)(
        conversation=turn.conversation, recent_budget=recent_budget
    )
    if plan is None:
        return
    model_text, error, usage = None, "", None
    started = time.monotonic()
    messages = services.summary_prompt(plan) if config.configured else None
    if messages:
        try:
            parts = []
            async for event in stream_chat(config, messages=messages):
                if event.kind == "delta":
                    parts.append(event.text)
                elif event.kind == "done":
                    usage = event.usage
            model_text = "".join(parts)
        except ModelError as exc:
            error = exc.message
        await database_sync_to_async(services.record_model_round)(
            turn=turn,
            purpose="summary",
            messages=messages,
            tools=None,
            text=model_text or "",
            tool_calls=None,
            usage=usage,
            latency_ms=int((time.monotonic() - started) * 1000),
            error=error,
        )
    await database_sync_to_async(services.summary_store)(plan=plan, model_text=model_text)


def _finish_as_dict(**kwargs) -> dict:
    """Close the turn and serialize the reply in one worker-thread call (both touch the ORM)."""
    return services.message_to_dict(services.turn_finish(**kwargs))


def _request_id(message: dict) -> str | None:
    request_id = message.get("request_id")
    if request_id is not None and (not isinstance(request_id, str) or len(request_id) > 64):
        raise BadMessage("request_id must be a string of at most 64 characters", field="request_id")
    return request_id


def _stop_message_id(message: dict) -> int | None:
    """chat.stop's `message_id`: the assistant message to stop, or null for the turn being prepared.
    Required, so a frame that says nothing about what to stop is refused rather than ignored."""
    if "message_id" not in message:
        raise BadMessage("message_id is required (the reply's message id, or null)", field="message_id")
    value = message["message_id"]
    if value is not None and (isinstance(value, bool) or not isinstance(value, int) or not 0 < value < 2**63):
        raise BadMessage("message_id must be null or a positive integer", field="message_id")
    return value


def _agent_runner(*, user, canvas_id: int):
    """The agent for this user on this canvas, or None when it has nothing to offer."""
    try:
        from canvasweb.agent.runner import AgentRunner
    except ImportError:
        return None
    return AgentRunner.for_user(user=user, canvas_id=canvas_id)


__all__ = ["ChatSession", "json"]


def _internal_error() -> dict:
    return {
        "type": "error",
        "error": {"code": "INTERNAL", "message": "the server could not handle this message", "field": None},
    }
