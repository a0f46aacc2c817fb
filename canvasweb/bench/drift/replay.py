"""Replay one scenario on a fresh canvas through the real write path, on a fixed clock with fixed ids.

* a throwaway canvas is created with `canvases.services.canvas_create`; an
  owner, an editor and a viewer are made members with `member_set`;
* every turn is stored as a chat `Message` (token count included) in one
  `Conversation` owned by the editor;
* the turn's canvas ops are mapped to real op dicts (scenario key -> a
  client-chosen UUID) and applied with `apply_operation` as the editor; ops
  that touch a secret node (or make one) are applied as the owner, because an
  editor may neither create nor see secret nodes;
* with `capture=True`, after each user message (and its canvas ops) the chat's
  fact capture runs (`chat.services._capture_suggestions`, the code behind
  `chat.started`'s suggestions) and each suggestion is accepted with
  `chat.services.suggestion_accept` at a free spot near the working viewport,
  except suggestions whose text is already on the canvas (a person would
  dismiss those; they are dismissed with `suggestion_dismiss`).

Determinism: the compiler breaks ties by node id and orders rows by
`created_at`, and time-aware ranking reads the clock. So, while a replay runs,
`uuid.uuid4` yields ids derived from the scenario id and a counter, and
`django.utils.timezone.now` reads a `ReplayClock`: one minute per turn from a
fixed start, or a turn's own optional `"at"` (ISO-8601), each call a
microsecond later than the previous one within a turn. Process-wide product
caches keyed by canvas id + revision + creation time are cleared before each
replay, since a rolled-back SQLite transaction reuses primary keys and the
fixed clock reuses the creation time.
"""

from __future__ import annotations

import contextlib
import hashlib
import math
import uuid
from collections import Counter
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any
from unittest import mock

from django.contrib.auth import get_user_model

from canvasweb.canvases import services as canvas_services
from canvasweb.canvases.actors import user_actor
from canvasweb.canvases.models import NodeKind
from canvasweb.chat import context_inputs
from canvasweb.chat import services as chat_services
from canvasweb.chat.context_inputs import TOKEN_CACHE, canvas_inputs
from canvasweb.chat.models import Message, MessageRole, MessageSource
from canvasweb.common.errors import CanvasError
from canvasweb.context.tokens import count_tokens
from canvasweb.context.types import NodeData

from ..scenarios import Scenario

USERNAMES = {"owner": "drift-bench-owner", "editor": "drift-bench-editor", "viewer": "drift-bench-viewer"}
_KIND_ALIASES = {
    "constraint": "requirement",
    "rule": "requirement",
    "规则": "requirement",
    "需求": "requirement",
    "goal": "requirement",
    "目标": "requirement",
    "credential": "config",
    "凭据": "config",
    "配置": "config",
    "proposal": "decision",
}
# The replay's clock starts here (a Monday morning) unless a turn says otherwise.
CLOCK_START = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
TURN_STEP = timedelta(minutes=1)


def parse_at(raw: str) -> datetime:
    """An ISO-8601 timestamp ("2026-03-02T10:15:00Z", "2026-03-02T10:15+08:00"); naive ones are UTC."""
    value = datetime.fromisoformat(raw.replace("Z", "+00:00").replace("z", "+00:00"))
    return value if value.tzinfo else value.replace(tzinfo=UTC)


def turn_times(turns: Sequence[dict], *, start: datetime = CLOCK_START) -> list[datetime]:
    """When each turn happens: its "at" if given, else one minute after the previous turn."""
    times: list[datetime] = []
    previous = start - TURN_STEP
    for turn in turns:
        at = turn.get("at")
        previous = parse_at(at) if isinstance(at, str) and at else previous + TURN_STEP
        times.append(previous)
    return times


class ReplayClock:
    """`timezone.now` during a replay: the current turn's time plus one microsecond per call."""

    def __init__(self, start: datetime) -> None:
        self.base = start
        self.ticks = 0

    def set(self, moment: datetime) -> None:
        self.base = moment
        self.ticks = 0

    def now(self) -> datetime:
        self.ticks += 1
        return self.base + timedelta(microseconds=self.ticks)


class SeededIds:
    """`uuid.uuid4` during a replay: version-4 UUIDs from sha256(seed:counter)."""

    def __init__(self, seed: str) -> None:
        self.seed = seed
        self.count = 0

    def __call__(self) -> uuid.UUID:
        self.count += 1
        digest = hashlib.sha256(f"{self.seed}:{self.count}".encode()).digest()
        return uuid.UUID(bytes=digest[:16], version=4)


def reset_product_caches() -> None:
    """Forget per-canvas caches of an earlier replay (same pk and creation time after a rollback)."""
    context_inputs.forget_all_canvases()


@contextlib.contextmanager
def fixed_time_and_ids(*, clock: ReplayClock, seed: str) -> Iterator[None]:
    with mock.patch("django.utils.timezone.now", clock.now), mock.patch("uuid.uuid4", SeededIds(seed)):
        yield


def node_kind_for(tags: Sequence[str]) -> str:
    kinds = set(NodeKind.values)
    for tag in tags:
        if tag in kinds:
            return tag
        if tag in _KIND_ALIASES:
            return _KIND_ALIASES[tag]
    return NodeKind.FACT.value


def _norm(text: str) -> str:
    return " ".join(text.lower().split())


def _squash(text: str) -> str:
    """Lower case without any whitespace: "2.5 %" and "2.5%" compare equal."""
    return "".join(text.lower().split())


def bench_users() -> dict[str, Any]:
    """One user per role (unusable passwords: nobody logs in; nothing to hash)."""
    User = get_user_model()
    users = {}
    for role, name in USERNAMES.items():
        user = User.objects.filter(username=name).first()
        if user is None:
            user = User.objects.create_user(username=name, password=None)
        users[role] = user
    return users


class CanvasReplay:
    """One scenario replayed on a fresh canvas through the write path (call inside a transaction)."""

    def __init__(
        self, scenario: Scenario, *, users: dict[str, Any], capture: bool, clock: ReplayClock
    ) -> None:
        self.scenario = scenario
        self.capture = capture
        self.users = users
        self.clock = clock
        self.times = turn_times(scenario.turns)
        clock.set(self.times[0] - TURN_STEP)  # the canvas is set up a minute before the first turn
        self.owner, self.editor, self.viewer = users["owner"], users["editor"], users["viewer"]
        mode = "capture" if capture else "plain"
        self.canvas = canvas_services.canvas_create(
            user=self.owner, name=f"drift {mode}: {scenario.id}"[:200]
        )
        owner = user_actor(self.owner)
        canvas_services.member_set(
            actor=owner, canvas_id=self.canvas.pk, username=self.editor.username, role="editor"
        )
        canvas_services.member_set(
            actor=owner, canvas_id=self.canvas.pk, username=self.viewer.username, role="viewer"
        )
        self.conversation = chat_services.conversation_create(
            user=self.editor, canvas_id=self.canvas.pk, title=scenario.id[:200]
        )
        self.ids: dict[str, uuid.UUID] = {}
        self.secret_keys: set[str] = set()
        # Nodes that an accepted suggestion superseded: old id -> new id.
        self.replaced: dict[uuid.UUID, uuid.UUID] = {}
        self.op_errors: list[dict[str, Any]] = []
        self.ops_applied = 0
        self.ops_as_owner = 0
        self.capture_stats: Counter[str] = Counter()
        self.capture_log: list[dict] = []
        self._spot = 0

    @property
    def canvas_id(self) -> int:
        return self.canvas.pk

    def user_for(self, role: str):
        return self.users[role]

    # ----------------------------------------------------------------- turns
    def probe_time(self, after_turn: int) -> datetime:
        """A probe's question comes 30 seconds after the turn it follows."""
        return self.times[after_turn] + timedelta(seconds=30)

    def play_turn(self, index: int, turn: dict, *, viewport: dict) -> Message:
        self.clock.set(self.times[index])
        user_turn = turn["role"] == "user"
        message = Message.objects.create(
            conversation=self.conversation,
            role=MessageRole.USER if user_turn else MessageRole.ASSISTANT,
            source=MessageSource.USER_INPUT if user_turn else MessageSource.ASSISTANT_REPLY,
            content=turn["content"],
            token_count=count_tokens(turn["content"], encoding=TOKEN_CACHE.encoding),
        )
        for op in turn.get("canvas_ops") or ():
            self._apply_scenario_op(index, op)
        if self.capture and user_turn:
            self._capture(index, message, viewport=viewport)
        return message

    # ---------------------------------------------------------- scenario ops
    def _head(self, key: str) -> uuid.UUID:
        node_id = self.ids[key]
        seen = set()
        while node_id in self.replaced and node_id not in seen:
            seen.add(node_id)
            node_id = self.replaced[node_id]
        return node_id

    def _body(self, spec: dict) -> dict:
        node_id = uuid.uuid4()
        self.ids[spec["key"]] = node_id
        tags = list(spec.get("tags") or [])
        sensitivity = spec.get("sensitivity", "public")
        if sensitivity == "secret":
            self.secret_keys.add(spec["key"])
        return {
            "id": str(node_id),
            "content": spec["content"],
            "kind": node_kind_for(tags),
            "x": float(spec["x"]),
            "y": float(spec["y"]),
            "weight": float(spec.get("weight", 1.0)),
            "tags": tags,
            "pinned": bool(spec.get("pinned", False)),
            "sensitivity": sensitivity,
        }

    def _map_op(self, op: dict) -> tuple[dict, bool]:
        """(op dict for apply_operation, apply as owner?)"""
        kind = op["op"]
        if kind == "add_node":
            body = self._body(op)
            return {"type": "node.create", "node": body}, body["sensitivity"] == "secret"
        if kind == "update_node":
            fields = {k: op[k] for k in ("content", "weight", "tags", "pinned", "sensitivity") if k in op}
            secret = op["key"] in self.secret_keys or fields.get("sensitivity") == "secret"
            if "sensitivity" in fields:
                (self.secret_keys.add if fields["sensitivity"] == "secret" else self.secret_keys.discard)(
                    op["key"]
                )
            return {"type": "node.update", "id": str(self._head(op["key"])), "fields": fields}, secret
        if kind == "move_node":
            return (
                {
                    "type": "node.move",
                    "id": str(self._head(op["key"])),
                    "x": float(op["x"]),
                    "y": float(op["y"]),
                },
                op["key"] in self.secret_keys,
            )
        if kind == "supersede":
            old = self._head(op["old"])
            secret = op["old"] in self.secret_keys
            body = self._body(op["new"])
            return {"type": "node.supersede", "id": str(old), "node": body}, secret or body[
                "sensitivity"
            ] == "secret"
        if kind == "link":
            edge = {
                "id": str(uuid.uuid4()),
                "source": str(self._head(op["source"])),
                "target": str(self._head(op["target"])),
                "relation": op.get("relation", "relates_to"),
            }
            return {"type": "edge.create", "edge": edge}, bool(
                {op["source"], op["target"]} & self.secret_keys
            )
        if kind == "archive":
            return {"type": "node.archive", "id": str(self._head(op["key"]))}, op["key"] in self.secret_keys
        raise ValueError(f"unknown op {kind!r}")

    def _apply_scenario_op(self, index: int, op: dict) -> None:
        try:
            raw, as_owner = self._map_op(op)
        except KeyError as exc:
            self.op_errors.append({"turn": index, "op": op.get("op"), "error": f"unknown key {exc}"})
            return
        actor = user_actor(self.owner if as_owner else self.editor)
        try:
            canvas_services.apply_operation(actor=actor, canvas_id=self.canvas_id, op=raw)
        except CanvasError as exc:
            self.op_errors.append({"turn": index, "op": op.get("op"), "error": f"{exc.code}: {exc.message}"})
            return
        self.ops_applied += 1
        self.ops_as_owner += int(as_owner)

    # --------------------------------------------------------------- capture
    def _capture(self, index: int, message: Message, *, viewport: dict) -> None:
        suggestions = chat_services._capture_suggestions(
            conversation=self.conversation, message=message, role="editor"
        )
        if not suggestions:
            return
        nodes, _, _ = canvas_inputs(canvas_id=self.canvas_id)
        # What the editor sees on the canvas right now (secret nodes are hidden from editors).
        on_canvas = [
            _norm(n.content)
            for n in nodes
            if not n.superseded_by and not n.archived and n.sensitivity != "secret"
        ]
        for s in suggestions:
            self.capture_stats["suggested"] += 1
            text, value = _norm(s["content"]), _squash(s.get("value") or "")
            entry = {
                "turn": index,
                "content": s["content"][:160],
                "value": s.get("value") or None,
                "supersedes": bool(s.get("supersede_node_id")),
            }
            self.capture_log.append(entry)
            # A person dismisses a suggestion that is already on the canvas (the same sentence, or the same
            # value of 3+ characters in a node they can see), unless it replaces a node that still holds an
            # older value: then accepting it is how the stale node gets superseded.
            duplicate = any(text in c or (len(value) >= 3 and value in _squash(c)) for c in on_canvas)
            if duplicate and not s.get("supersede_node_id"):
                chat_services.suggestion_dismiss(user=self.editor, suggestion_id=s["id"])
                self.capture_stats["dismissed_already_on_canvas"] += 1
                entry["decision"] = "dismissed: already on the canvas"
                continue
            x, y = self._free_spot(viewport, nodes)
            try:
                result = chat_services.suggestion_accept(user=self.editor, suggestion_id=s["id"], x=x, y=y)
            except CanvasError as exc:
                self.capture_stats["accept_errors"] += 1
                self.op_errors.append(
                    {"turn": index, "op": "suggestion_accept", "error": f"{exc.code}: {exc.message}"}
                )
                entry["decision"] = f"error: {exc.code}"
                if "already superseded" not in exc.message:
                    continue
                # Two suggestions of one message may target the same node; after the first one superseded
                # it, the person adds the second as a new node instead.
                try:
                    result = chat_services.suggestion_accept(
                        user=self.editor, suggestion_id=s["id"], x=x, y=y, supersede=False
                    )
                except CanvasError:
                    continue
                self.capture_stats["accepted_as_new_after_conflict"] += 1
                entry["decision"] += ", then accepted as a new node"
                s = {**s, "supersede_node_id": None}
            self.capture_stats["accepted"] += 1
            entry.setdefault("decision", "accepted")
            created = result["suggestion"]["created_node_id"]
            if s.get("supersede_node_id") and created:
                self.capture_stats["accepted_superseding"] += 1
                entry["decision"] = "accepted, superseding a node"
                self.replaced[uuid.UUID(s["supersede_node_id"])] = uuid.UUID(created)
            on_canvas.append(text)
            nodes = (*nodes, NodeData(id=created or "", content=s["content"], x=x, y=y))

    def _free_spot(self, viewport: dict, nodes: Sequence[NodeData]) -> tuple[float, float]:
        """Next free point on a golden-angle spiral around the working viewport (≥ 60 units from any node)."""
        vx, vy = float(viewport.get("x", 0.0)), float(viewport.get("y", 0.0))
        live = [(n.x, n.y) for n in nodes if not n.superseded_by and not n.archived]
        for k in range(self._spot, self._spot + 5000):
            r = 140.0 + 45.0 * math.sqrt(k)
            a = k * 2.399963229728653
            x, y = round(vx + r * math.cos(a), 1), round(vy + r * math.sin(a), 1)
            if all(math.hypot(x - nx, y - ny) >= 60.0 for nx, ny in live):
                self._spot = k + 1
                return x, y
        self._spot += 1
        return vx, vy
