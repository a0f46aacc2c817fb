"""REST API views (reference: docs/api.md). Thin: parse, call a service or selector, shape the answer.

Writes go through `canvasweb.canvases.services` only (the one write path);
reads through `canvasweb.canvases.selectors`. Errors are `CanvasError`s,
rendered as {"error": {code, message, field}} by common.api_errors.

By area: auth.py, canvases.py (canvases and members), sync.py (snapshot, ops, changes,
node history); common.py holds what they share.
"""

from __future__ import annotations

from .auth import CsrfView, LoginView, LogoutView, MeView, TokenView
from .canvases import CanvasDetailView, CanvasListView, MemberDetailView, MemberListView
from .sync import ChangesView, NodeHistoryView, OpsView, SnapshotView

__all__ = [
    "CanvasDetailView",
    "CanvasListView",
    "ChangesView",
    "CsrfView",
    "LoginView",
    "LogoutView",
    "MeView",
    "MemberDetailView",
    "MemberListView",
    "NodeHistoryView",
    "OpsView",
    "SnapshotView",
    "TokenView",
]
