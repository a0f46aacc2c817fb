"""What a tool call leaves behind: the masked JSON result for the model, the AgentToolCall row,
the SecurityEvent of a refusal, and the `agent.action` event for the chat panel.

Node text in results is masked (credentials, values of secret nodes) exactly like the compiled
prompt, and node ids become handles.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from canvasweb.common.errors import CanvasError
from canvasweb.context.redaction import mask_credentials
from canvasweb.context.text import escape_delimiters
from canvasweb.history.models import SecurityEvent

from .handles import HandleBook
from .models import AgentToolCall, ToolOutcome


class CallRecords(HandleBook):
    """Results for the model and the records of each call."""

    def _masker(self) -> Callable[[str], str]:
        if self._mask is None:
            secret_mask = self._secret_mask()
            self._mask = lambda text: secret_mask(mask_credentials(text)) if text else text
        return self._mask

    def _secret_mask(self) -> Callable[[str], str]:
        from canvasweb.chat.context_inputs import canvas_inputs

        return canvas_inputs(canvas_id=self.canvas_id)[2].secret_masker

    def _result(self, payload: dict) -> str:
        """JSON for the model: node text masked like the prompt, delimiters defused."""
        mask = self._masker()
        text = json.dumps(_map_strings(payload, lambda s: mask(self._handle_text(s))), ensure_ascii=False)
        return escape_delimiters(text)

    def _refuse(
        self, turn, record: dict, error: CanvasError, *, op: dict | None, recorded: bool, name: str
    ) -> tuple[str, dict]:
        message = self._masker()(self._handle_text(error.message))
        if not recorded:
            SecurityEvent.objects.create(
                canvas_id_ref=self.canvas_id,
                user=self.user,
                actor_kind="agent",
                channel="agent",
                op_type=(op or {}).get("type") or f"agent.{record['tool']}"[:40],
                code=error.code[:20],
                reason=message,
                detail={
                    "tool": record["tool"],
                    "field": error.field,
                    "call_id": record["call_id"],
                    "round": record["round"],
                    "agent_run_id": self.run.run_id if self.run else None,
                    "message_id": turn.assistant_message.pk,
                },
                conversation_id=turn.conversation.pk,
            )
        self._log_call(record, outcome=ToolOutcome.REFUSED, op=op, code=error.code, reason=message)
        public = {"code": error.code, "message": message, "field": error.field}
        return (
            self._result({"ok": False, "error": public}),
            self._event(turn, record, "refused", error=public),
        )

    def _log_call(
        self,
        record: dict,
        *,
        outcome: str,
        op: dict | None = None,
        proposal=None,
        revision: int | None = None,
        code: str = "",
        reason: str = "",
    ) -> None:
        if self.run is None:  # no run (agent unavailable): the security event is the record
            return
        AgentToolCall.objects.create(
            run=self.run,
            canvas_id=self.canvas_id,
            user=self.user,
            conversation_id=self.run.conversation_id,
            message_id=self.run.message_id,
            round=record["round"],
            call_id=record["call_id"],
            tool=record["tool"],
            arguments=record["arguments"],
            op=op,
            outcome=outcome,
            code=code[:20],
            reason=reason,
            proposal=proposal,
            revision=revision,
        )

    def _event(
        self,
        turn,
        record: dict,
        outcome: str,
        *,
        error: dict | None = None,
        proposal_id: int | None = None,
        revision: int | None = None,
        dismissed_suggestion_ids: list[int] | None = None,
    ) -> dict:
        # dismissed_suggestion_ids: captured suggestions of this message offering the same change (only one shows).
        return {
            "type": "agent.action",
            "conversation_id": turn.conversation.pk,
            "message_id": turn.assistant_message.pk,
            "round": record["round"],
            "call_id": record["call_id"],
            "tool": record["tool"],
            "outcome": outcome,
            "error": error,
            "proposal_id": proposal_id,
            "revision": revision,
            "dismissed_suggestion_ids": dismissed_suggestion_ids or [],
        }


def _map_strings(value: Any, func: Callable[[str], str]) -> Any:
    if isinstance(value, str):
        return func(value)
    if isinstance(value, list):
        return [_map_strings(v, func) for v in value]
    if isinstance(value, dict):
        return {k: _map_strings(v, func) for k, v in value.items()}
    return value
