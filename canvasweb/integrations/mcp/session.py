"""One MCP client's work on one canvas: context compilation and the agent's tools, as the user.

Synchronous and ORM-bound (the MCP handlers call it through
`database_sync_to_async`). Nothing here decides what the client may do:

* `compile_context` is the chat's own compiler entry point
  (`chat.services.compile_for`) at the user's role: pinned anchors, nodes near
  the viewport, linked and question-matched nodes, secrets withheld,
  credentials masked, under the token budget.
* Every other tool is run by the in-page agent's `AgentRunner`, exactly as a
  chat turn runs it: tool offered for the role and the canvas policy, strict
  arguments, handles only, the same caps and rate limits, `propose` mode turns
  writes into proposals, one change-log entry set per write, and every refusal
  recorded (SecurityEvent + AgentToolCall). Its actor names the client
  ("agent via MCP (Claude Desktop), for alice").

A "turn" for the runner runs from one `compile_context` to the next: the
handles it returns (n1, n2, ...) are valid until the next `compile_context`,
together with handles that search/read results add; the per-turn caps count
within it, the per-user windows across all of them.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth import get_user_model

from canvasweb.agent import tools as agent_tools
from canvasweb.agent.reads import DATA_NOTE
from canvasweb.agent.runner import AgentRunner
from canvasweb.chat import services as chat_services
from canvasweb.chat.context_inputs import viewport_from
from canvasweb.chat.llm import ModelConfig
from canvasweb.chat.models import Conversation, Message, MessageRole, MessageSource, MessageStatus
from canvasweb.common.errors import CanvasError, InvalidOperation

from ..access import external_canvas, record_refusal
from . import resources

CHANNEL = "mcp"
MIN_BUDGET = 200
COMPILE_TOOL = "compile_context"
COMPILE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "question": {
            "type": "string",
            "minLength": 1,
            "maxLength": chat_services.MAX_QUESTION_CHARS,
            "description": "What the user is asking now; selects question-matched nodes.",
        },
        "viewport": {
            "type": "object",
            "description": "Where to look on the canvas (default: around 0,0).",
            "properties": {k: {"type": "number"} for k in ("x", "y", "zoom", "width", "height")},
            "additionalProperties": False,
        },
        "budget": {
            "type": "integer",
            "minimum": MIN_BUDGET,
            "description": "Token budget for the whole prompt (default: the server's model window "
            "minus its reserved output).",
        },
    },
    "required": ["question"],
    "additionalProperties": False,
}
COMPILE_DESCRIPTION = (
    "Compile the canvas into prompt blocks for your question: pinned anchors, nodes near the viewport, "
    "linked and question-matched nodes, under a token budget, filtered for your role (secret values are "
    "never included). Returns the blocks to put in front of your model and the node handles (n1, n2...) "
    "they use; pass those handles to the other tools. Handles stay valid until the next compile_context."
)
MAX_SESSIONS = 512


@dataclass
class _Turn:
    """What AgentRunner reads of a chat turn."""

    conversation: Conversation
    assistant_message: Message
    handles: dict[str, str] = field(default_factory=dict)
    # MCP turns have no user message, so no captured suggestion can duplicate an MCP write.
    user_message: Message | None = None


class McpSession:
    def __init__(self, *, user, canvas_id: int, client_name: str):
        self.user = user
        self.canvas_id = canvas_id
        self.client_name = client_name
        self.via = f"MCP ({client_name})" if client_name else "MCP"
        self.conversation: Conversation | None = None
        self.runner: AgentRunner | None = None
        self.turn: _Turn | None = None
        self.handles: dict[str, str] = {}
        self.calls = 0

    # --- what the client may see ------------------------------------------------------------

    def role(self) -> str:
        """Re-checked on every request: membership, role and external access may have changed."""
        _, role = external_canvas(user=self.user, canvas_id=self.canvas_id, channel=CHANNEL)
        return role

    def list_tools(self) -> list[dict]:
        """[{name, description, input_schema}]: compile_context and the tools the agent is offered."""
        self.role()
        runner = self._runner()
        schemas = runner.tools_offered() if runner is not None else []
        listed = [{"name": COMPILE_TOOL, "description": COMPILE_DESCRIPTION, "input_schema": COMPILE_SCHEMA}]
        for schema in schemas:
            function = schema["function"]
            listed.append(
                {
                    "name": function["name"],
                    "description": function["description"],
                    "input_schema": function["parameters"],
                }
            )
        return listed

    # --- tools --------------------------------------------------------------------------------

    def call_tool(self, name: Any, arguments: Any) -> tuple[dict, bool]:
        """(result payload, is_error). Refusals are results the model can read, and are on record."""
        try:
            role = self.role()
        except CanvasError as exc:  # external_canvas recorded it
            return _error(exc), True
        if name == COMPILE_TOOL:
            try:
                return self._compile(role=role, arguments=arguments), False
            except CanvasError as exc:
                record_refusal(
                    user=self.user,
                    canvas_id=self.canvas_id,
                    channel=CHANNEL,
                    op_type="mcp.compile_context",
                    error=exc,
                    detail={"client": self.via},
                )
                return _error(exc), True
        return self._run_agent_tool(name, arguments)

    def _compile(self, *, role: str, arguments: Any) -> dict:
        args = _compile_arguments(arguments)
        try:
            question = chat_services.validate_question(args["question"])
        except InvalidOperation as exc:
            # The chat's check names its own field ("text"); this tool's argument is "question".
            raise InvalidOperation(exc.message, field="question") from exc
        compiled = chat_services.compile_for(
            canvas_id=self.canvas_id,
            role=role,
            question=question,
            viewport=args.get("viewport"),
            budget=args.get("budget"),
        )
        report = compiled.report
        # A new turn: the runner starts from exactly the handles this context shows.
        self.handles = dict(report.handles)
        self.runner = None
        self._runner()
        return {
            "ok": True,
            "note": DATA_NOTE,
            "blocks": [{"role": m["role"], "content": m["content"]} for m in compiled.messages],
            "handles": [
                {
                    "node": n.handle,
                    "rank": n.rank,
                    "reason": n.reason,
                    "tokens": n.tokens,
                    "withheld": n.placeholder,
                }
                for n in report.included_nodes
            ],
            "layer_tokens": report.layer_tokens,
            "total_tokens": report.total_tokens,
            "budget": report.budget.get("total", 0),
            "excluded_counts": report.excluded_counts,
        }

    def _run_agent_tool(self, name: Any, arguments: Any) -> tuple[dict, bool]:
        runner = self._runner()
        if runner is None:
            error = InvalidOperation(
                "the agent is disabled on this server (AGENT_ENABLED=false)", field="name"
            )
            record_refusal(
                user=self.user,
                canvas_id=self.canvas_id,
                channel=CHANNEL,
                op_type=f"mcp.{str(name)[:30]}",
                error=error,
                detail={"client": self.via},
            )
            return _error(error), True
        if self.turn is None:
            self.turn = self._new_turn()
        self.calls += 1
        call = {
            "id": f"mcp_{self.calls}",
            "name": name,
            "arguments": arguments
            if isinstance(arguments, str)
            else json.dumps(arguments or {}, ensure_ascii=False),
        }
        messages, _ = runner.execute_sync(turn=self.turn, calls=[call], round_number=min(self.calls, 32767))
        payload = json.loads(messages[0]["content"])
        return payload, not payload.get("ok", False)

    def _runner(self) -> AgentRunner | None:
        if self.runner is None:
            runner = AgentRunner.for_user(user=self.user, canvas_id=self.canvas_id)
            if runner is None:
                return None
            runner.via = self.via
            runner.tools_offered()  # opens the run: role, policy and the per-user turn window
            self.runner, self.turn, self.calls = runner, None, 0
        return self.runner

    def _new_turn(self) -> _Turn:
        """The records of this turn's tool calls (agent run, tool calls, proposals) link to a conversation
        named after the client and to an assistant message of it, like a chat turn's. The message stays
        empty (the client's model writes its reply elsewhere), so it never enters a compiled history."""
        conversation = self.conversation
        if conversation is None:
            conversation = self.conversation = chat_services.conversation_create(
                user=self.user, canvas_id=self.canvas_id, title=f"via {self.via}"[:200]
            )
        message = Message.objects.create(
            conversation=conversation,
            role=MessageRole.ASSISTANT,
            source=MessageSource.ASSISTANT_REPLY,
            content="",
            status=MessageStatus.COMPLETE,
        )
        return _Turn(conversation=conversation, assistant_message=message, handles=self.handles)

    # --- resources ------------------------------------------------------------------------------

    def list_resources(self) -> list[dict]:
        self.role()
        return resources.listing(canvas_id=self.canvas_id)

    def read_resource(self, uri: str) -> str:
        return resources.read(uri=uri, canvas_id=self.canvas_id, role=self.role())


def _compile_arguments(arguments: Any) -> dict:
    args = agent_tools.parse_arguments(arguments)
    unknown = sorted(set(args) - set(COMPILE_SCHEMA["properties"]))
    if unknown:
        raise InvalidOperation(
            f"unknown field {unknown[0]}; allowed: question, viewport, budget", field=unknown[0]
        )
    if not isinstance(args.get("question"), str):
        raise InvalidOperation("question is required and must be a string", field="question")
    viewport = args.get("viewport")
    if viewport is not None and not isinstance(viewport, dict):
        raise InvalidOperation("viewport must be an object with x, y, zoom, width, height", field="viewport")
    try:  # the chat's own check: "unknown field viewport.<key>", or a value that is no number
        viewport_from(viewport)
    except ValueError as exc:
        raise InvalidOperation(f"viewport is invalid: {exc}", field="viewport") from None
    budget = args.get("budget")
    if budget is not None:
        limit = ModelConfig.from_settings().prompt_budget
        if isinstance(budget, bool) or not isinstance(budget, int) or not MIN_BUDGET <= budget <= limit:
            raise InvalidOperation(
                f"budget must be a whole number between {MIN_BUDGET} and {limit}", field="budget"
            )
    return args


def _error(error: CanvasError) -> dict:
    return {"ok": False, "error": error.as_dict()}


# --- one session per (user, canvas, MCP session) in this process ----------------------------------

_SESSIONS: OrderedDict[tuple[int, int, str], McpSession] = OrderedDict()
_LOCK = threading.Lock()


def session_for(*, user_id: int, canvas_id: int, session_key: str, client_name: str) -> McpSession:
    """The session's state (handles, runner); a deactivated or deleted user is refused."""
    user = get_user_model().objects.filter(pk=user_id, is_active=True).first()
    if user is None:
        from ..access import Unauthenticated

        raise Unauthenticated("this API token's user no longer exists or is inactive")
    key = (user_id, canvas_id, session_key)
    with _LOCK:
        session = _SESSIONS.get(key)
        if session is None:
            session = McpSession(user=user, canvas_id=canvas_id, client_name=client_name)
            _SESSIONS[key] = session
            while len(_SESSIONS) > MAX_SESSIONS:
                _SESSIONS.popitem(last=False)
        else:
            _SESSIONS.move_to_end(key)
            session.user = user
        return session


def forget_sessions() -> None:
    """Tests: start from nothing."""
    with _LOCK:
        _SESSIONS.clear()
