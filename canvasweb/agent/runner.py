"""The agent in a chat turn: offer tools, then validate, authorize and carry out each call.

`canvasweb.chat.turns` drives the loop (model → tool calls → results → model,
at most `max_rounds` times) and calls this module:

    runner = AgentRunner.for_user(user=..., canvas_id=...)      # no ORM (called on the event loop)
    tools = runner.tools_offered()                              # sync, ORM: the tool schemas for this turn
    tool_messages, events = await runner.execute(turn=..., calls=[...], round_number=n)

Every call goes through the same steps, and the first one that fails refuses
it (one SecurityEvent + one AgentToolCall row, and an error result the model
can read):

 1. the tool exists, and was offered this turn (a viewer's agent gets read
    tools only; deletes do not exist);
 2. per-round call cap; strict JSON; the tool's schema (types, lengths,
    ranges, no unknown fields; nodes only by handle, never by id);
 3. handles → nodes: only handles this turn issued (the compiled canvas
    block, search/read results, nodes the agent created), re-checked against
    the user's current role;
 4. agent rules on top of the canvas policy: no writes to secret nodes, no
    credentials or secret values in what it writes, a replacement node keeps
    the sensitivity of the node it supersedes;
 5. per-turn write cap and per-user rate limit;
 6. the write path: in `auto` mode `apply_operation` as the agent acting for
    the user (role ∩ policy, pinned, scope, archive, mode are checked there);
    in `propose` mode the same call as a dry run in a rolled-back transaction,
    and if it would pass, a Proposal for a person to approve.

Tool results are JSON; node text in them is masked (credentials, values of
secret nodes) exactly like the compiled prompt, and secret nodes show only a
placeholder. The model's own tool-call arguments are masked the same way in
place (`calls[i]["arguments"]`), so the echo of the call in the next round
and the model-request record never carry a credential either.
"""

from __future__ import annotations

import json
import logging
import uuid
from datetime import timedelta

from channels.db import database_sync_to_async
from django.db.models import F
from django.utils import timezone

from canvasweb.canvases import permissions
from canvasweb.canvases import services as canvas_services
from canvasweb.canvases.actors import agent_actor
from canvasweb.canvases.models import AgentMode
from canvasweb.chat.suggestions import dismiss_duplicates_of_agent_op
from canvasweb.common.errors import CanvasError, RateLimited
from canvasweb.history.models import SecurityEvent

from . import services, tools
from .models import AgentRun, ToolOutcome
from .reads import ReadTools
from .run_state import agent_settings
from .write_plans import WritePlans

logger = logging.getLogger(__name__)


class _Refusal(Exception):
    """A CanvasError that the write path already wrote to the security log."""

    def __init__(self, error: CanvasError):
        super().__init__(error.message)
        self.error = error


class AgentRunner(WritePlans, ReadTools):
    """One chat turn's agent; its parts: run_state, handles, records, policy, reads, write_plans."""

    # --- the turns.py interface -------------------------------------------------------------

    @classmethod
    def for_user(cls, *, user, canvas_id: int) -> AgentRunner | None:
        """Cheap and ORM-free (the caller is on the event loop); tools_offered does the checks."""
        if not agent_settings()["ENABLED"] or not getattr(user, "is_authenticated", False):
            return None
        return cls(user=user, canvas_id=canvas_id)

    def tools_offered(self) -> list[dict]:
        """The tool schemas for this turn: read tools for everyone, write tools for editors and owners."""
        if self.run is not None:
            return [self._schema(name) for name in self.offered]
        canvas, role = self._canvas_and_role_now()
        if canvas is None or role is None:
            self.unavailable = "you are not a member of this canvas"
            return []
        self.mode = canvas.agent_mode
        if canvas.agent_mode == AgentMode.OFF:
            self.unavailable = "the agent is switched off on this canvas"
            return []
        config = self.config
        since = timezone.now() - timedelta(seconds=config["RATE_WINDOW_SECONDS"])
        if (
            AgentRun.objects.filter(user=self.user, created_at__gte=since).count()
            >= config["MAX_TURNS_PER_WINDOW"]
        ):
            self.unavailable = (
                f"rate limit: at most {config['MAX_TURNS_PER_WINDOW']} agent turns per "
                f"{config['RATE_WINDOW_SECONDS']} s"
            )
            SecurityEvent.objects.create(
                canvas_id_ref=self.canvas_id,
                user=self.user,
                actor_kind="agent",
                channel="agent",
                op_type="agent.turn",
                code=RateLimited.code,
                reason=self.unavailable,
                detail={"stage": "rate"},
            )
            return []
        names: list[str] = list(tools.READ_TOOLS)
        if permissions.role_allows(role, "node.update"):
            names = [n for n in tools.WRITE_TOOLS if n != "archive_node" or canvas.agent_may_archive] + names
        self.offered = tuple(names)
        self.run = AgentRun.objects.create(
            run_id=uuid.uuid4().hex,
            canvas=canvas,
            user=self.user,
            role=role,
            mode=canvas.agent_mode,
            tools=list(names),
            via=self.via[:100],
        )
        return [self._schema(name) for name in names]

    async def execute(self, *, turn, calls: list[dict], round_number: int) -> tuple[list[dict], list[dict]]:
        return await database_sync_to_async(self.execute_sync)(
            turn=turn, calls=calls, round_number=round_number
        )

    def execute_sync(self, *, turn, calls: list[dict], round_number: int) -> tuple[list[dict], list[dict]]:
        if self.run is None and not self.unavailable:
            self.tools_offered()
        if self.run is not None and self.run.message_id is None:
            AgentRun.objects.filter(pk=self.run.pk).update(
                conversation=turn.conversation, message=turn.assistant_message
            )
            self.run.conversation_id = turn.conversation.pk
            self.run.message_id = turn.assistant_message.pk
        if not self.seeded:
            self._seed(turn.handles or {})
        tool_messages, events = [], []
        refused = 0
        writes_before = self.writes
        self._mask = None  # computed once per round (secret values change only when secret nodes do)
        for index, call in enumerate(calls):
            call_id = call.get("id") or f"call_{index}"
            content, event = self._one(
                turn=turn, call=call, call_id=str(call_id)[:64], index=index, round_number=round_number
            )
            refused += event["outcome"] == ToolOutcome.REFUSED
            tool_messages.append({"role": "tool", "tool_call_id": call_id, "content": content})
            events.append(event)
        if self.run is not None:
            AgentRun.objects.filter(pk=self.run.pk).update(
                rounds=F("rounds") + 1,
                calls=F("calls") + len(calls),
                refused=F("refused") + refused,
                writes=F("writes") + (self.writes - writes_before),
            )
        return tool_messages, events

    # --- one call ------------------------------------------------------------------------------

    def _one(self, *, turn, call: dict, call_id: str, index: int, round_number: int) -> tuple[str, dict]:
        mask = self._masker()
        raw_name = call.get("name")
        name = raw_name if isinstance(raw_name, str) else ""
        raw_arguments = call.get("arguments")
        arguments_text = raw_arguments if isinstance(raw_arguments, str) else json.dumps(raw_arguments)
        # The echo of this call in the next round, and its record, carry no credentials.
        masked_arguments = mask(arguments_text)
        if isinstance(raw_arguments, str) and masked_arguments != raw_arguments:
            call["arguments"] = masked_arguments
        if len(name) > 64:
            call["name"] = name[:64]
        record = {
            "tool": mask(name[:64]) or "(none)",
            "arguments": masked_arguments[:4000],
            "round": round_number,
            "call_id": call_id,
        }
        op_for_log: dict | None = None
        try:
            if index >= self.config["MAX_CALLS_PER_ROUND"]:
                raise RateLimited(
                    f"at most {self.config['MAX_CALLS_PER_ROUND']} tool calls are handled per "
                    "response; this one was not run"
                )
            name = tools.check_tool_name(raw_name)
            self._check_offered(name)
            args = tools.validate_arguments(name, tools.parse_arguments(raw_arguments))
            if not tools.is_write(name):
                result = self._read(name, args)
                self.reads += 1
                self._log_call(record, outcome=ToolOutcome.READ)
                return self._result(result), self._event(turn, record, "read")
            canvas, role = self._current()
            planned = self._plan(name, args, canvas=canvas, role=role, turn=turn)
            op_for_log = planned.op
            self._check_write_budget()
            run = self.run
            if run is None:  # never: a turn's run is created before its tool calls (caught below as a bug)
                raise RuntimeError("agent write outside a run")
            actor = agent_actor(
                self.user,
                conversation_id=turn.conversation.pk,
                message_id=turn.assistant_message.pk,
                agent_run_id=run.run_id,
                via=self.via,
            )
            if canvas.agent_mode == AgentMode.PROPOSE:
                error = self._dry_run(actor, planned.op)
                if error is not None:
                    raise error
                proposal = services.proposal_create(
                    run=run,
                    user=self.user,
                    canvas_id=self.canvas_id,
                    conversation_id=turn.conversation.pk,
                    message_id=turn.assistant_message.pk,
                    tool=name,
                    op=planned.op,
                    summary=planned.summary,
                    diff=planned.diff,
                    base_versions=planned.base_versions,
                    refs=planned.refs,
                    visibility_level=planned.level,
                )
                self.writes += 1
                self._log_call(record, outcome=ToolOutcome.PROPOSED, op=planned.op, proposal=proposal)
                duplicates = dismiss_duplicates_of_agent_op(
                    user_message_id=_user_message_id(turn), op=planned.op
                )
                return self._result(
                    {
                        "ok": True,
                        "status": "proposed",
                        "proposal_id": proposal.pk,
                        "summary": mask(planned.summary),
                        "message": "Proposed, not applied: a person with edit rights must approve it. "
                        "Tell the user it is waiting in the proposals panel.",
                    }
                ), self._event(
                    turn, record, "proposed", proposal_id=proposal.pk, dismissed_suggestion_ids=duplicates
                )
            try:
                applied = canvas_services.apply_operation(
                    actor=actor, canvas_id=self.canvas_id, op=planned.op
                )
            except CanvasError as exc:
                raise _Refusal(exc) from None
            self.writes += 1
            result = {"ok": True, "status": "applied", "revision": applied.revision}
            if planned.new_node_id:
                result["node"] = self._issue(planned.new_node_id)
            self._log_call(record, outcome=ToolOutcome.APPLIED, op=planned.op, revision=applied.revision)
            duplicates = dismiss_duplicates_of_agent_op(user_message_id=_user_message_id(turn), op=planned.op)
            return self._result(result), self._event(
                turn, record, "applied", revision=applied.revision, dismissed_suggestion_ids=duplicates
            )
        except (CanvasError, _Refusal) as exc:
            recorded = isinstance(exc, _Refusal)
            refusal = exc.error if isinstance(exc, _Refusal) else exc
            return self._refuse(turn, record, refusal, op=op_for_log, recorded=recorded, name=name)
        except Exception:  # a bug must not become a write or leave the call unrecorded
            logger.exception("agent tool call failed")
            error = CanvasError("the server could not run this tool call; nothing was changed")
            error.code = "INTERNAL"
            return self._refuse(turn, record, error, op=op_for_log, recorded=False, name=name)

    def _schema(self, name: str) -> dict:
        schema = tools.tool_schema(name)
        if tools.is_write(name) and getattr(self, "mode", None) == AgentMode.PROPOSE:
            function = schema["function"]
            function["description"] += " On this canvas it becomes a proposal that a person approves."
        return schema


__all__ = ["AgentRunner", "agent_settings"]


def _user_message_id(turn) -> int | None:
    message = getattr(turn, "user_message", None)
    return message.pk if message is not None else None
