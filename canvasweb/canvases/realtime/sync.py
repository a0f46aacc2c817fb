"""Keeping one canvas socket in sync: hello and catch-up, incoming change events, the sync check.

Every socket tracks `synced_revision`, the last revision it sent; it answers hello with a snapshot
or the missed changes, forwards each later change filtered for its role, asks for a resync when
the role or visibility changed, and heals on its own every WS_SYNC_CHECK_SECONDS
(docs/protocol.md, docs/reliability.md).
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from typing import Any

from channels.db import database_sync_to_async

from canvasweb.canvases import selectors
from canvasweb.common.config import canvasweb_config
from canvasweb.common.errors import BadMessage, CanvasError

from . import daphne_guards
from .fanout import batch_facts, change_frame, changes_frames
from .socket_base import CLOSE_CANVAS_DELETED, CLOSE_MEMBERSHIP_REVOKED, CanvasSocket, config_int

logger = logging.getLogger(__name__)

PROTOCOL_VERSION = 1


def reorder_hold_seconds() -> float:
    """How long a socket holds a change that overtook an earlier revision (0 = forward at once)."""
    return float(canvasweb_config().get("WS_REORDER_HOLD_MS", 50)) / 1000


def batch_frames() -> bool:
    """Whether a commit of several revisions goes out as one `changes` frame (else one `change` each)."""
    return bool(canvasweb_config().get("WS_BATCH_FRAMES", True))


def sync_check_seconds() -> float:
    """How often each socket rejoins its group and checks it has not missed a revision (0 = never).

    See docs/reliability.md: the channel layer delivers at most once and loses group
    memberships when Redis restarts, so every connection heals itself on this period.
    """
    value = canvasweb_config().get("WS_SYNC_CHECK_SECONDS")
    if value is None:
        value = float(daphne_guards.env_number("CANVASWEB_WS_SYNC_CHECK_SECONDS", 5.0))
    return float(value)


class SyncHandlers(CanvasSocket):
    """hello, catch_up, the change events from the layer, and the periodic sync check."""

    async def handle_hello(self, message: dict[str, Any]) -> None:
        last = message.get("last_revision")
        if last is not None and (
            isinstance(last, bool) or not isinstance(last, int) or not 0 <= last < 2**53
        ):
            raise BadMessage("last_revision must be null or a non-negative integer", field="last_revision")
        self.hello_seen = True
        self.welcomed = False
        state = await database_sync_to_async(self._load_state)(since=last)
        if state is None:
            await self.close(code=CLOSE_MEMBERSHIP_REVOKED)
            return
        await self.send_json(
            {
                "type": "welcome",
                "protocol": PROTOCOL_VERSION,
                "canvas": state["canvas"],
                "user": {"id": self.user.pk, "username": self.user.get_username()},
                "role": self.role,
                "connection_id": self.connection_id,
            }
        )
        await self._send_state(state)
        self.welcomed = True
        try:
            await self.channel_layer.group_send(
                self.group,
                {
                    "type": "presence.query",
                    "reply_to": self.channel_name,
                    "connection_id": self.connection_id,
                },
            )
        except Exception:  # presence is a nicety; the layer may be down
            logger.warning("presence query failed on canvas %s", self.canvas_id, exc_info=True)

    async def handle_catch_up(self, message: dict[str, Any]) -> None:
        since = message.get("since")
        if isinstance(since, bool) or not isinstance(since, int) or not 0 <= since < 2**53:
            raise BadMessage("since must be a non-negative integer", field="since")
        role_before = self.role
        state = await database_sync_to_async(self._load_state)(since=since)
        if state is None:
            await self.close(code=CLOSE_MEMBERSHIP_REVOKED)
            return
        if self.role != role_before:
            # The membership change was lost on the way (at-most-once delivery): the client must learn
            # its new role from a welcome, not keep acting on the old one with the new role's snapshot.
            await self._resync_for_new_role()
            return
        await self._send_state(state)

    async def canvas_change(self, message: dict[str, Any], *, key: tuple[str, int] | None = None) -> None:
        event = message["event"]
        await self.acks_first()
        facts = batch_facts([event], key=key)
        if facts.concerns(str(self.user.pk)):
            role = await database_sync_to_async(selectors.user_role)(user=self.user, canvas_id=self.canvas_id)
            if role is None:
                await self.close(
                    code=CLOSE_CANVAS_DELETED if facts.canvas_deleted else CLOSE_MEMBERSHIP_REVOKED
                )
                return
            if role != self.role:
                self.role = role
                if self.synced_revision is not None:
                    await self._resync_for_new_role()
                return
        self.last_event_at = time.monotonic()
        if self.synced_revision is None or event["revision"] <= self.synced_revision:
            return  # before hello (the hello answer will include it) or already sent
        if event["revision"] > self.synced_revision + 1 and reorder_hold_seconds() > 0:
            # Two server processes commit a canvas in turn and broadcast after their commits, so a later
            # revision can arrive first. Hold it briefly for the one before: forwarded now, the earlier one
            # would be skipped and the client would have to catch up (a database read per socket).
            self._held[event["revision"]] = (event, key)
            if self._held_release is None or self._held_release.done():
                self._held_release = asyncio.ensure_future(self._release_held(reorder_hold_seconds()))
            return
        await self._forward_change(event, key)
        await self._forward_held(in_order_only=True)
        if not self._held and self._held_release is not None:
            self._held_release.cancel()  # nothing left to wait for (it waits outside the dispatch lock)
            self._held_release = None

    async def _forward_change(self, event: dict[str, Any], key: tuple[str, int] | None) -> None:
        text, needs_resync = change_frame(event, level=self._level(), key=key)
        if needs_resync or text is None:
            await self.send_json({"type": "resync", "reason": "visibility changed"})
            self.synced_revision = None
            self._held.clear()
            return
        self.synced_revision = event["revision"]
        await self.send(text_data=text)

    async def _forward_held(self, *, in_order_only: bool) -> None:
        """Send held revisions: those that follow on now (`in_order_only`), or all, gaps and all."""
        while self._held and self.synced_revision is not None:
            for stale in [r for r in self._held if r <= self.synced_revision]:
                del self._held[stale]
            following = self.synced_revision + 1
            if following not in self._held and (in_order_only or not self._held):
                break
            revision = following if following in self._held else min(self._held)
            await self._forward_change(*self._held.pop(revision))
        if self.synced_revision is None:
            self._held.clear()

    async def _release_held(self, after: float) -> None:
        # The revision before never came (lost, or later than the hold): send what is held; the client
        # sees the gap and catches up (docs/protocol.md).
        await asyncio.sleep(after)
        async with self._dispatch_lock:
            await self._forward_held(in_order_only=False)

    async def canvas_changes(self, message: dict[str, Any]) -> None:
        # One layer message per group commit (realtime/committer.py). Its revisions go out as one
        # `changes` frame (one `change` frame when it holds one), encoded once per role level in this
        # process (realtime/fanout.py).
        batch, events = message.get("batch"), message["events"]
        await self.acks_first()
        facts = batch_facts(events, key=(batch, -1) if isinstance(batch, str) else None)
        if (
            not isinstance(batch, str)
            or len(events) < 2
            or not batch_frames()
            or not facts.consecutive
            or facts.concerns(str(self.user.pk))
        ):
            for index, event in enumerate(events):
                await self.canvas_change(
                    {"type": "canvas.change", "event": event},
                    key=(batch, index) if isinstance(batch, str) else None,
                )
            return
        self.last_event_at = time.monotonic()
        if self.synced_revision is None:
            return  # before hello: the hello answer will include them
        start = next((i for i, e in enumerate(events) if e["revision"] > self.synced_revision), None)
        if start is None:
            return  # already sent
        if events[start]["revision"] > self.synced_revision + 1 and reorder_hold_seconds() > 0:
            # Overtook an earlier commit (see canvas_change): held revision by revision like lone ones.
            for index in range(start, len(events)):
                await self.canvas_change(
                    {"type": "canvas.change", "event": events[index]}, key=(batch, index)
                )
            return
        frames, needs_resync = changes_frames(events, level=self._level(), batch=batch, start=start)
        if needs_resync:
            # Some revision changed what this role may see: revision by revision, up to the resync.
            for index in range(start, len(events)):
                if self.synced_revision is None:
                    break
                await self._forward_change(events[index], (batch, index))
            return
        self.synced_revision = events[-1]["revision"]
        for text in frames:
            await self.send(text_data=text)
        await self._forward_held(in_order_only=True)
        if not self._held and self._held_release is not None:
            self._held_release.cancel()
            self._held_release = None

    def _load_state(self, *, since: int | None, only_if_behind: bool = False) -> dict[str, Any] | None:
        """Snapshot or missed changes, read in one place (runs in a worker thread).

        None when the user is no longer a member. With `only_if_behind`, {"canvas", "role"}
        alone when the canvas is not past `since`.
        """
        try:
            canvas, role = selectors.canvas_for_member(user=self.user, canvas_id=self.canvas_id)
        except CanvasError:
            return None
        canvas_info = {"id": canvas.pk, "name": canvas.name, "revision": canvas.revision}
        if only_if_behind and (since is None or canvas.revision <= since or role != self.role):
            return {"canvas": canvas_info, "role": role}
        self.role = role
        too_far = (
            since is None
            or since > canvas.revision
            or canvas.revision - since > config_int("CATCH_UP_MAX_REVISIONS")
        )
        if not too_far and since is not None:
            # needs_resync covers a change of this user's own role in the range: start from a snapshot.
            changes = selectors.changes_since(canvas=canvas, role=role, since=since, user_id=self.user.pk)
            if not changes["needs_resync"] and not changes["has_more"]:
                return {"canvas": canvas_info, "changes": changes}
        return {"canvas": canvas_info, "snapshot": selectors.canvas_snapshot(canvas=canvas, role=role)}

    async def _maintenance_loop(self, interval: float) -> None:
        while True:
            await asyncio.sleep(interval * (0.75 + 0.5 * random.random()))
            try:
                async with self._dispatch_lock:
                    await self.sync_check(quiet_for=interval)
            except asyncio.CancelledError:
                raise
            except Exception:
                logger.warning("sync check failed on canvas %s", self.canvas_id, exc_info=True)

    async def sync_check(self, *, quiet_for: float = 0.0) -> None:
        """Self-healing, run every WS_SYNC_CHECK_SECONDS: rejoin the group (Redis may have lost it) and,
        if no change event arrived for `quiet_for` seconds, push any revision this socket missed.

        The channel layer delivers at most once; a lost broadcast is normally noticed by the client as a
        gap at the next change, but the last changes before a quiet spell would otherwise stay missing.
        """
        await self._join_group()
        if self.synced_revision is None or time.monotonic() - self.last_event_at < quiet_for:
            return
        since, role = self.synced_revision, self.role
        state = await database_sync_to_async(self._load_state)(since=since, only_if_behind=True)
        if state is None:
            await self.close(code=CLOSE_MEMBERSHIP_REVOKED)
            return
        if state.get("role", role) != role:
            self.role = state["role"]
            await self._resync_for_new_role()
            return
        if "snapshot" in state or "changes" in state:
            if self.synced_revision != since:  # pragma: no cover - guarded by the dispatch lock
                return
            await self._send_state(state)

    async def _resync_for_new_role(self) -> None:
        """The role changed: the client starts over with hello, and learns the role from welcome."""
        await self.send_json({"type": "resync", "reason": "your role changed"})
        self.synced_revision = None

    async def _send_state(self, state: dict[str, Any]) -> None:
        if "snapshot" in state:
            snapshot = state["snapshot"]
            self.synced_revision = snapshot["revision"]
            await self.send_json({"type": "snapshot", **snapshot})
        else:
            changes = state["changes"]
            self.synced_revision = max(self.synced_revision or 0, changes["to"])
            await self.send_json(
                {"type": "changes", "from": changes["from"], "to": changes["to"], "events": changes["events"]}
            )
