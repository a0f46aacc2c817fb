"""The lexical ranker: tokens (English, Chinese, mixed) and the incremental BM25 index."""

from __future__ import annotations

from helpers_context import node

from canvasweb.context.lexical import BM25Index, query_terms, reciprocal_rank_fusion, tokenize
from canvasweb.context.selection import CanvasIndex, NodeTextIndex, select_nodes
from canvasweb.context.types import NodeData, Viewport


def test_english_tokens_drop_stop_words_and_stem():
    toks = tokenize("The caches were expiring after 45 minutes")
    assert "the" not in toks and "were" not in toks
    assert "cach" in toks and "expir" in toks and "45" in toks
    assert tokenize("cache expires") == [tokenize("caching")[0], tokenize("expire")[0]]


def test_chinese_is_segmented_into_words():
    toks = tokenize("我们的报销流程需要财务总监审批")
    assert "报销" in toks and "审批" in toks
    assert "我们" not in toks and "的" not in toks


def test_mixed_text_keeps_identifiers_and_numbers():
    toks = tokenize("灰度发布用 Argo Rollouts，权重 20%")
    assert "argo" in toks and "20%" in toks and "灰度" in toks


def test_character_subtokens_are_optional():
    assert not any(t.startswith("字:") for t in tokenize("咖啡机"))
    assert "字:啡" in tokenize("咖啡机", chars=True)


def test_bm25_prefers_the_rarer_matching_term():
    idx = BM25Index()
    idx.add("a", "the backup job runs nightly")
    idx.add("b", "the deploy job runs on merge")
    idx.add("c", "the lint job runs on push")
    scores = idx.scores(query_terms("when does the backup run?"))
    assert max(scores, key=scores.get) == "a"


def test_bm25_add_and_remove_are_incremental():
    idx = BM25Index()
    idx.add("x", "invoice numbering restarts every January")
    idx.add("y", "holiday calendar for the support rota")
    assert "x" in idx.scores(["invoic"])
    idx.remove("x")
    assert idx.scores(["invoic"]) == {} and len(idx) == 1
    idx.add("y", "the invoice template lives in the finance drive")  # replaces the old version
    assert set(idx.scores(["invoic"])) == {"y"} and len(idx) == 1
    assert idx.scores(["holiday"]) == {}


def test_reciprocal_rank_fusion_rewards_agreement():
    fused = reciprocal_rank_fusion([["a", "b", "c"], ["b", "a", "d"]])
    assert fused["a"] == fused["b"] > fused["c"] > 0 and "d" in fused


def test_node_text_index_skips_retired_and_secret_nodes():
    ti = NodeTextIndex()
    ti.add(NodeData(id="n1", content="Vendor invoices are paid net 45"))
    ti.add(NodeData(id="n2", content="Vendor invoices are paid net 30", superseded_by="n1"))
    ti.add(NodeData(id="n3", content="vendor portal password hunter2", sensitivity="secret"))
    assert set(ti.scores(["vendor"])) == {"n1"}
    ti.add(NodeData(id="n1", content="Vendor invoices are paid net 45", archived=True, version=2))
    assert ti.scores(["vendor"]) == {}


def _busy_canvas(extra):
    nodes = [
        node(f"f{i:03d}", f"Filler note {i}: the team lunch rota and parking spots, week {i}", x=i * 3.0, y=0)
        for i in range(140)
    ]
    return nodes + extra


def test_far_node_found_from_a_paraphrased_question_on_a_busy_canvas():
    target = node("target", "The staging cluster runs Kubernetes 1.29 on three worker nodes", x=9000, y=9000)
    index = CanvasIndex.build(nodes=_busy_canvas([target]))
    sel = select_nodes(
        index=index,
        viewport=Viewport(x=0, y=0),
        role="editor",
        question="Which Kubernetes version does staging use?",
        limit=40,
    )
    assert any(c.node.id == "target" and c.group == "question" for c in sel.candidates)


def test_chinese_paraphrase_found_far_away():
    target = node("zh", "报销单据必须在每月25日之前提交给财务部", x=-8000, y=7000)
    index = CanvasIndex.build(nodes=_busy_canvas([target]))
    sel = select_nodes(
        index=index,
        viewport=Viewport(x=0, y=0),
        role="editor",
        question="财务那边的报销截止是哪天？",
        limit=40,
    )
    assert any(c.node.id == "zh" for c in sel.candidates)


def test_prebuilt_text_index_is_used():
    nodes = [
        node("a", "Release train leaves every second Tuesday", x=5000, y=5000),
        node("b", "Coffee machine descaling on Fridays", x=0, y=0),
    ]
    ti = NodeTextIndex()
    for n in nodes:
        ti.add(n)
    index = CanvasIndex.build(nodes=nodes, text_index=ti)
    assert index.text_index is ti
    sel = select_nodes(
        index=index, viewport=Viewport(x=0, y=0), role="editor", question="when is the release train?"
    )
    assert [c.node.id for c in sel.candidates if c.group == "question"] == ["a"]
