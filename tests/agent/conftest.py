"""Helpers for the agent tests: canvases with planted content, prepared chat turns, direct runner calls."""

from __future__ import annotations

import json

import pytest
from django.db.models import Max

from canvasweb.agent.runner import AgentRunner
from canvasweb.canvases import services
from canvasweb.canvases.actors import user_actor
from canvasweb.canvases.models import Canvas, Edge, Node
from canvasweb.chat import services as chat_services
from canvasweb.history.models import ChangeLogEntry, SecurityEvent

VIEWPORT = {"x": 0, "y": 0, "zoom": 1, "width": 1600, "height": 1000}


def create_node(user, canvas_id, content, *, x=0.0, y=0.0, **fields) -> str:
    result = services.apply_operation(
        actor=user_actor(user),
        canvas_id=canvas_id,
        op={"type": "node.create", "node": {"content": content, "x": x, "y": y, **fields}},
    )
    return result.changes[0]["id"]


def create_edge(user, canvas_id, source, target, relation="relates_to", label="") -> str:
    result = services.apply_operation(
        actor=user_actor(user),
        canvas_id=canvas_id,
        op={
            "type": "edge.create",
            "edge": {"source": source, "target": target, "relation": relation, "label": label},
        },
    )
    return result.changes[0]["id"]


def set_policy(user, canvas_id, **policy) -> None:
    services.canvas_update(actor=user_actor(user), canvas_id=canvas_id, agent_policy=policy)


def prepare_turn(user, canvas_id, text="help me with the canvas", viewport=None, conversation_id=None):
    return chat_services.turn_prepare(
        user=user,
        canvas_id=canvas_id,
        text=text,
        viewport=viewport or VIEWPORT,
        conversation_id=conversation_id,
    )


def call(name, arguments, call_id=None) -> dict:
    return {
        "id": call_id,
        "name": name,
        "arguments": arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False),
    }


def run_calls(user, canvas_id, calls, *, turn=None, runner=None, round_number=1):
    """Run tool calls through AgentRunner exactly as a chat turn would (same validation and write path)."""
    turn = turn or prepare_turn(user, canvas_id)
    runner = runner or AgentRunner.for_user(user=user, canvas_id=canvas_id)
    runner.tools_offered()
    messages, events = runner.execute_sync(turn=turn, calls=calls, round_number=round_number)
    return [json.loads(m["content"]) for m in messages], events, runner, turn


def handle_of(turn, node_id) -> str:
    return next(h for h, nid in turn.handles.items() if nid == str(node_id))


def canvas_state(canvas_ids=None) -> dict:
    """Everything the agent could change, for before/after comparisons."""
    nodes = Node.objects.all() if canvas_ids is None else Node.objects.filter(canvas_id__in=canvas_ids)
    edges = Edge.objects.all() if canvas_ids is None else Edge.objects.filter(canvas_id__in=canvas_ids)
    return {
        "nodes": {str(n["id"]): n for n in nodes.values()},
        "edges": {str(e["id"]): e for e in edges.values()},
        "log": ChangeLogEntry.objects.count(),
        "last_log": ChangeLogEntry.objects.aggregate(m=Max("id"))["m"] or 0,
        "revisions": dict(Canvas.objects.values_list("id", "revision")),
        "security": SecurityEvent.objects.count(),
    }


@pytest.fixture
def seeded(canvas, alice, bob, vic):
    """The shared canvas with a typical mix: anchors, tagged and untagged nodes, internal and secret ones."""
    cid = canvas.pk
    ids = {
        "redis": create_node(alice, cid, "Cache: Redis 7 for sessions", x=10, y=10, kind="decision"),
        "anchor": create_node(
            alice, cid, "Goal: ship the launch plan by Friday", x=50, y=60, pinned=True, kind="requirement"
        ),
        "tagged": create_node(
            alice, cid, "Open question: which region?", x=120, y=40, kind="question", tags=["agent-writable"]
        ),
        "internal": create_node(alice, cid, "Budget is 40k EUR", x=200, y=80, sensitivity="internal"),
        "secret": create_node(
            alice,
            cid,
            "prod db password: Hunter2-Canary-77 and key sk-CANARYsecret0123456789abcd",
            x=30,
            y=150,
            sensitivity="secret",
        ),
    }
    ids["edge"] = create_edge(alice, cid, ids["tagged"], ids["redis"], "depends_on", "needs cache")
    canvas.refresh_from_db()
    return canvas, ids
