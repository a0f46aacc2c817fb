"""What one agent turn keeps between its tool calls, and the agent settings.

`RunState` is the base of `AgentRunner` (runner.py): the turn's AgentRun row, the tools offered,
the handle book (handles.py) and the read/write counters the caps are checked against.
"""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings

from canvasweb.canvases.models import Canvas, Membership

from .models import AgentRun


def agent_settings() -> dict:
    defaults = {
        "ENABLED": True,
        "MAX_ROUNDS": 3,
        "MAX_WRITES_PER_TURN": 10,
        "MAX_READS_PER_TURN": 20,
        "MAX_CALLS_PER_ROUND": 20,
        "RATE_WINDOW_SECONDS": 3600,
        "MAX_TURNS_PER_WINDOW": 120,
        "MAX_WRITES_PER_WINDOW": 300,
        "SEARCH_LIMIT": 8,
        "READ_MAX_CHARS": 1500,
    }
    return {**defaults, **getattr(settings, "AGENT", {})}


class RunState:
    """What an AgentRunner keeps between the tool calls of one turn."""

    def __init__(self, *, user, canvas_id: int):
        config = agent_settings()
        self.user = user
        self.canvas_id = canvas_id
        self.config = config
        self.max_rounds: int = int(config["MAX_ROUNDS"])
        self.max_writes: int = int(config["MAX_WRITES_PER_TURN"])
        self.run: AgentRun | None = None
        self.offered: tuple[str, ...] = ()
        self.mode: str | None = None
        self._mask: Callable[[str], str] | None = None
        self.unavailable = ""  # why no tools were offered, if none were
        self.via = ""  # set by canvasweb.integrations: the client outside the page
        self.handles: dict[str, str] = {}
        self.by_id: dict[str, str] = {}
        self.next_handle = 1
        self.seeded = False
        self.writes = 0
        self.reads = 0

    def _role_now(self) -> str | None:
        """The user's role on the canvas now (it may have changed since the turn began)."""
        return (
            Membership.objects.filter(canvas_id=self.canvas_id, user=self.user)
            .values_list("role", flat=True)
            .first()
        )

    def _canvas_and_role_now(self) -> tuple[Canvas | None, str | None]:
        """The canvas (None once deleted) and the user's role on it now."""
        canvas = Canvas.objects.filter(pk=self.canvas_id, deleted_at__isnull=True).first()
        return canvas, self._role_now()
