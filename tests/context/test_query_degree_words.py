""" "how far", "how big", 多远, 多大 ask for a kind of value; the adjective is no topic word of the question."""

from __future__ import annotations

import pytest

from canvasweb.context.history_recall import RecallCandidate
from canvasweb.context.lexical import query_terms
from canvasweb.context.recall_rank import rank_turns
from canvasweb.context.synonyms import expansion
from canvasweb.context.types import MessageData


def _cands(texts: list[str]) -> list[RecallCandidate]:
    return [
        RecallCandidate(position=i, message=MessageData(id=f"d{i}", role="user", content=t), text=t)
        for i, t in enumerate(texts)
    ]


@pytest.mark.parametrize(
    ("question", "noise", "fact"),
    [
        (
            "How far does the garden hose have to stretch?",
            "As far as I know the neighbours are away in August.",
            "The garden hose needs to stretch 18 m to the greenhouse.",
        ),
        (
            "花园的水管要拉多远？",
            "这周的事多远远超过我的预期。",
            "花园水管要拉到温室，18米。",
        ),
    ],
)
def test_degree_word_of_the_question_does_not_make_a_hit(question, noise, fact):
    ranked = rank_turns(candidates=_cands([noise, fact]), question=question)
    assert ranked and ranked[0][0] == 1
    # The aside that only shares "far" / 多远 has no sentence that matches the question (it may still
    # come along as the fact's neighbour).
    sentence_hits = {ci: hits for ci, _, hits in ranked}
    assert not sentence_hits.get(0)


def test_degree_words_are_dropped_but_still_fire_their_synonyms():
    assert "far" not in query_terms("How far is the depot?")
    assert "big" not in query_terms("how big is the tent?")
    assert "多大" not in query_terms("帐篷多大？")
    assert "height" in expansion("How tall is the fence?")
    # "how long" keeps "long": it also names things ("the long table").
    assert "long" in query_terms("How long is the long table?")


def test_a_dimension_asked_for_is_a_topic_word():
    # 多厚 / 多宽 / how thick: the answer usually names the dimension ("200毫米厚", "12 mm thick").
    assert "厚" in query_terms("车库那块新地面要铺多厚？")
    assert "宽度" in query_terms("门洞留多宽？")
    assert "thick" in query_terms("How thick is the new garage floor?")
    turns = [
        "车库地面下面的排水沟要挪，大概 6 米，师傅还没报价。",
        "车库新地面我问过了，找平层要铺到 80毫米厚，干了才能上车。",
    ]
    ranked = rank_turns(candidates=_cands(turns), question="车库那块新地面要铺多厚？")
    assert ranked and ranked[0][0] == 1
