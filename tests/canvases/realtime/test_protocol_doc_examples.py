"""The JSON examples in docs/protocol.md against real frames of the canvas socket.

Independent clients are written from the docs alone, so every server frame must have the keys its
documented example shows (no more, no fewer) with the same JSON types. An example object holding a
`"..."` key is abridged: only the keys it shows are checked there.
"""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.contrib.auth import get_user_model
from rest_framework.authtoken.models import Token

from canvasweb.canvases import services
from canvasweb.canvases.actors import user_actor
from canvasweb.config.asgi import application

pytestmark = pytest.mark.django_db(transaction=True)

PROTOCOL_MD = Path(__file__).resolve().parents[3] / "docs" / "protocol.md"
ABRIDGED = "..."


def doc_examples() -> dict[str, list[dict[str, Any]]]:
    """Every JSON object in the doc's ```json blocks, by `type` (blocks with placeholders are skipped)."""
    text = PROTOCOL_MD.read_text(encoding="utf-8")
    found: dict[str, list[dict[str, Any]]] = {}
    decoder = json.JSONDecoder()
    for block in text.split("```json")[1:]:
        body, pos = block.split("```", 1)[0], 0
        while True:
            while pos < len(body) and body[pos].isspace():
                pos += 1
            if pos >= len(body):
                break
            try:
                obj, pos = decoder.raw_decode(body, pos)
            except json.JSONDecodeError:
                break  # e.g. "changes": [ ... ]: not JSON, not checked
            if isinstance(obj, dict) and isinstance(obj.get("type"), str):
                found.setdefault(obj["type"], []).append(obj)
    return found


def json_kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "number"
    return type(value).__name__


def shape_mismatches(doc: Any, real: Any, path: str = "$") -> list[str]:
    if doc is None or real is None:
        return []  # nullable fields: the example may show either
    if json_kind(doc) != json_kind(real):
        return [f"{path}: doc {json_kind(doc)}, server {json_kind(real)}"]
    problems: list[str] = []
    if isinstance(doc, dict):
        shown = set(doc) - {ABRIDGED}
        if ABRIDGED in doc:
            missing, extra = shown - set(real), set()
        else:
            missing, extra = shown - set(real), set(real) - shown
        problems += [f"{path}.{k}: in the doc, not sent" for k in sorted(missing)]
        problems += [f"{path}.{k}: sent, not in the doc" for k in sorted(extra)]
        for key in shown & set(real):
            problems += shape_mismatches(doc[key], real[key], f"{path}.{key}")
    elif isinstance(doc, list) and doc and real:
        problems += shape_mismatches(doc[0], real[0], f"{path}[0]")
    return problems


@database_sync_to_async
def setup():
    User = get_user_model()
    alice = User.objects.create_user(username="alice", password="pass-12345")
    bob = User.objects.create_user(username="bob", password="pass-12345")
    canvas = services.canvas_create(user=alice, name="协议示例 canvas")
    owner = user_actor(alice)
    services.member_set(actor=owner, canvas_id=canvas.pk, username="bob", role="editor")
    first, second = str(uuid.uuid4()), str(uuid.uuid4())
    services.apply_operation(
        actor=owner,
        canvas_id=canvas.pk,
        op={
            "type": "batch",
            "ops": [
                {"type": "node.create", "node": {"id": first, "content": "缓存端口 6381", "x": 0, "y": 0}},
                {"type": "node.create", "node": {"id": second, "content": "queue host", "x": 90, "y": 0}},
                {
                    "type": "edge.create",
                    "edge": {"source": second, "target": first, "relation": "depends_on"},
                },
            ],
        },
    )
    tokens = {u.username: Token.objects.create(user=u).key for u in (alice, bob)}
    return canvas, first, tokens


async def connect(canvas_id: int, token: str) -> WebsocketCommunicator:
    ws = WebsocketCommunicator(
        application,
        f"/ws/canvases/{canvas_id}/",
        headers=[(b"origin", b"http://localhost"), (b"authorization", f"Token {token}".encode())],
    )
    connected, _ = await ws.connect()
    assert connected
    return ws


async def next_of(ws: WebsocketCommunicator, wanted: str) -> dict[str, Any]:
    while True:
        frame = await ws.receive_json_from(timeout=3)
        if frame["type"] == wanted:
            return frame


async def test_server_frames_have_the_shapes_of_the_protocol_examples(settings):
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    examples = doc_examples()
    canvas, node_id, tokens = await setup()
    alice = await connect(canvas.pk, tokens["alice"])
    await alice.send_json_to({"type": "hello", "last_revision": None})
    real: dict[str, list[dict[str, Any]]] = {"welcome": [await next_of(alice, "welcome")]}
    real["snapshot"] = [await next_of(alice, "snapshot")]
    revision = real["snapshot"][0]["revision"]

    bob = await connect(canvas.pk, tokens["bob"])
    await bob.send_json_to({"type": "hello", "last_revision": revision})
    await next_of(bob, "welcome")
    await next_of(bob, "changes")
    presence = examples["presence"][0]  # the client → server example, sent verbatim but for the node id
    await alice.send_json_to(
        {**presence, "editing": node_id, "dragging": {**presence["dragging"], "id": node_id}}
    )
    real["presence"] = [await next_of(bob, "presence")]

    await alice.send_json_to({"type": "ping"})
    real["pong"] = [await next_of(alice, "pong")]
    await alice.send_to(text_data="not json {")
    real["error"] = [await next_of(alice, "error")]

    move = {"type": "node.move", "id": node_id, "x": 120.5, "y": -40}
    await alice.send_json_to({"type": "op", "client_op_id": "doc-0001", "op": move})
    ack = await next_of(alice, "ack")
    real["change"] = [await next_of(alice, "change")]
    await alice.send_json_to({"type": "op", "client_op_id": "doc-0002", "op": {**move, "x": 1e7}})
    invalid = await next_of(alice, "reject")
    update = {"type": "node.update", "id": node_id, "fields": {"content": "缓存端口 6382"}}
    await bob.send_json_to({"type": "op", "client_op_id": "doc-b", "op": update})
    await next_of(bob, "ack")
    stale = {**update, "base_version": 1, "fields": {"content": "缓存端口 6383"}}
    await alice.send_json_to({"type": "op", "client_op_id": "doc-0003", "op": stale})
    conflict = await next_of(alice, "reject")
    real["reject"] = [invalid, conflict]
    await alice.send_json_to({"type": "catch_up", "since": revision})
    real["changes"] = [await next_of(alice, "changes")]
    await alice.disconnect()
    await bob.disconnect()

    assert ack["changes"] == real["change"][0]["changes"]
    assert conflict["error"]["code"] == "CONFLICT"
    # The client → server presence example comes first in the doc; the relayed one is the last.
    checks = {
        "welcome": (examples["welcome"][0], real["welcome"][0]),
        "snapshot": (examples["snapshot"][0], real["snapshot"][0]),
        "presence": (examples["presence"][-1], real["presence"][0]),
        "pong": ({"type": "pong"}, real["pong"][0]),
        "error": (examples["error"][0], real["error"][0]),
        "change": (examples["change"][0], real["change"][0]),
        "reject INVALID": (examples["reject"][0], invalid),
        "reject CONFLICT": (examples["reject"][1], conflict),
        "changes": (examples["changes"][0], real["changes"][0]),
    }
    problems = [f"{name}: {p}" for name, (doc, frame) in checks.items() for p in shape_mismatches(doc, frame)]
    assert problems == []
    # The examples quoted literally are what the server sends.
    assert real["error"][0] == examples["error"][0]
    assert invalid["error"] == {**examples["reject"][0]["error"]}
    # Catch-up sends exactly the live event (actor included).
    live = real["change"][0]
    caught_up = next(e for e in real["changes"][0]["events"] if e["revision"] == live["revision"])
    assert caught_up == live
