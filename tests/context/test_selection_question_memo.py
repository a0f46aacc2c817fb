"""A second selection in one compile (the narrowed canvas block) reuses the question's scores."""

from __future__ import annotations

from canvasweb.context import selection
from canvasweb.context.selection import CanvasIndex, select_nodes
from canvasweb.context.types import NodeData, Viewport


def _index():
    nodes = [
        NodeData(id=f"n{i}", content=f"Note {i}: the boiler service costs £{100 + i}", x=i * 400.0, y=0.0)
        for i in range(40)
    ] + [NodeData(id="far", content="热水器保养每年一次，费用 380 元", x=90000.0, y=0.0)]
    return CanvasIndex.build(nodes=nodes, edges=[])


def test_the_question_is_scored_once_per_compile(monkeypatch):
    index = _index()
    calls = []
    real = selection.hybrid_scores

    def counting(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(selection, "hybrid_scores", counting)
    memo: dict = {}
    vp = Viewport(x=0.0, y=0.0, zoom=1.0)
    first = select_nodes(
        index=index, viewport=vp, role="editor", question="热水器保养多少钱？", limit=40, question_memo=memo
    )
    second = select_nodes(
        index=index, viewport=vp, role="editor", question="热水器保养多少钱？", limit=8, question_memo=memo
    )
    assert len(calls) == 1
    # same answers as without the memo
    fresh = select_nodes(index=index, viewport=vp, role="editor", question="热水器保养多少钱？", limit=8)
    assert [c.node.id for c in second.candidates] == [c.node.id for c in fresh.candidates]
    assert "far" in {c.node.id for c in first.candidates}


def test_another_role_is_scored_again(monkeypatch):
    index = _index()
    calls = []
    real = selection.hybrid_scores
    monkeypatch.setattr(selection, "hybrid_scores", lambda *a, **k: calls.append(1) or real(*a, **k))
    memo: dict = {}
    vp = Viewport(x=0.0, y=0.0, zoom=1.0)
    select_nodes(
        index=index, viewport=vp, role="editor", question="boiler service cost", limit=8, question_memo=memo
    )
    select_nodes(
        index=index, viewport=vp, role="viewer", question="boiler service cost", limit=8, question_memo=memo
    )
    assert len(calls) == 2
