"""Directed regressions for the sync bugs the fuzz and the fault runs found (each fixed in realtime/consumers.py).

Each scenario drives the real consumer on the simulated network (canvasweb.testing.sim) step by step,
so the exact interleaving that broke is replayed every time.
"""

from __future__ import annotations

import asyncio
import uuid

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator

from canvasweb.canvases import selectors, services
from canvasweb.canvases.actors import user_actor
from canvasweb.canvases.models import Canvas
from canvasweb.testing.sim import FuzzConfig
from canvasweb.testing.sim import sim_network as _sim_network
from canvasweb.testing.sync_client import document_diff

pytestmark = pytest.mark.django_db(transaction=True)


def sim_network(seed, roles):
    """A calm network: nothing is lost unless the scenario says so."""
    return _sim_network(seed, roles, config=FuzzConfig(clients=len(roles), layer_drop_probability=0.0))


@pytest.fixture(autouse=True)
def _fast(settings):
    settings.CANVASWEB = {**settings.CANVASWEB, "WS_OPS_PER_SECOND": 1_000_000}


async def drain(net, sockets=None) -> None:
    """Deliver everything (in a fixed order: up, layer, down) until quiet."""
    while True:
        moved = False
        for sim in net.clients:
            socket = sim.socket
            if socket is None or (sockets is not None and socket not in sockets):
                continue
            while socket.to_server:
                await socket.deliver_to_server()
                moved = True
            while socket.inbox:
                await socket.deliver_layer(net.rng, 0.0)
                moved = True
            while socket.to_client:
                await socket.deliver_to_client()
                moved = True
        if not moved:
            return


async def db_doc(canvas_id: int, role: str) -> dict:
    def read():
        canvas = Canvas.objects.get(pk=canvas_id)
        snap = selectors.canvas_snapshot(canvas=canvas, role=role)
        return {
            "revision": snap["revision"],
            "nodes": {n["id"]: n for n in snap["nodes"]},
            "edges": {e["id"]: e for e in snap["edges"]},
        }

    return await database_sync_to_async(read)()


async def assert_converged(net, sim, role: str) -> None:
    doc = await db_doc(net.canvas_id, role)
    assert sim.client.revision == doc["revision"], (sim.client.revision, doc["revision"])
    assert not document_diff(doc, sim.client.document()), document_diff(doc, sim.client.document())


def node(content="n", **extra) -> dict:
    return {
        "type": "node.create",
        "node": {"id": str(uuid.uuid4()), "content": content, "x": 0, "y": 0, **extra},
    }


async def test_op_sent_while_the_server_resyncs_is_still_answered():
    """Bug: after the server sent `resync` (role change) it answered ops with an error frame "send hello
    first" that carries no client_op_id, so the op stayed pending forever."""
    async with sim_network(1, ["owner", "editor"]) as net:
        owner, editor = net.clients
        for sim in net.clients:
            await net.connect(sim)
        await drain(net)
        cid = editor.client.submit(node("sent before the resync"))  # in flight, not yet delivered
        await database_sync_to_async(services.member_set)(
            actor=user_actor(owner.user), canvas_id=net.canvas_id, user_id=editor.user.pk, role="viewer"
        )
        # The consumer hears of the role change (and answers `resync`) before it reads the op.
        while editor.socket.inbox:
            await editor.socket.deliver_layer(net.rng, 0.0)
        assert editor.socket.to_client[-1]["type"] == "resync"
        await drain(net)
        assert editor.client.rejected.get(cid, {}).get("code") == "FORBIDDEN", (
            editor.client.errors,
            net.trace,
        )
        assert not editor.client.pending and not editor.client.errors
        assert editor.client.stats["resyncs"] == 1 and editor.client.role == "viewer"
        await assert_converged(net, editor, "viewer")


async def test_catch_up_across_your_own_role_change_is_a_snapshot():
    """Bug: an editor who reconnected after being demoted to viewer got `changes` on top of its editor
    state and kept the internal node it may no longer see."""
    async with sim_network(2, ["owner", "editor"]) as net:
        owner, editor = net.clients
        for sim in net.clients:
            await net.connect(sim)
        owner.client.submit(node("internal budget", sensitivity="internal"))
        await drain(net)
        assert len(editor.client.nodes) == 1
        await net.disconnect(editor)
        await database_sync_to_async(services.member_set)(
            actor=user_actor(owner.user), canvas_id=net.canvas_id, user_id=editor.user.pk, role="viewer"
        )
        owner.client.submit(node("public note"))
        await drain(net)
        await net.connect(editor)  # hello with its old revision
        await drain(net)
        assert editor.client.role == "viewer"
        assert [n["content"] for n in editor.client.nodes.values()] == ["public note"]
        await assert_converged(net, editor, "viewer")


async def test_a_lost_role_change_is_told_at_the_next_catch_up(settings):
    """Bug: when the broadcast of a viewer's promotion was lost, the client caught up at the next gap and
    got a snapshot for its new role, but nothing told it the role: it went on acting as a viewer."""
    settings.CANVASWEB = {**settings.CANVASWEB, "WS_REORDER_HOLD_MS": 0}  # forward the gap at once
    async with sim_network(7, ["owner", "viewer"]) as net:
        owner, member = net.clients
        for sim in net.clients:
            await net.connect(sim)
        await drain(net)
        assert member.client.role == "viewer"
        await database_sync_to_async(services.member_set)(
            actor=user_actor(owner.user), canvas_id=net.canvas_id, user_id=member.user.pk, role="editor"
        )
        assert member.socket.inbox
        member.socket.inbox.clear()  # the membership change is lost on the way
        owner.client.submit(node("after the promotion"))
        await drain(net)  # the next change shows a gap: the member catches up
        assert member.client.stats["resyncs"] == 1, member.client.stats
        assert member.client.role == "editor"
        await assert_converged(net, member, "editor")
        cid = member.client.submit(node("now an editor"))
        await drain(net)
        assert cid in member.client.acked and not member.client.anomalies


async def test_a_copy_in_flight_after_a_reject_is_a_new_attempt():
    """A reject leaves no receipt: a second copy of the op, sent before the first was answered, is judged
    on the role of its own time. Once the viewer is an editor it applies, and its ack is the outcome."""
    async with sim_network(8, ["owner", "viewer"]) as net:
        owner, member = net.clients
        for sim in net.clients:
            await net.connect(sim)
        await drain(net)
        cid = member.client.submit(node("written by a viewer"))
        member.client.resend(cid)  # a second copy, before any answer
        await member.socket.deliver_to_server()
        while member.socket.to_client:
            await member.socket.deliver_to_client()
        assert member.client.rejected[cid]["code"] == "FORBIDDEN"
        await database_sync_to_async(services.member_set)(
            actor=user_actor(owner.user), canvas_id=net.canvas_id, user_id=member.user.pk, role="editor"
        )
        while member.socket.inbox:  # the server hears of the promotion before the second copy
            await member.socket.deliver_layer(net.rng, 0.0)
        await drain(net)
        assert cid in member.client.acked and cid not in member.client.rejected
        assert member.client.stats["rejects_overturned"] == 1 and not member.client.anomalies
        await assert_converged(net, member, "editor")


async def test_noop_ack_is_not_taken_for_the_revision_it_names():
    """Bug: an op that changed nothing was acked with the current revision and no changes, `duplicate:
    false`; a client one revision behind applied it as that revision's (someone else's) change event and
    skipped the real one for good."""
    async with sim_network(3, ["owner", "editor"]) as net:
        owner, editor = net.clients
        for sim in net.clients:
            await net.connect(sim)
        op = node("shared")
        owner.client.submit(op)
        await drain(net)
        node_id = op["node"]["id"]
        # The owner moves the node; the editor's copy of that broadcast is still in its inbox...
        owner.client.submit({"type": "node.move", "id": node_id, "x": 500, "y": 600})
        await drain(net, sockets=[owner.socket])
        assert editor.socket.inbox
        # ...when the editor's no-op (content set to what it already is) reaches the server.
        cid = editor.client.submit({"type": "node.update", "id": node_id, "fields": {"content": "shared"}})
        await editor.socket.deliver_to_server()
        ack = editor.socket.to_client[-1]
        assert ack["type"] == "ack" and ack["client_op_id"] == cid and ack["changes"] == []
        assert ack["duplicate"] is True, ack
        await drain(net)
        assert editor.client.nodes[node_id]["x"] == 500
        await assert_converged(net, editor, "editor")


async def test_lost_last_broadcast_is_healed_by_the_sync_check():
    """The channel layer is at most once: if the last change before a quiet spell is lost, nothing would
    ever reveal the gap. The consumer's periodic sync check pushes it."""
    async with sim_network(4, ["owner", "editor"]) as net:
        owner, editor = net.clients
        for sim in net.clients:
            await net.connect(sim)
        await drain(net)
        owner.client.submit(node("the last word"))
        await drain(net, sockets=[owner.socket])
        editor.socket.inbox.clear()  # the broadcast is lost
        await drain(net)
        assert editor.client.revision < owner.client.revision and editor.client.settled
        await editor.socket.consumer.sync_check()
        await drain(net)
        await assert_converged(net, editor, "editor")


async def test_layer_outage_ops_still_ack_and_everyone_heals():
    """Redis down: connecting, ops and acks keep working from the database; broadcasts are lost; when
    the layer is back the sync check rejoins the group and pushes what was missed."""
    async with sim_network(5, ["owner", "editor"]) as net:
        owner, editor = net.clients
        await net.connect(owner)
        await drain(net)
        net.layer.down = True
        await net.connect(editor)  # group_add fails: the socket is accepted anyway
        assert editor.socket is not None
        await drain(net)
        cid = owner.client.submit(node("written during the outage"))
        await drain(net)
        assert cid in owner.client.acked
        assert editor.client.revision == owner.client.revision - 1  # the broadcast could not be sent
        net.layer.down = False
        net.layer.groups.clear()  # a restarted Redis has no memberships
        for sim in net.clients:
            await sim.socket.consumer.sync_check()
        await drain(net)
        await assert_converged(net, editor, "editor")
        owner.client.submit(node("after the outage"))  # live fan-out works again (group rejoined)
        await drain(net)
        await assert_converged(net, editor, "editor")


async def test_unhashable_message_type_is_a_bad_message_not_a_crash():
    async with sim_network(6, ["owner"]) as net:
        (owner,) = net.clients
        await net.connect(owner)
        await drain(net)
        for frame in ('{"type": []}', '{"type": {"a": 1}}', '{"type": 7}', '{"type": null}'):
            owner.socket.to_server.append(frame)
            await drain(net)
            assert owner.client.errors[-1]["code"] == "BAD_MESSAGE", owner.client.errors
        assert not owner.client.anomalies


@pytest.mark.parametrize("local_fanout", [True, False], ids=["relay", "member-per-socket"])
async def test_consumer_survives_a_channel_layer_outage(settings, local_fanout):
    """With the stock AsyncConsumer, a failing channel-layer receive ended the consumer and Daphne closed
    every socket with 1011; now the socket stays open and heals (real ASGI stack, FlakyLayer).

    With the process's relay (realtime/local_fanout.py) Bob, in the same process as Alice, gets her
    change straight from the committer even while the layer is down; without it only the sync check
    brings it. Either way the group is rejoined after the "restart"."""
    from django.contrib.auth import get_user_model
    from rest_framework.authtoken.models import Token

    from canvasweb.config.asgi import application
    from canvasweb.testing.flaky_layer import FlakyLayer

    FlakyLayer.reset()
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "canvasweb.testing.flaky_layer.FlakyLayer"}}
    settings.CANVASWEB = {**settings.CANVASWEB, "WS_SYNC_CHECK_SECONDS": 0.3, "WS_LOCAL_FANOUT": local_fanout}

    def setup():
        User = get_user_model()
        alice = User.objects.create_user(username="flaky-a", password="pass-12345")
        bob = User.objects.create_user(username="flaky-b", password="pass-12345")
        canvas = services.canvas_create(user=alice, name="flaky")
        services.member_set(actor=user_actor(alice), canvas_id=canvas.pk, user_id=bob.pk, role="editor")
        return canvas.pk, Token.objects.create(user=alice).key, Token.objects.create(user=bob).key

    canvas_id, token_a, token_b = await database_sync_to_async(setup)()

    async def join(token):
        ws = WebsocketCommunicator(
            application,
            f"/ws/canvases/{canvas_id}/",
            headers=[(b"origin", b"http://localhost"), (b"authorization", f"Token {token}".encode())],
        )
        assert (await ws.connect())[0]
        await ws.send_json_to({"type": "hello", "last_revision": None})
        assert (await ws.receive_json_from(timeout=5))["type"] == "welcome"
        snapshot = await ws.receive_json_from(timeout=5)
        return ws, snapshot["revision"]

    async def until(ws, predicate, timeout=5.0):
        async def loop():
            while True:
                message = await ws.receive_json_from(timeout=timeout)
                if predicate(message):
                    return message

        return await asyncio.wait_for(loop(), timeout)

    alice, start = await join(token_a)
    bob, _ = await join(token_b)
    FlakyLayer.go_down()
    await asyncio.sleep(0.2)
    await alice.send_json_to({"type": "op", "client_op_id": "during", "op": node("during the outage")})
    ack = await until(alice, lambda m: m.get("type") == "ack")
    assert ack["revision"] == start + 1
    await asyncio.sleep(0.3)
    FlakyLayer.down = False
    FlakyLayer.flush_groups()
    # The layer never delivered the broadcast: Bob has it from this process's relay, or else from his
    # consumer's sync check.
    healed = await until(
        bob,
        lambda m: m.get("type") in ("changes", "change") and (m.get("to") or m.get("revision")) >= start + 1,
        timeout=15,
    )
    assert healed
    # The sync check rejoined the group that the "restart" emptied: live fan-out works again. With the
    # relay the process is one member for both sockets, else each socket is one.
    group, members = f"canvas.{canvas_id}", 1 if local_fanout else 2
    for _ in range(100):
        if all(len(layer.groups.get(group, {})) == members for layer in FlakyLayer.instances):
            break
        await asyncio.sleep(0.05)
    assert all(len(layer.groups.get(group, {})) == members for layer in FlakyLayer.instances)
    await alice.send_json_to({"type": "op", "client_op_id": "after", "op": node("after")})
    # (Live as a `change`, or in a `changes` push if the sync check got there first: both are fine.)
    await until(
        bob,
        lambda m: (
            (m.get("type") == "change" and m["revision"] == start + 2)
            or (m.get("type") == "changes" and m["to"] >= start + 2)
        ),
        timeout=15,
    )
    assert FlakyLayer.failures > 0
    for ws in (alice, bob):
        await ws.disconnect()
    FlakyLayer.reset()
