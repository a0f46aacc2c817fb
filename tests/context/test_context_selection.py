from __future__ import annotations

import math
import os
import random

from helpers_context import node
from hypothesis import given, settings
from hypothesis import strategies as st

from canvasweb.context.selection import CanvasIndex, naive_linear_select, select_nodes
from canvasweb.context.types import EdgeData, NodeData, SelectionConfig, Viewport

# More examples for a deep run: CONTEXT_HYPOTHESIS_EXAMPLES=2000 pytest tests/context
EXAMPLES = int(os.environ.get("CONTEXT_HYPOTHESIS_EXAMPLES", "120"))

VP = Viewport(x=0, y=0, zoom=1, width=1000, height=1000)  # radius 1.5 * 707 = 1061


def select(nodes, *, edges=(), viewport=VP, role="editor", question="", cell_size=None, **cfg):
    index = CanvasIndex.build(nodes=nodes, edges=edges, cell_size=cell_size)
    return select_nodes(
        index=index,
        viewport=viewport,
        role=role,
        question=question,
        config=SelectionConfig(**cfg) if cfg else None,
    )


def ids(sel, group=None):
    return [c.node.id for c in sel.candidates if group is None or c.group == group]


def reasons(sel):
    return {c.node.id: c.reason for c in sel.candidates}


def test_weight_beats_distance():
    near_light = node("near", x=100, y=0, weight=1.0)  # effective 100
    far_heavy = node("far", x=300, y=0, weight=4.0)  # effective 75
    sel = select([near_light, far_heavy])
    assert ids(sel) == ["far", "near"]
    assert sel.candidates[0].effective_distance == 75


def test_anchors_always_in_even_far_away():
    sel = select([node("a", x=10, y=10), node("pin", x=90_000, y=-90_000, pinned=True)])
    assert ids(sel)[0] == "pin"
    assert reasons(sel)["pin"] == "anchor"
    assert "a" in ids(sel)


def test_out_of_range_nodes_are_left_out_and_reported():
    sel = select([node("a", x=10, y=0), node("far", x=1_200, y=0)], cell_size=500.0)  # radius 1061
    assert ids(sel) == ["a"]
    assert ("far", "out_of_range") in {(e.node_id, e.reason) for e in sel.excluded}
    assert sel.excluded_counts["out_of_range"] == 1


def test_radius_follows_zoom():
    n = node("x", x=900, y=0)
    assert ids(select([n], viewport=Viewport(x=0, y=0, zoom=1, width=1000, height=1000))) == ["x"]
    assert ids(select([n], viewport=Viewport(x=0, y=0, zoom=4, width=1000, height=1000))) == []


def test_neighbours_pulled_in_over_edges():
    nodes = [node("a", x=0, y=0), node("b", x=40_000, y=0), node("c", x=-40_000, y=0)]
    edges = [
        EdgeData(id="e1", source="a", target="b", relation="depends_on"),
        EdgeData(id="e2", source="c", target="a", relation="causes"),
    ]
    sel = select(nodes, edges=edges)
    assert ids(sel, "linked") == ["b", "c"]
    assert reasons(sel)["b"] == "linked:depends_on:a"


def test_neighbours_never_bring_in_superseded_archived_or_invisible():
    nodes = [
        node("a"),
        node("old", x=50_000, superseded_by="new"),
        node("arch", x=50_000, archived=True),
        node("int", x=50_000, sensitivity="internal"),
        node("new", x=60_000),
    ]
    edges = [EdgeData(id=f"e{i}", source="a", target=t) for i, t in enumerate(["old", "arch", "int"])]
    sel = select(nodes, edges=edges, role="viewer")
    assert ids(sel) == ["a"]
    got = {(e.node_id, e.reason) for e in sel.excluded}
    assert {("old", "superseded"), ("arch", "archived"), ("int", "not_visible")} <= got


def test_question_match_off_viewport_english():
    nodes = [
        node("near", "Frontend uses React Flow", x=5),
        node("far", "The metrics store listens on port 5433", x=80_000),
    ]
    sel = select(nodes, question="Which port does our metrics store listen on?")
    assert "far" in ids(sel, "question")
    assert reasons(sel)["far"] == "question_match"


def test_question_match_off_viewport_chinese():
    nodes = [
        node("near", "前端用 React Flow", x=5),
        node("far", "数据库端口是 5433，密码只放环境变量", x=-70_000, y=30_000),
    ]
    sel = select(nodes, question="我们的数据库端口是多少？")
    assert ids(sel, "question") == ["far"]
    sel = select(nodes, question="缓存用什么？")
    assert ids(sel, "question") == []


def test_chinese_question_finds_a_far_note_that_shares_only_a_character():
    # "拍肺的片子" and "肺部 CT" share no word, only the character 肺; the paraphrase still finds it,
    # ranked below a note that shares a whole word.
    nodes = [
        node("near", "前台接待：两个人轮班", x=5),
        node("lung", "胸部检查：低剂量螺旋 CT（肺部），380 元", x=-60_000),
        node("word", "片子两周内寄到公司前台", x=70_000),
        node("other", "午餐：每人 45 元盒饭", x=50_000),
    ]
    sel = select(nodes, question="想加个拍肺的片子，要多少钱？")
    assert ids(sel, "question")[:2] == ["word", "lung"]
    assert "other" not in ids(sel, "question")


def test_superseded_and_archived_never_in():
    nodes = [
        node("old", "expire after 2 hours", pinned=True, superseded_by="new"),
        node("new", "expire after 6 hours", x=1),
        node("arch", "archived fact about expire", x=2, archived=True),
    ]
    sel = select(nodes, question="when do sessions expire")
    assert ids(sel) == ["new"]
    got = {(e.node_id, e.reason) for e in sel.excluded}
    assert ("old", "superseded") in got and ("arch", "archived") in got


def test_role_filter():
    nodes = [
        node("pub", x=1),
        node("int", x=2, sensitivity="internal"),
        node("sec", x=3, sensitivity="secret"),
        node("pin-int", x=9_000, pinned=True, sensitivity="internal"),
    ]
    assert set(ids(select(nodes, role="viewer"))) == {"pub"}
    assert set(ids(select(nodes, role="editor"))) == {"pub", "int", "pin-int"}
    owner = select(nodes, role="owner")
    assert set(ids(owner)) == {"pub", "int", "sec", "pin-int"}
    assert [c.node.id for c in owner.candidates if c.placeholder] == ["sec"]


def test_secret_text_is_not_question_matchable():
    nodes = [node("sec", "Production cache password is hunter2-Qx9", x=80_000, sensitivity="secret")]
    assert ids(select(nodes, role="owner", question="is the password hunter2-Qx9?")) == []


def test_order_independent_of_input_list():
    rng = random.Random(3)
    nodes = [
        node(
            f"n{i}",
            f"fact {i} about cache",
            x=rng.uniform(-500, 500),
            y=rng.uniform(-500, 500),
            weight=rng.choice([1, 1, 2]),
        )
        for i in range(60)
    ]
    nodes.append(node("tie-b", x=100, y=0))
    nodes.append(node("tie-a", x=0, y=100))
    a = select(nodes, question="cache")
    shuffled = nodes[:]
    rng.shuffle(shuffled)
    b = select(shuffled, question="cache")
    assert [(c.node.id, c.rank, c.reason) for c in a.candidates] == [
        (c.node.id, c.rank, c.reason) for c in b.candidates
    ]
    assert ids(a).index("tie-a") < ids(a).index("tie-b")  # equal distance: id order


def brute_force(nodes, viewport, radius, k, role_level=1):
    levels = {"public": 0, "internal": 1, "secret": 2}
    rows = []
    for n in nodes:
        if n.superseded_by or n.archived or n.pinned or levels[n.sensitivity] > role_level:
            continue
        eff = math.hypot(n.x - viewport.x, n.y - viewport.y) / max(n.weight, 0.05)
        if eff <= radius:
            rows.append((eff, n.id))
    return [i for _, i in sorted(rows)[:k]]


@settings(max_examples=EXAMPLES // 2, deadline=None)
@given(
    pts=st.lists(
        st.tuples(
            st.floats(-5000, 5000),
            st.floats(-5000, 5000),
            st.sampled_from([0.3, 0.5, 1, 1, 1.5, 2, 3, 7]),
            st.sampled_from(["public", "public", "internal", "secret"]),
            st.booleans(),
            st.booleans(),
        ),
        max_size=120,
    ),
    vx=st.floats(-6000, 6000),
    vy=st.floats(-6000, 6000),
    zoom=st.sampled_from([0.25, 0.5, 1, 2, 8]),
    k=st.integers(1, 40),
    cell=st.sampled_from([None, 10.0, 500.0, 5000.0]),
)
def test_grid_index_matches_brute_force(pts, vx, vy, zoom, k, cell):
    nodes = [
        NodeData(
            id=f"n{i:03d}",
            content="x",
            x=x,
            y=y,
            weight=w,
            sensitivity=s,
            superseded_by="z" if sup else None,
            archived=arch and not sup,
        )
        for i, (x, y, w, s, sup, arch) in enumerate(pts)
    ]
    vp = Viewport(x=vx, y=vy, zoom=zoom, width=800, height=600)
    index = CanvasIndex.build(nodes=nodes, cell_size=cell)
    sel = select_nodes(index=index, viewport=vp, role="editor", config=SelectionConfig(max_candidates=k))
    assert [c.node.id for c in sel.candidates if c.group == "viewport"] == brute_force(
        nodes, vp, sel.radius, k
    )


def test_naive_linear_select_scores_every_node_without_filters():
    nodes = [node(f"n{i}", x=i * 10, y=0) for i in range(40)]
    nodes.append(node("sup", x=0, y=1, superseded_by="n1"))
    got = naive_linear_select(nodes=nodes, viewport=Viewport(), k=15)
    assert len(got) == 15 and got[0].id == "n0" and "sup" in [n.id for n in got]


def test_a_word_common_on_a_large_canvas_keeps_only_the_best_matches_and_the_best_wins():
    from canvasweb.context.ranking import QUESTION_CANDIDATES_MIN, hybrid_scores
    from canvasweb.context.selection import CanvasIndex
    from canvasweb.context.types import NodeData

    nodes = [NodeData(id=f"n{i:05d}", content=f"ferry timetable note {i}", x=i, y=0) for i in range(1500)]
    nodes.append(NodeData(id="best", content="ferry ferry timetable", x=-5000, y=0))
    index = CanvasIndex.build(nodes=nodes)
    scores = hybrid_scores(
        index, "which ferry timetable?", {}, decay=None, question_vector=None, node_vectors=None, limit=20
    )
    assert len(scores) == QUESTION_CANDIDATES_MIN
    best = max(scores, key=lambda i: scores[i])
    assert index.nodes[best].id == "best"
