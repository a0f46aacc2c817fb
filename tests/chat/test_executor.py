"""The compile executor: worker processes (round trip, a dying worker, the worker's canvas index), and inline.

The worker functions below live at module level: a call is sent to the worker by reference.
"""

from __future__ import annotations

import functools
import os
import signal

import pytest

from canvasweb.chat import context_inputs, executor, services
from canvasweb.chat.executor import CompileUnavailable
from canvasweb.context.selection import CanvasIndex, select_nodes
from canvasweb.context.types import Viewport
from tests.canvases.realtime.test_consumer import join, setup_canvas
from tests.conftest import node_op

pytestmark = pytest.mark.django_db(transaction=True)  # worker processes read committed rows only

QUESTIONS = ("渡口 ferry timetable", "warehouse shelf count")


def _die(test_pid: int) -> None:
    if os.getpid() == test_pid:  # never the test process itself
        raise RuntimeError("ran in the test process, not in a worker")
    os.kill(os.getpid(), signal.SIGKILL)


def _die_instead_of_preview(test_pid: int, **kwargs) -> None:
    _die(test_pid)


def _picks(index: CanvasIndex) -> list:
    return [
        [
            (c.node.id, c.reason)
            for c in select_nodes(
                index=index, viewport=Viewport(x=15, y=15), role=role, question=question
            ).candidates
        ]
        for role in ("viewer", "editor", "owner")
        for question in QUESTIONS
    ]


def _worker_view(canvas_id: int) -> dict:
    """What the worker's cached canvas holds (runs in the worker)."""
    state = context_inputs.canvas_state(canvas_id=canvas_id)
    return {
        "revision": state.revision,
        "nodes": state.nodes,
        "edges": state.edges,
        "picks": _picks(state.index),
        "hidden_viewer": set(state.hidden_ids("viewer")),
        "hidden_editor": set(state.hidden_ids("editor")),
        "stats": dict(context_inputs.STATS),
        "in_place": context_inputs.IN_PLACE_UPDATES,
        "pid": os.getpid(),
    }


@pytest.fixture
def processes(settings):
    settings.CANVASWEB = {**settings.CANVASWEB, "COMPILE_MODE": "process", "COMPILE_WORKERS": 1}
    executor.shutdown()
    yield
    executor.shutdown()


def test_a_call_round_trips_through_a_worker_process_on_the_same_database(processes, settings):
    from django.db import connection

    info = executor.run(executor.worker_info, key=3)
    assert info["pid"] != os.getpid()
    assert info["database"] == str(connection.settings_dict["NAME"])
    assert info["mode"] == "inline"  # a worker never starts workers of its own
    assert executor.run(executor.worker_info, key=8)["pid"] == info["pid"]  # the same worker, kept


def test_preview_in_a_worker_equals_the_preview_in_process(processes, canvas, alice, vic, apply, settings):
    for i, text in enumerate(
        ("渡口 ferry leaves at 07:40", "warehouse shelf count is 48", "内部：码头租金 3 万")
    ):
        apply(alice, node_op(text, x=10.0 * i, y=5.0, sensitivity="internal" if i == 2 else "public"))
    for user in (alice, vic):
        remote = executor.run(
            services.context_preview,
            user=user,
            canvas_id=canvas.pk,
            text="ferry 渡口",
            viewport=None,
            key=canvas.pk,
        )
        local = services.context_preview(user=user, canvas_id=canvas.pk, text="ferry 渡口", viewport=None)
        assert remote == local
    assert (
        any("码头" in str(item) for item in remote.values()) is False
    )  # vic's preview names no internal node


def test_a_dead_worker_gives_a_clean_error_and_a_new_worker(processes):
    first = executor.run(executor.worker_info)["pid"]
    with pytest.raises(CompileUnavailable) as caught:
        executor.run(_die, os.getpid())
    assert caught.value.as_dict()["code"] == "COMPILE_UNAVAILABLE"
    second = executor.run(executor.worker_info)["pid"]
    assert second != first


async def test_a_dead_worker_during_a_socket_preview_answers_with_an_error(processes, monkeypatch):
    canvas, _, tokens = await setup_canvas()
    ws, _, _ = await join(canvas.pk, tokens["bob"])
    try:
        monkeypatch.setattr(
            services, "context_preview", functools.partial(_die_instead_of_preview, os.getpid())
        )
        await ws.send_json_to({"type": "context.preview", "request_id": "dies", "text": "渡口"})
        reply = await ws.receive_json_from(60)
        while reply["type"] == "presence":
            reply = await ws.receive_json_from(60)
        assert reply["type"] == "error" and reply["request_id"] == "dies"
        assert reply["error"]["code"] == "COMPILE_UNAVAILABLE"
        monkeypatch.undo()
        await ws.send_json_to({"type": "context.preview", "request_id": "again", "text": "渡口"})
        reply = await ws.receive_json_from(60)
        while reply["type"] == "presence":
            reply = await ws.receive_json_from(60)
        assert reply["type"] == "context.preview" and reply["request_id"] == "again"
    finally:
        await ws.disconnect()


def test_the_workers_index_follows_edits_in_place_and_matches_the_database(
    processes, canvas, alice, bob, apply
):
    ids = [
        apply(alice, node_op(f"渡口 ferry note {i}", x=i * 30.0, y=0.0)).changes[0]["id"] for i in range(5)
    ]
    before = executor.run(_worker_view, canvas.pk, key=canvas.pk)
    assert before["in_place"] is True

    apply(bob, {"type": "node.move", "id": ids[0], "x": 400.0, "y": 12.0})
    apply(
        alice,
        {
            "type": "node.update",
            "id": ids[1],
            "fields": {"content": "warehouse shelf count went to 52", "sensitivity": "internal"},
        },
    )
    apply(alice, {"type": "node.update", "id": ids[2], "fields": {"sensitivity": "secret"}})
    added = apply(alice, node_op("新的 warehouse 货架", x=3.0, y=3.0)).changes[0]["id"]
    apply(
        alice, {"type": "edge.create", "edge": {"source": ids[4], "target": added, "relation": "relates_to"}}
    )
    apply(alice, {"type": "node.delete", "id": ids[3]})
    apply(alice, {"type": "node.update", "id": ids[2], "fields": {"sensitivity": "public"}})

    after = executor.run(_worker_view, canvas.pk, key=canvas.pk)
    assert after["pid"] == before["pid"]
    assert after["stats"]["caught_up"] == before["stats"]["caught_up"] + 1  # caught up, not reloaded
    assert after["stats"]["rebuilds"] == before["stats"]["rebuilds"]
    canvas.refresh_from_db()
    fresh = context_inputs._load(canvas_id=canvas.pk, revision=canvas.revision, created_at=None)
    assert after["revision"] == canvas.revision
    assert after["nodes"] == fresh.nodes and after["edges"] == fresh.edges
    assert after["hidden_viewer"] == set(fresh.hidden_ids("viewer")) == {ids[1]}
    assert after["hidden_editor"] == set(fresh.hidden_ids("editor")) == set()
    rebuilt = CanvasIndex.build(nodes=fresh.nodes.values(), edges=fresh.edges.values())
    assert after["picks"] == _picks(rebuilt)


def test_inline_mode_runs_in_this_process(settings):
    settings.CANVASWEB = {**settings.CANVASWEB, "COMPILE_MODE": "inline"}
    assert executor.run(executor.worker_info)["pid"] == os.getpid()


async def test_a_rest_preview_waiting_for_its_worker_leaves_the_database_thread_free(settings, monkeypatch):
    """Under Daphne a sync view runs on the one thread all sockets' database work shares: a preview
    waiting there for its worker would hold up every edit for as long as the compile takes."""
    import asyncio
    import threading

    from channels.db import database_sync_to_async
    from django.test import AsyncClient

    from canvasweb.canvases.models import Canvas

    settings.CANVASWEB = {**settings.CANVASWEB, "COMPILE_MODE": "thread"}
    entered, release = threading.Event(), threading.Event()
    real_preview = services.context_preview

    def held_preview(**kwargs):
        entered.set()
        release.wait(timeout=30)
        return real_preview(**kwargs)

    monkeypatch.setattr(services, "context_preview", held_preview)
    canvas, _users, tokens = await setup_canvas()
    request = asyncio.ensure_future(
        AsyncClient().post(
            f"/api/canvases/{canvas.pk}/context-preview/",
            {"text": "码头的排班表", "viewport": {"x": 0, "y": 0, "zoom": 1}},
            content_type="application/json",
            headers={"Authorization": f"Token {tokens['alice']}"},
        )
    )
    try:
        assert await asyncio.to_thread(entered.wait, 20), "the preview never reached its worker"
        # Meanwhile a socket's database step (same thread as database_sync_to_async) still runs.
        count = await asyncio.wait_for(database_sync_to_async(Canvas.objects.count)(), timeout=10)
        assert count >= 1
    finally:
        release.set()
    response = await request
    assert response.status_code == 200, response.content
    assert "included" in response.json()


_ORPHANING_SERVER = """
import os, signal
import django
django.setup()
from django.conf import settings
settings.CANVASWEB = {**settings.CANVASWEB, "COMPILE_MODE": "process", "COMPILE_WORKERS": 1}
from canvasweb.chat import executor
print(executor.run(executor.worker_info)["pid"], flush=True)
os.kill(os.getpid(), signal.SIGKILL)
"""


def _running(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/status") as status:
            return not any(line.startswith("State:") and "Z" in line for line in status)
    except FileNotFoundError:
        return False


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="reads /proc to see whether the worker lives")
def test_a_worker_exits_when_its_server_is_killed():
    import subprocess
    import sys
    import time

    # Not subprocess.run: an orphaned worker would keep the captured stdout open.
    server = subprocess.Popen(
        [sys.executable, "-c", _ORPHANING_SERVER], stdout=subprocess.PIPE, text=True, env=os.environ
    )
    assert server.stdout is not None
    worker = int(server.stdout.readline())
    assert server.wait(60) == -signal.SIGKILL
    server.stdout.close()
    deadline = time.monotonic() + 10 * executor.PARENT_CHECK_SECONDS
    while _running(worker) and time.monotonic() < deadline:
        time.sleep(0.1)
    alive = _running(worker)
    if alive:
        os.kill(worker, signal.SIGKILL)
    assert not alive, "the compile worker outlived its killed server"
