"""Query expansion with everyday synonyms: a question asked in other words still meets the turn or
the node that answers it, in English and Chinese (own text)."""

from __future__ import annotations

import pytest
from helpers_context import node
from test_context_recall_rank import FILLER_EN, FILLER_ZH, chat, rank_of

from canvasweb.context import recall_rank, synonyms
from canvasweb.context.history_recall import rank_turns
from canvasweb.context.lexical import query_terms
from canvasweb.context.selection import CanvasIndex, select_nodes
from canvasweb.context.types import Viewport


def expand(question: str) -> dict[str, float]:
    return synonyms.expansion(question)


def test_a_phrase_of_several_words_fires_only_when_all_are_asked():
    assert "domain" in expand("which web address do we print on the flyer?")
    assert "domain" not in expand("what is the office address?")


def test_added_words_weigh_less_than_the_question_own_and_never_repeat_them():
    extra = expand("which typeface is on the posters?")
    assert extra and set(extra.values()) == {synonyms.SYNONYM_WEIGHT} and synonyms.SYNONYM_WEIGHT < 1
    assert not set(extra) & set(query_terms("which typeface is on the posters?"))


def test_chinese_phrases_fire_on_the_text_whatever_the_segmentation():
    assert "牙医" in expand("她上次去看牙是几点？")
    assert expand("这个周末天气怎么样？") == {}


@pytest.mark.parametrize(
    ("turns", "filler", "question"),
    [
        (
            {17: "For the posters we settled on Brandon Grotesque for every heading."},
            FILLER_EN,
            "which font do the titles use?",
        ),
        ({23: "my gran got a wool scarf from us as a present"}, FILLER_EN, "what gift did we give grandma?"),
        ({29: "我们在大理订了一家民宿，就在洱海边"}, FILLER_ZH, "他们住什么样的酒店？"),
        (
            {31: "the garage wanted a deposit of €400 before ordering the part"},
            FILLER_EN,
            "what did we put down up front?",
        ),
        ({13: "下个月团建定在千岛湖"}, FILLER_ZH, "公司集体出去玩去哪里？"),
        (
            {37: "the laptops we lend out have an RTX 3050 GPU"},
            FILLER_EN,
            "which graphics card is in the loan machines?",
        ),
        ({21: "沿途设 9 个补给点，都有香蕉"}, FILLER_ZH, "跑的时候哪儿能喝水？"),
        ({19: "寄给工作室的快件以后都放前台，周五统一取"}, FILLER_ZH, "包裹到了找谁？"),
        (
            {27: "the courier leaves everything with the caretaker on Tuesdays"},
            FILLER_EN,
            "who takes in our parcels?",
        ),
    ],
)
def test_a_turn_said_in_other_words_is_recalled(monkeypatch, turns, filler, question):
    ci = next(iter(turns))
    ranked = rank_turns(candidates=chat(turns, filler=filler), question=question)
    found = rank_of(ranked, ci)
    assert found is not None and found <= 1, ranked[:3]  # the turn or its neighbour first
    monkeypatch.setattr(recall_rank, "expansion", lambda question: {})
    without = rank_of(rank_turns(candidates=chat(turns, filler=filler), question=question), ci)
    assert without is None or without > found


def test_a_far_node_said_in_other_words_is_found():
    nodes = [
        node("near", "The lobby screen shows the visitor list", x=5),
        node("far", "Company established in 1987 in Ghent", x=60_000),
    ]
    index = CanvasIndex.build(nodes=nodes, edges=())
    sel = select_nodes(
        index=index, viewport=Viewport(x=0, y=0), role="editor", question="when was the firm founded?"
    )
    assert "far" in [c.node.id for c in sel.candidates if c.group == "question"]
