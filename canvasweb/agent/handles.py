"""Handles: the model names nodes `n1`, `n2`, … and never sees a node id.

Only handles this turn issued (the compiled canvas block, search/read results, nodes the agent
created) resolve, and each is re-checked against the user's current role.
"""

from __future__ import annotations

import re

from canvasweb.canvases import permissions
from canvasweb.canvases.models import Node
from canvasweb.common.errors import NotFound

from . import tools
from .run_state import RunState

_UUID_RE = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")


class HandleBook(RunState):
    """The turn's handle ↔ node id map."""

    def _seed(self, handles: dict[str, str]) -> None:
        self.seeded = True
        for handle, node_id in handles.items():
            if tools.is_handle(handle):
                self.handles[handle] = str(node_id)
                self.by_id.setdefault(str(node_id), handle)
                self.next_handle = max(self.next_handle, int(handle[1:]) + 1)

    def _issue(self, node_id: str) -> str:
        handle = self.by_id.get(node_id)
        if handle is None:
            handle = f"n{self.next_handle}"
            self.next_handle += 1
            self.handles[handle] = node_id
            self.by_id[node_id] = handle
        return handle

    def _node(self, handle: str, *, role: str, field_name: str) -> Node:
        node_id = self.handles.get(handle)
        node = Node.objects.filter(pk=node_id, canvas_id=self.canvas_id).first() if node_id else None
        if node is None or not permissions.can_see(role, node.sensitivity):
            raise NotFound(
                f"unknown handle {handle}: use a handle shown in the canvas block or returned by "
                "search_nodes",
                field=field_name,
            )
        return node

    def _handle_text(self, text: str) -> str:
        """Node ids in messages become handles (or a neutral word): the model works with handles only."""
        return _UUID_RE.sub(lambda m: self.by_id.get(m.group(0).lower(), "a node"), text)
