"""Query expansion: a question in other words meets the fact, and an exact match still ranks first."""

from __future__ import annotations

from helpers_context import node
from test_context_lexical import _busy_canvas

from canvasweb.context.history_recall import RecallCandidate, recall_history
from canvasweb.context.lexical import query_terms
from canvasweb.context.selection import CanvasIndex, select_nodes
from canvasweb.context.thesaurus import EXPANSION_WEIGHT, expansion
from canvasweb.context.tokens import count_tokens
from canvasweb.context.types import MessageData, Viewport


def test_a_phrase_brings_the_other_names_of_its_concept_at_a_lower_weight():
    extra = expansion(query_terms("Which typeface do the invoices use?"))
    assert extra["font"] == EXPANSION_WEIGHT and extra["字体"] == EXPANSION_WEIGHT
    assert "typefac" not in extra  # a word of the question is never added again
    # "web address" is one phrase: "address" alone means a street address, not a domain
    assert "domain" in expansion(query_terms("what is the web address of the shop?"))
    assert "domain" not in expansion(query_terms("what is the address of the shop?"))
    assert expansion(query_terms("Kubernetes upgrade tonight")) == {}


def _question_hits(nodes, question):
    index = CanvasIndex.build(nodes=_busy_canvas(nodes))
    sel = select_nodes(index=index, viewport=Viewport(x=0, y=0), role="editor", question=question, limit=40)
    return [c.node.id for c in sel.candidates if c.group == "question"]


def test_a_far_node_is_found_by_another_name_in_english_and_chinese():
    gpu = node("gpu", "Minimum GPU for the beta: Radeon RX 570", x=9000, y=-9000)
    zh = node("zh", "入门配置的显卡是 RX 580", x=-9000, y=9000)
    assert "gpu" in _question_hits([gpu, zh], "what's the lowest graphics card we support?")
    assert "zh" in _question_hits([gpu, zh], "测试服要求什么 GPU？")


def test_an_exact_match_outranks_a_synonym_match():
    exact = node("exact", "Our graphics card baseline is the GTX 1660", x=9000, y=9000)
    synonym = node("synonym", "GPU driver notes: keep 551.86 pinned", x=-9000, y=-9000)
    hits = _question_hits([exact, synonym], "which graphics card is the baseline?")
    assert hits.index("exact") < hits.index("synonym")


def test_a_turn_said_in_other_words_is_recalled():
    turns = [f"Chatter about the office plants, turn {i}." for i in range(200)]
    turns[37] = "hosting is sorted, the domain is lindenhof-apotheke.de"
    cands = [
        RecallCandidate(position=i, message=MessageData(id=f"m{i}", role="user", content=t), text=t)
        for i, t in enumerate(turns)
    ]
    result = recall_history(
        candidates=cands,
        question="which web address will the pharmacy site use?",
        max_tokens=300,
        count=count_tokens,
    )
    assert "lindenhof-apotheke.de" in result.text
