"""The per-process canvas cache catches up from the change log and matches a full reload."""

from __future__ import annotations

import pytest

from canvasweb.chat import context_inputs
from canvasweb.context.selection import CanvasIndex, select_nodes
from canvasweb.context.types import Viewport
from tests.conftest import node_op

pytestmark = pytest.mark.django_db


def _reload(canvas_id):
    state = context_inputs._load(canvas_id=canvas_id, revision=0, created_at=None)
    return state


def _same_selection(a: CanvasIndex, b: CanvasIndex):
    for role in ("viewer", "owner"):
        for question in ("灯塔 port", "harbour figures"):
            got = select_nodes(index=a, viewport=Viewport(x=10, y=10), role=role, question=question)
            want = select_nodes(index=b, viewport=Viewport(x=10, y=10), role=role, question=question)
            assert [(c.node.id, c.reason) for c in got.candidates] == [
                (c.node.id, c.reason) for c in want.candidates
            ]


def test_edits_are_applied_from_the_log_not_reloaded(canvas, alice, bob, apply):
    ids = [
        apply(alice, node_op(f"harbour figure {i} 灯塔", x=i * 40.0, y=0.0)).changes[0]["id"]
        for i in range(6)
    ]
    first = context_inputs.canvas_state(canvas_id=canvas.pk)
    stats = dict(context_inputs.STATS)

    apply(bob, {"type": "node.move", "id": ids[0], "x": 500.0, "y": 20.0})
    apply(
        alice,
        {
            "type": "node.update",
            "id": ids[1],
            "fields": {"content": "the port is 5434 now", "sensitivity": "internal"},
        },
    )
    new_id = apply(alice, node_op("新的 灯塔 fact", x=5.0, y=5.0)).changes[0]["id"]
    apply(
        alice, {"type": "edge.create", "edge": {"source": ids[2], "target": new_id, "relation": "depends_on"}}
    )
    apply(alice, {"type": "node.delete", "id": ids[3]})

    state = context_inputs.canvas_state(canvas_id=canvas.pk)
    assert context_inputs.STATS["caught_up"] == stats["caught_up"] + 1
    assert context_inputs.STATS["rebuilds"] == stats["rebuilds"]
    canvas.refresh_from_db()
    assert state.revision == canvas.revision > first.revision
    fresh = _reload(canvas.pk)
    assert state.nodes == fresh.nodes and state.edges == fresh.edges
    _same_selection(
        state.index,
        CanvasIndex.build(
            nodes=fresh.nodes.values(), edges=fresh.edges.values(), cell_size=state.index.cell_size
        ),
    )
    # The state served before the edits is untouched (another thread may still compile on it).
    assert first.nodes[ids[0]].x == 0.0 and ids[3] in first.nodes
    # Unchanged canvas: served from the cache.
    assert context_inputs.canvas_state(canvas_id=canvas.pk) is state


def test_a_cache_too_far_behind_is_rebuilt(canvas, alice, apply, settings):
    node_id = apply(alice, node_op("a fact to move")).changes[0]["id"]
    context_inputs.canvas_state(canvas_id=canvas.pk)
    limit = context_inputs._CANVASWEB["INDEX_CATCH_UP_MAX_REVISIONS"]
    context_inputs._CANVASWEB["INDEX_CATCH_UP_MAX_REVISIONS"] = 2
    try:
        for x in (1.0, 2.0, 3.0):
            apply(alice, {"type": "node.move", "id": node_id, "x": x, "y": 0.0})
        rebuilds = context_inputs.STATS["rebuilds"]
        state = context_inputs.canvas_state(canvas_id=canvas.pk)
    finally:
        context_inputs._CANVASWEB["INDEX_CATCH_UP_MAX_REVISIONS"] = limit
    assert context_inputs.STATS["rebuilds"] == rebuilds + 1
    assert state.nodes[node_id].x == 3.0


def test_the_index_cache_is_bounded_by_bytes(canvas, alice, apply):
    apply(alice, node_op("x" * 5000))
    cache = context_inputs.INDEX_CACHE
    saved = cache.max_bytes
    try:
        cache.resize(1000)  # smaller than one canvas: nothing is kept, every call reloads
        context_inputs.canvas_state(canvas_id=canvas.pk)
        assert cache.bytes <= 1000 and canvas.pk not in list(cache._entries)
        cache.resize(10_000_000)
        context_inputs.canvas_state(canvas_id=canvas.pk)
        assert 5000 < cache.bytes <= 10_000_000
    finally:
        cache.resize(saved)
