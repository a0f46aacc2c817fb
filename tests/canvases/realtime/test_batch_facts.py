"""A commit's facts (consecutive revisions, membership changes, canvas deleted) are worked out once per
commit, not per socket (realtime/fanout.py `batch_facts`); the frames each socket gets are unchanged:
sockets of one audience get the same text, a viewer the filtered one."""

from __future__ import annotations

import itertools
import json
import uuid

import pytest
from channels.layers import get_channel_layer

from canvasweb.canvases.realtime import fanout, local_fanout
from canvasweb.canvases.realtime.fanout import batch_facts, facts_of

from .test_consumer import channel_layer, join, setup_canvas
from .test_fanout import _event

__all__ = ["channel_layer"]

pytestmark = pytest.mark.django_db(transaction=True)


def _member_event(revision: int, user_id: str) -> dict:
    change = {"entity": "member", "action": "updated", "id": user_id, "fields": ["role"], "data": {}}
    return {"type": "change", "revision": revision, "client_op_id": None, "changes": [change]}


def _deleted_event(revision: int) -> dict:
    change = {"entity": "canvas", "action": "deleted", "id": "1", "fields": [], "data": {}}
    return {"type": "change", "revision": revision, "client_op_id": None, "changes": [change]}


def _old_check(event: dict, user_id: str) -> bool:
    """What each socket computed per event before (SyncHandlers._membership_changed)."""
    return any(c["entity"] == "member" and c["id"] == user_id for c in event["changes"]) or any(
        c["entity"] == "canvas" and c["action"] == "deleted" for c in event["changes"]
    )


def test_the_facts_answer_what_each_socket_asked_of_every_event():
    events = [_event(5, "a"), _member_event(6, "7"), _event(7, "b"), _deleted_event(8)]
    for run in itertools.chain.from_iterable(
        itertools.combinations(events, n) for n in range(1, len(events) + 1)
    ):
        run = list(run)
        facts = facts_of(run)
        for user_id in ("7", "8"):
            assert facts.concerns(user_id) == any(_old_check(e, user_id) for e in run)
        revisions = [e["revision"] for e in run]
        assert facts.consecutive == (revisions == list(range(revisions[0], revisions[0] + len(run))))


def test_the_facts_of_a_commit_are_worked_out_once(monkeypatch):
    calls = []
    original = fanout.facts_of
    monkeypatch.setattr(fanout, "facts_of", lambda events: calls.append(len(events)) or original(events))
    events = [_event(1, "a"), _member_event(2, "3")]
    batch = uuid.uuid4().hex
    first = batch_facts(events, key=(batch, -1))
    assert batch_facts(events, key=(batch, -1)) is first and calls == [2]
    assert batch_facts(events[:1], key=(batch, 0)).members == frozenset() and calls == [2, 1]
    assert batch_facts(events, key=None) == first and calls == [2, 1, 2]  # no batch id: not cached


async def _next_changes(ws) -> str:
    while True:
        text = await ws.receive_from(timeout=2)
        if json.loads(text)["type"] == "changes":
            return text


async def test_one_audience_gets_the_same_frame_and_a_viewer_the_filtered_one(channel_layer, monkeypatch):
    calls = []
    original = fanout.facts_of
    monkeypatch.setattr(fanout, "facts_of", lambda events: calls.append(len(events)) or original(events))
    canvas, _users, tokens = await setup_canvas()
    alice, _, state = await join(canvas.pk, tokens["alice"])
    bob1, _, _ = await join(canvas.pk, tokens["bob"])
    bob2, _, _ = await join(canvas.pk, tokens["bob"])
    vic, _, _ = await join(canvas.pk, tokens["vic"])
    relay = local_fanout.local_relay(get_channel_layer(), canvas.pk)
    assert relay is not None and len(relay.inboxes) == 4
    start = state["revision"] + 1
    # Each event: a node everyone sees and one only the owner sees ("只给主人").
    events = [_event(start, "公开的卡片"), _event(start + 1, "budget 9,400"), _event(start + 2, "第三张")]
    relay.deliver({"type": "canvas.changes", "events": events, "batch": uuid.uuid4().hex})
    owner_text, bob_texts, vic_text = (
        await _next_changes(alice),
        [await _next_changes(bob1), await _next_changes(bob2)],
        await _next_changes(vic),
    )
    assert bob_texts[0] == bob_texts[1]  # the same audience: the same bytes
    for text in (owner_text, vic_text, bob_texts[0]):
        frame = json.loads(text)
        assert (frame["from"], frame["to"]) == (start - 1, start + 2)
        assert [e["revision"] for e in frame["events"]] == [start, start + 1, start + 2]
    assert "只给主人" in owner_text and "只给主人" not in vic_text and "只给主人" not in bob_texts[0]
    assert "9,400" in vic_text and "公开的卡片" in vic_text
    assert [len(e["changes"]) for e in json.loads(vic_text)["events"]] == [1, 1, 1]
    assert [len(e["changes"]) for e in json.loads(owner_text)["events"]] == [2, 2, 2]
    assert calls == [3]  # four sockets, one commit: its facts worked out once
    for ws in (alice, bob1, bob2, vic):
        await ws.disconnect()
