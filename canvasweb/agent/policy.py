"""The agent's rules on top of the canvas policy, checked before any write (docs/agent.md).

The tool was offered this turn; the user may still edit and the agent is on; per-turn and
per-user write caps; no writes to secret nodes, no credentials or secret values in what it
writes; and a dry run of the write path in a rolled-back transaction for `propose` mode.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

from django.db import transaction
from django.utils import timezone

from canvasweb.canvases import permissions
from canvasweb.canvases import services as canvas_services
from canvasweb.canvases.actors import Actor
from canvasweb.canvases.models import AgentMode, Canvas, Node
from canvasweb.common.errors import CanvasError, Forbidden, NotFound, RateLimited
from canvasweb.context.redaction import mask_credentials

from . import tools
from .models import AgentToolCall, ToolOutcome
from .records import CallRecords


class PolicyChecks(CallRecords):
    """The checks a call must pass before it writes or proposes."""

    def _check_offered(self, name: str) -> None:
        if name in self.offered:
            return
        if self.unavailable:
            raise (RateLimited if self.unavailable.startswith("rate limit") else Forbidden)(
                f"tools are not available in this turn: {self.unavailable}"
            )
        if tools.is_write(name):
            role = self.run.role if self.run else None
            if role is not None and not permissions.role_allows(role, "node.update"):
                raise Forbidden(
                    f"the agent acts for a {role}, who may only read this canvas; {name} is not available",
                    field="name",
                )
            raise Forbidden(f"{name} is not allowed by this canvas's agent policy", field="name")
        raise Forbidden(f"{name} was not offered in this turn", field="name")  # pragma: no cover

    def _current(self) -> tuple[Canvas, str]:
        """The canvas and the user's role now (they may have changed since the turn began)."""
        canvas, role = self._canvas_and_role_now()
        if canvas is None or role is None:
            raise NotFound("no such canvas", field="canvas_id")
        if not permissions.role_allows(role, "node.update"):
            raise Forbidden(f"the agent acts for a {role}, who may only read this canvas", field="name")
        if canvas.agent_mode == AgentMode.OFF:
            raise Forbidden("the agent is switched off on this canvas")
        return canvas, role

    def _check_write_budget(self) -> None:
        config = self.config
        if self.writes >= self.max_writes:
            raise RateLimited(
                f"at most {self.max_writes} writes per turn; this one was not made. "
                "Tell the user what is left to do."
            )
        since = timezone.now() - timedelta(seconds=config["RATE_WINDOW_SECONDS"])
        recent = AgentToolCall.objects.filter(
            user=self.user, created_at__gte=since, outcome__in=[ToolOutcome.APPLIED, ToolOutcome.PROPOSED]
        ).count()
        if recent >= config["MAX_WRITES_PER_WINDOW"]:
            raise RateLimited(
                f"rate limit: at most {config['MAX_WRITES_PER_WINDOW']} agent writes per "
                f"{config['RATE_WINDOW_SECONDS']} s for this user"
            )

    def _dry_run(self, actor: Actor, op: dict) -> CanvasError | None:
        """Would the write path accept this if a person approved it now? Nothing is kept either way."""

        class _Rollback(Exception):
            pass

        try:
            with transaction.atomic():
                canvas_services.apply_operation(
                    actor=replace(actor, approved_by=self.user), canvas_id=self.canvas_id, op=op
                )
                raise _Rollback
        except _Rollback:
            return None
        except CanvasError as exc:  # its security-log row was rolled back too; _refuse writes one
            return exc

    @staticmethod
    def _check_not_secret(node: Node, where: str) -> None:
        if node.sensitivity == "secret":
            raise Forbidden(
                "the agent may not change or link secret nodes (it cannot read them)", field=where
            )

    def _check_text(self, text: str, where: str) -> None:
        """Output filter: the agent never writes credentials or the values of secret nodes to the canvas."""
        if text and (mask_credentials(text) != text or self._secret_mask()(text) != text):
            raise Forbidden(
                "this text contains a credential or a secret value; the agent may not write "
                "credentials to the canvas",
                field=where,
            )

    def _check_tags(self, tags: list[str] | None) -> None:
        for index, tag in enumerate(tags or []):
            self._check_text(tag, f"tags[{index}]")
