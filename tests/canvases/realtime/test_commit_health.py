"""The commit thread's connection is health-checked after an idle spell, not before every batch, and
a batch that fails on an unchecked connection is applied again on a new one (realtime/commit_health.py)."""

from __future__ import annotations

import threading
import uuid

import pytest
from django.db import DEFAULT_DB_ALIAS, OperationalError, connections

from canvasweb.canvases import services
from canvasweb.canvases.actors import user_actor
from canvasweb.canvases.realtime import commit_health, committer
from tests.canvases.realtime.test_consumer import node_op, setup_canvas

pytestmark = pytest.mark.django_db(transaction=True)


def _on_commit_thread() -> bool:
    return threading.current_thread().name.startswith("canvasweb-commit-")


def _count_commit_thread_calls(monkeypatch, name: str) -> list[str]:
    """Record each call of the connection method `name` made on a commit thread."""
    calls: list[str] = []
    wrapper_class = type(connections[DEFAULT_DB_ALIAS])
    real = getattr(wrapper_class, name)

    def counting(self, *args, **kwargs):
        if _on_commit_thread():
            calls.append(name)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(wrapper_class, name, counting)
    return calls


async def _commit(canvas_id: int, user, text: str):
    """One op through the canvas's committer, as a socket submits it; its result."""
    request = services.OpRequest(
        actor=user_actor(user, channel="websocket"), op=node_op(text), client_op_id=uuid.uuid4().hex
    )
    result = await committer.committer_for(canvas_id).submit(request, source="test")
    assert isinstance(result, services.ApplyResult) and not result.duplicate, result
    return result


async def test_batches_in_quick_succession_are_not_checked_again(monkeypatch):
    canvas, users, _tokens = await setup_canvas()
    await _commit(canvas.pk, users["alice"], "the commit thread has a connection that committed")
    checks = _count_commit_thread_calls(monkeypatch, "is_usable")
    for i in range(4):
        await _commit(canvas.pk, users["alice"], f"op {i}")
    # Each batch follows the last within the idle window on the same connection: none is checked
    # (each check cost a `SELECT 1` round trip on PostgreSQL).
    assert checks == []


async def test_without_an_idle_window_every_batch_is_checked(monkeypatch, settings):
    settings.CANVASWEB = {**settings.CANVASWEB, "GROUP_COMMIT_HEALTH_CHECK_IDLE_MS": 0}
    canvas, users, _tokens = await setup_canvas()
    await _commit(canvas.pk, users["alice"], "the commit thread has a connection")
    checks = _count_commit_thread_calls(monkeypatch, "is_usable")
    for i in range(3):
        await _commit(canvas.pk, users["alice"], f"op {i}")
    assert checks == ["is_usable"] * 3


async def test_a_batch_failing_on_an_unchecked_connection_is_applied_on_a_new_one(monkeypatch):
    canvas, users, _tokens = await setup_canvas()
    first = await _commit(canvas.pk, users["alice"], "before the database went away")
    closes = _count_commit_thread_calls(monkeypatch, "close")
    real = services.apply_operations
    attempts: list[int] = []

    def dies_once(**kwargs):
        attempts.append(len(kwargs["requests"]))
        if len(attempts) == 1:  # the connection died while idle: the batch fails before anything commits
            raise OperationalError("server closed the connection unexpectedly")
        return real(**kwargs)

    monkeypatch.setattr(services, "apply_operations", dies_once)
    result = await _commit(canvas.pk, users["alice"], "after")
    # Applied, not failed: again on a new connection, and committed once (the next revision).
    assert attempts == [1, 1]
    assert closes == ["close"]
    assert result.revision == first.revision + 1


def test_a_failure_after_the_check_ran_is_not_retried_here(monkeypatch):
    conn = connections[DEFAULT_DB_ALIAS]
    conn.ensure_connection()
    conn.health_check_done = False  # as after close_old_connections(); never committed on: checked
    attempts: list[int] = []

    def fails(**kwargs):
        attempts.append(1)
        raise OperationalError("deadlock detected")

    monkeypatch.setattr(services, "apply_operations", fails)
    with pytest.raises(OperationalError):
        commit_health.apply_operations(canvas_id=1, requests=[])
    assert attempts == [1]  # the committer's own fallback (one op at a time) takes it from here
