"""An index updated in place must compile exactly like one built from scratch on the same nodes."""

from __future__ import annotations

import dataclasses
import random

import pytest

from canvasweb.context.compiler import compile_context
from canvasweb.context.index_update import IndexUpdate, apply_changes
from canvasweb.context.selection import CanvasIndex, select_nodes
from canvasweb.context.types import CompileRequest, EdgeData, MessageData, NodeData, Viewport

WORDS = (
    "harbor",
    "lantern",
    "quartz",
    "meadow",
    "falcon",
    "copper",
    "river",
    "signal",
    "ember",
    "thistle",
    "端口",
    "缓存",
    "延迟",
    "预算",
    "部署",
    "日志",
)


def _node(rng: random.Random, i: int) -> NodeData:
    r = rng.random()
    return NodeData(
        id=f"n{i:04d}",
        content=" ".join(rng.sample(WORDS, 4)) + f" figure {rng.randint(1, 500)}",
        x=rng.uniform(-3000, 3000),
        y=rng.uniform(-3000, 3000),
        weight=rng.choice((0.5, 1.0, 2.0, 4.0)),
        tags=(rng.choice(WORDS),),
        pinned=rng.random() < 0.03,
        sensitivity="secret" if r < 0.05 else ("internal" if r < 0.2 else "public"),
    )


def _outputs(index: CanvasIndex, nodes, edges, history) -> list:
    out = []
    for role in ("viewer", "editor", "owner"):
        for vp in (
            Viewport(x=0, y=0, zoom=1.0),
            Viewport(x=1500, y=-900, zoom=0.5),
            Viewport(x=-2500, y=2500),
        ):
            for question in ("which figure for the harbor lantern", "缓存 延迟 预算"):
                sel = select_nodes(index=index, viewport=vp, role=role, question=question)
                out.append([(c.node.id, c.group, c.reason) for c in sel.candidates])
                out.append(sorted(sel.excluded_counts.items()))
                compiled = compile_context(
                    request=CompileRequest(
                        system_prompt="rules",
                        question=question,
                        messages=history,
                        nodes=nodes,
                        edges=edges,
                        index=index,
                        viewport=vp,
                        role=role,
                        budget=3000,
                    )
                )
                out.append(compiled.messages)
    return out


def _edit(rng: random.Random, nodes: dict, edges: dict, update: IndexUpdate, next_id: list) -> None:
    live = sorted(nodes)
    kind = rng.random()
    if kind < 0.45:  # move
        n = nodes[rng.choice(live)]
        nodes[n.id] = dataclasses.replace(
            n, x=n.x + rng.uniform(-800, 800), y=n.y + rng.uniform(-800, 800), version=n.version + 1
        )
        update.upsert_node(nodes[n.id])
    elif kind < 0.6:  # edit text, weight, sensitivity or status
        n = nodes[rng.choice(live)]
        nodes[n.id] = dataclasses.replace(
            n,
            content=n.content + " " + rng.choice(WORDS),
            weight=rng.choice((0.5, 1.0, 3.0)),
            sensitivity=rng.choice(("public", "internal", "secret")),
            archived=rng.random() < 0.2,
            pinned=rng.random() < 0.1,
            version=n.version + 1,
        )
        update.upsert_node(nodes[n.id])
    elif kind < 0.7:  # supersede
        old = nodes[rng.choice(live)]
        new = _node(rng, next_id[0])
        next_id[0] += 1
        nodes[new.id] = new
        update.upsert_node(new)
        nodes[old.id] = dataclasses.replace(old, superseded_by=new.id, version=old.version + 1)
        update.upsert_node(nodes[old.id])
    elif kind < 0.8:  # create
        new = _node(rng, next_id[0])
        next_id[0] += 1
        nodes[new.id] = new
        update.upsert_node(new)
    elif kind < 0.88:  # delete with its edges and back references, as the write path logs it
        victim = rng.choice(live)
        for e in [e for e in edges.values() if victim in (e.source, e.target)]:
            del edges[e.id]
            update.remove_edge(e.id)
        for n in [n for n in nodes.values() if n.superseded_by == victim]:
            nodes[n.id] = dataclasses.replace(n, superseded_by=None, version=n.version + 1)
            update.upsert_node(nodes[n.id])
        del nodes[victim]
        update.remove_node(victim)
    elif kind < 0.95:  # link
        a, b = rng.sample(live, 2)
        e = EdgeData(id=f"e{next_id[0]}", source=a, target=b, relation=rng.choice(("depends_on", "causes")))
        next_id[0] += 1
        edges[e.id] = e
        update.add_edge(e)
    elif edges:  # unlink or relabel
        e = edges[rng.choice(sorted(edges))]
        if rng.random() < 0.5:
            del edges[e.id]
            update.remove_edge(e.id)
        else:
            edges[e.id] = dataclasses.replace(e, relation="conflicts_with", label="relabelled")
            update.add_edge(edges[e.id])


def test_incremental_index_compiles_like_a_fresh_build():
    rng = random.Random(13)
    nodes = {n.id: n for n in (_node(rng, i) for i in range(300))}
    ids = sorted(nodes)
    edges = {}
    for j in range(120):
        a, b = rng.sample(ids, 2)
        edges[f"e{j}"] = EdgeData(id=f"e{j}", source=a, target=b, relation="depends_on")
    figures = random.Random(14)  # its own stream: the edits stay the ones this test always made
    history = tuple(
        MessageData(
            id=f"m{i}",
            role="user" if i % 2 == 0 else "assistant",
            # Values the nodes also state, so the value ledger (kept per index state) takes part.
            content=f"we talked about {rng.choice(WORDS)} and {rng.choice(WORDS)}, figure {figures.randint(1, 500)}",
        )
        for i in range(8)
    )
    index = CanvasIndex.build(nodes=nodes.values(), edges=edges.values())
    next_id = [1000]
    for step in range(12):
        update = IndexUpdate(index)
        for _ in range(rng.randint(1, 6)):
            _edit(rng, nodes, edges, update, next_id)
        base = index
        before_outputs = _outputs(base, (), (), history)
        index = update.finish()
        # Same grid cell size: an incremental index keeps its cell size until the next rebuild,
        # and how many far nodes a scan reports as out of range depends on the cells it walks.
        fresh = CanvasIndex.build(nodes=nodes.values(), edges=edges.values(), cell_size=index.cell_size)
        assert _outputs(index, tuple(nodes.values()), tuple(edges.values()), history) == _outputs(
            fresh, tuple(nodes.values()), tuple(edges.values()), history
        ), f"step {step}"
        assert sorted(index.pos) == sorted(fresh.pos)
        assert index.n_indexed == fresh.n_indexed
        assert _outputs(base, (), (), history) == before_outputs  # the fork left the old index alone


def test_old_index_is_unchanged_after_a_fork():
    rng = random.Random(5)
    nodes = [_node(rng, i) for i in range(80)]
    index = CanvasIndex.build(nodes=nodes)
    snapshot = _outputs(index, (), (), ())
    moved = dataclasses.replace(nodes[0], x=9999.0, y=9999.0, content="entirely new words 端口 9443")
    new = apply_changes(index, upserts=[moved], removals=[nodes[1].id])
    assert new is not None and new is not index
    assert _outputs(index, (), (), ()) == snapshot
    assert new.node(nodes[1].id) is None and index.node(nodes[1].id) is not None
    assert new.node(moved.id).x == 9999.0 and index.node(moved.id).x != 9999.0


def test_many_creates_ask_for_a_rebuild():
    rng = random.Random(3)
    index = CanvasIndex.build(nodes=[_node(rng, i) for i in range(50)])
    assert apply_changes(index, upserts=[_node(rng, 100 + i) for i in range(300)]) is None
    assert apply_changes(index, upserts=[_node(rng, 900)]) is not None


class _RecordingTextIndex:
    def __init__(self, log):
        self.log = log

    def fork(self):
        return _RecordingTextIndex(self.log)

    def add_text(self, doc_id, text):
        self.log.append(("add", doc_id, text))

    def remove(self, doc_id):
        self.log.append(("remove", doc_id))


def test_text_index_hook_sees_adds_and_removes():
    log: list = []
    a = NodeData(id="a", content="the 端口 is 5433")
    b = NodeData(id="b", content="a secret value", sensitivity="secret")
    index = CanvasIndex.build(nodes=[a, b])
    index.text_index = _RecordingTextIndex(log)
    new = apply_changes(
        index,
        upserts=[dataclasses.replace(a, content="the 端口 is 5434"), NodeData(id="c", content="new fact")],
        removals=["b"],
    )
    assert new.text_index is not index.text_index
    assert ("remove", "a") in log and ("add", "a", "the 端口 is 5434 ") in log
    assert ("add", "c", "new fact ") in log
    assert not any(entry[1] == "b" for entry in log)  # secret text was never indexed


def test_bm25_node_index_is_forked_not_shared_and_ranks_like_a_fresh_build():
    nodes = [
        NodeData(id=f"n{i}", content=text)
        for i, text in enumerate(
            ["部署窗口在周四晚上", "the staging port is 8443", "数据库端口 5433", "weekly sync on Monday"]
        )
    ]
    index = CanvasIndex.build(nodes=nodes)
    before = index.text_index.scores(["端口"])
    changed = dataclasses.replace(nodes[2], content="数据库迁到新集群", version=2)
    new = apply_changes(index, upserts=[changed, NodeData(id="n9", content="网关端口 9443")], removals=["n1"])
    # the old index still answers as before; the new one as if built from scratch
    assert index.text_index.scores(["端口"]) == before
    fresh = CanvasIndex.build(nodes=[nodes[0], changed, nodes[3], NodeData(id="n9", content="网关端口 9443")])
    assert new.text_index.scores(["端口"]) == pytest.approx(fresh.text_index.scores(["端口"]))
    assert new.updated_ts == [None] * len(new.nodes)
