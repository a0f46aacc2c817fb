"""Group commit over the socket: ops of several sockets share transactions, acks and change frames stay per op."""

from __future__ import annotations

import asyncio
import threading
import uuid

import pytest
from channels.db import database_sync_to_async

from canvasweb.canvases import services
from canvasweb.canvases.realtime import committer
from canvasweb.history.audit import verify_chain
from tests.canvases.realtime import test_consumer
from tests.canvases.realtime.test_consumer import join, node_op, send_op, setup_canvas

# The same parametrized layer fixture (memory, and Redis when TEST_REDIS_URL is set).
channel_layer = test_consumer.channel_layer

pytestmark = pytest.mark.django_db(transaction=True)


async def _collect(ws, *, acks: int, changes=(), timeout: float = 5.0, frames=None):
    """Acks until `acks` arrived, and change events until every client_op_id in `changes` was seen
    (from `change` frames, and from the `changes` frames that carry a commit of several revisions).
    `frames`, a list, gets every change-bearing frame as it came."""
    got_acks, got_changes = [], []
    wanted = set(changes)
    while len(got_acks) < acks or not wanted <= {m.get("client_op_id") for m in got_changes}:
        message = await ws.receive_json_from(timeout=timeout)
        if message["type"] in ("ack", "reject"):
            got_acks.append(message)
        elif message["type"] in ("change", "changes"):
            got_changes.extend(message["events"] if message["type"] == "changes" else [message])
            if frames is not None:
                frames.append(message)
    return got_acks, [m for m in got_changes if m.get("client_op_id") in wanted]


async def test_ops_from_two_sockets_commit_in_shared_batches_with_per_op_acks(channel_layer):
    canvas, _users, tokens = await setup_canvas()
    alice, _, _ = await join(canvas.pk, tokens["alice"])
    bob, _, _ = await join(canvas.pk, tokens["bob"])
    a_node = (await send_op(alice, node_op("alice 的节点")))["changes"][0]["id"]
    b_node = (await send_op(bob, node_op("bob's node")))["changes"][0]["id"]
    unit = committer.committer_for(canvas.pk)
    batches_before, ops_before = unit.batches, unit.ops
    count = 12
    ids = {
        "alice": [f"a-{i}-{uuid.uuid4().hex[:6]}" for i in range(count)],
        "bob": [f"b-{i}-{uuid.uuid4().hex[:6]}" for i in range(count)],
    }
    for i in range(count):  # sent back to back, no waiting for acks
        await alice.send_json_to(
            {
                "type": "op",
                "client_op_id": ids["alice"][i],
                "op": {"type": "node.move", "id": a_node, "x": float(i + 1), "y": 0.0},
            }
        )
        await bob.send_json_to(
            {
                "type": "op",
                "client_op_id": ids["bob"][i],
                "op": {"type": "node.move", "id": b_node, "x": 0.0, "y": float(i + 1)},
            }
        )
    a_acks, a_changes = await _collect(alice, acks=count, changes=ids["bob"])
    b_acks, b_changes = await _collect(bob, acks=count, changes=ids["alice"])
    # Each socket's acks come in its own order, each op with its own revision.
    assert [m["client_op_id"] for m in a_acks] == ids["alice"]
    assert [m["client_op_id"] for m in b_acks] == ids["bob"]
    assert all(m["type"] == "ack" and not m["duplicate"] for m in a_acks + b_acks)
    revisions = sorted(m["revision"] for m in a_acks + b_acks)
    assert revisions == list(range(revisions[0], revisions[0] + 2 * count))
    # Every other socket hears every op as its own change event, in revision order.
    assert [m["client_op_id"] for m in a_changes] == ids["bob"]
    assert [m["client_op_id"] for m in b_changes] == ids["alice"]
    assert [m["revision"] for m in a_changes] == sorted(m["revision"] for m in a_changes)
    assert unit.ops - ops_before == 2 * count
    assert unit.batches - batches_before < 2 * count  # some ops shared a transaction
    report = await asyncio.to_thread(lambda: verify_chain(canvas_id=canvas.pk))
    assert report.ok
    for ws in (alice, bob):
        await ws.disconnect()


async def test_a_refused_op_in_a_batch_is_rejected_alone(channel_layer):
    canvas, _users, tokens = await setup_canvas()
    alice, _, _ = await join(canvas.pk, tokens["alice"])
    vic, _, _ = await join(canvas.pk, tokens["vic"])
    node = (await send_op(alice, node_op("shared")))["changes"][0]["id"]
    await alice.send_json_to(
        {"type": "op", "client_op_id": "ok-1", "op": {"type": "node.move", "id": node, "x": 5.0, "y": 5.0}}
    )
    await vic.send_json_to(
        {"type": "op", "client_op_id": "no-1", "op": {"type": "node.move", "id": node, "x": 9.0, "y": 9.0}}
    )
    await alice.send_json_to(
        {"type": "op", "client_op_id": "ok-2", "op": {"type": "node.move", "id": node, "x": 6.0, "y": 6.0}}
    )
    acks, _ = await _collect(alice, acks=2)
    assert [(m["type"], m["client_op_id"]) for m in acks] == [("ack", "ok-1"), ("ack", "ok-2")]
    while True:
        message = await vic.receive_json_from(timeout=5)
        if message.get("client_op_id") == "no-1" and message["type"] in ("ack", "reject"):
            break
    assert message["type"] == "reject" and message["error"]["code"] == "FORBIDDEN"
    for ws in (alice, vic):
        await ws.disconnect()


async def test_sockets_of_one_role_get_the_same_frames_and_other_roles_their_own(channel_layer):
    # The frames of a batch are encoded once per role level (realtime/fanout.py): two viewer sockets
    # get identical frames without the secret node; an owner's second socket gets it.
    canvas, _users, tokens = await setup_canvas()
    sender, _, _ = await join(canvas.pk, tokens["alice"])
    owner_too, _, _ = await join(canvas.pk, tokens["alice"])
    viewers = [(await join(canvas.pk, tokens["vic"]))[0] for _ in range(2)]
    ids = [f"r-{i}-{uuid.uuid4().hex[:6]}" for i in range(3)]
    contents = ["公开的第一条", "机密 secret plan", "公开的第三条"]
    for i, content in enumerate(contents):  # back to back: they share batches
        extra = {"sensitivity": "secret"} if i == 1 else {}
        await sender.send_json_to({"type": "op", "client_op_id": ids[i], "op": node_op(content, **extra)})
    await _collect(sender, acks=3)
    _, owner_frames = await _collect(owner_too, acks=0, changes=ids)
    viewer_frames = [(await _collect(ws, acks=0, changes=ids))[1] for ws in viewers]
    assert viewer_frames[0] == viewer_frames[1]
    seen_by_viewer = [[c["data"]["content"] for c in m["changes"]] for m in viewer_frames[0]]
    assert seen_by_viewer == [[contents[0]], [], [contents[2]]]
    assert [[c["data"]["content"] for c in m["changes"]] for m in owner_frames] == [[c] for c in contents]
    assert [m["revision"] for m in owner_frames] == [m["revision"] for m in viewer_frames[0]]
    for ws in (sender, owner_too, *viewers):
        await ws.disconnect()


async def _moves_from_two_sockets(canvas_pk, tokens, count):
    """Back-to-back moves from alice and bob; a third socket (another of alice's) listens."""
    alice, _, _ = await join(canvas_pk, tokens["alice"])
    bob, _, _ = await join(canvas_pk, tokens["bob"])
    listener, _, _ = await join(canvas_pk, tokens["alice"])
    nodes = [(await send_op(ws, node_op(f"节点 {ws is alice}")))["changes"][0]["id"] for ws in (alice, bob)]
    ids = []
    for i in range(count):
        for ws, node in zip((alice, bob), nodes, strict=True):
            cid = f"m-{i}-{uuid.uuid4().hex[:6]}"
            ids.append(cid)
            await ws.send_json_to(
                {"type": "op", "client_op_id": cid, "op": {"type": "node.move", "id": node, "x": i, "y": 1.5}}
            )
    return (alice, bob, listener), ids


async def test_a_commit_of_several_revisions_reaches_each_socket_as_one_changes_frame(channel_layer):
    canvas, _users, tokens = await setup_canvas()
    sockets, ids = await _moves_from_two_sockets(canvas.pk, tokens, 10)
    frames: list[dict] = []
    _, events = await _collect(sockets[2], acks=0, changes=ids, frames=frames)
    assert sorted(e["client_op_id"] for e in events) == sorted(ids)
    revisions = [e["revision"] for e in events]
    assert revisions == list(range(revisions[0], revisions[0] + len(ids)))  # in order, none twice
    batched = [f for f in frames if f["type"] == "changes"]
    assert batched, "back-to-back ops of two sockets should share a commit"
    for frame in batched:
        assert len(frame["events"]) >= 2
        assert [e["revision"] for e in frame["events"]] == list(range(frame["from"] + 1, frame["to"] + 1))
        assert all(e["type"] == "change" for e in frame["events"])
    for ws in sockets:
        await ws.disconnect()


async def test_with_batch_frames_off_every_revision_is_its_own_change_frame(channel_layer, settings):
    settings.CANVASWEB = {**settings.CANVASWEB, "WS_BATCH_FRAMES": False}
    canvas, _users, tokens = await setup_canvas()
    sockets, ids = await _moves_from_two_sockets(canvas.pk, tokens, 6)
    frames: list[dict] = []
    _, events = await _collect(sockets[2], acks=0, changes=ids, frames=frames)
    assert sorted(e["client_op_id"] for e in events) == sorted(ids)
    assert {f["type"] for f in frames} == {"change"}
    for ws in sockets:
        await ws.disconnect()


def _record_commit_threads(monkeypatch) -> list[str]:
    """The name of the thread each `apply_operations` call runs on, in call order."""
    threads: list[str] = []
    real = services.apply_operations

    def recording(**kwargs):
        threads.append(threading.current_thread().name)
        return real(**kwargs)

    monkeypatch.setattr(services, "apply_operations", recording)
    return threads


async def test_commits_run_on_their_own_thread_not_waiting_for_the_shared_database_thread(
    channel_layer, monkeypatch
):
    canvas, _users, tokens = await setup_canvas()
    alice, _, _ = await join(canvas.pk, tokens["alice"])
    threads = _record_commit_threads(monkeypatch)
    # Channels' shared database thread is busy (as with another socket's snapshot load): ops still commit.
    release = threading.Event()
    blocker = asyncio.ensure_future(database_sync_to_async(release.wait)(10))
    try:
        for i in range(3):
            ack = await send_op(alice, node_op(f"while the shared thread is busy {i}"))
            assert ack["type"] == "ack" and not ack["duplicate"]
        assert not blocker.done()
    finally:
        release.set()
        await blocker
    assert len(threads) == 3 and all(name.startswith("canvasweb-commit-") for name in threads)
    await alice.disconnect()


async def test_with_no_commit_threads_commits_run_on_the_shared_database_thread(
    channel_layer, settings, monkeypatch
):
    settings.CANVASWEB = {**settings.CANVASWEB, "GROUP_COMMIT_THREADS": 0}
    canvas, _users, tokens = await setup_canvas()
    alice, _, _ = await join(canvas.pk, tokens["alice"])
    threads = _record_commit_threads(monkeypatch)
    shared = await database_sync_to_async(lambda: threading.current_thread().name)()
    ack = await send_op(alice, node_op("on the shared thread"))
    assert ack["type"] == "ack"
    assert threads == [shared]
    await alice.disconnect()
