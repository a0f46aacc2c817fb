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


# The second lexicon (work vocabulary by domain). Own sentences, not the benchmark's.
@pytest.mark.parametrize(
    ("question", "added"),
    [
        ("who is the second-in-command in the kitchen?", "sou"),  # sous chef
        ("固态二氧化碳还剩多少？", "干冰"),
        ("which network segment are the cameras on?", "vlan"),
        ("which VLAN are the printers on?", "网段"),  # a group may mix the languages
        ("谁负责报关？", "清关"),
        ("which freight company picks up the pallets?", "haulier"),
        ("加工中心什么时候到？", "立加"),
        ("账上还剩多少钱？", "余额"),
        ("我们什么时候开会？", "日期"),  # a Chinese phrase of function words still fires
    ],
)
def test_work_vocabulary_widens_the_question(question, added):
    assert added in expand(question)


@pytest.mark.parametrize(
    ("turns", "filler", "question"),
    [
        (
            {17: "Priya runs the pass as sous chef whenever Marco is off"},
            FILLER_EN,
            "who is the second-in-command in the kitchen?",
        ),
        ({23: "样品间那箱干冰周四就用完了，要再订"}, FILLER_ZH, "固态二氧化碳还剩多少？"),
        (
            {29: "the haulier collects everything from dock 3 on Mondays"},
            FILLER_EN,
            "which freight company picks up our goods?",
        ),
        ({31: "新到的立加已经调试好了"}, FILLER_ZH, "数控机床什么时候能用？"),
        (
            {13: "the builder says the footings go in on Thursday"},
            FILLER_EN,
            "when is the foundation poured?",
        ),
        ({19: "摄像头单独划了一个 VLAN"}, FILLER_ZH, "监控设备在哪个网段？"),
    ],
)
def test_a_turn_in_work_words_is_recalled(monkeypatch, turns, filler, question):
    ci = next(iter(turns))
    ranked = rank_turns(candidates=chat(turns, filler=filler), question=question)
    found = rank_of(ranked, ci)
    assert found is not None and found <= 1, ranked[:3]
    monkeypatch.setattr(recall_rank, "expansion", lambda question: {})
    without = rank_of(rank_turns(candidates=chat(turns, filler=filler), question=question), ci)
    assert without is None or without > found


@pytest.mark.parametrize(
    "question",
    [
        "what time works for people?",
        "is the thing ready for the team?",
        "how many days does the work take?",
        "which number do we show on the new page?",
        "这件事情大家觉得怎么样？",
        "我们今天的工作安排一下",
        "那个东西放好了吗？",
    ],
)
def test_common_words_do_not_expand(question):
    assert expand(question) == {}


def test_a_group_file_line_needs_two_phrases_and_comments_are_skipped():
    groups = synonyms._parse("# a comment\n\nlathe / 车床\nlonely\n什么时候 / 日期\n")
    assert [[p.text for p in g] for g in groups] == [["lathe", "车床"], ["什么时候", "日期"]]
    assert groups[1][0].tokens == ()  # fires on the text, adds nothing itself


def test_a_firing_group_adds_no_word_common_enough_to_match_everything():
    common = set(query_terms("time people thing day week year work make take new number two run show set"))
    for question in (
        "when is the sous chef in?",
        "what's our supplier's lead time?",
        "航班几点起飞？",
        "干冰放哪了？",
    ):
        assert not set(expand(question)) & common, question


@pytest.mark.parametrize(
    ("question", "not_added"),
    [
        ("How much is left in the catering budget?", {"quit", "resign", "fire"}),
        ("Who set up the registration desk?", {"found", "establish"}),
        ("Can you check the invoice totals?", {"doctor", "clinic"}),
    ],
)
def test_one_word_of_a_phrase_does_not_fire_its_group(question, not_added):
    # "left", "set" and "check" are words of phrases ("left the company", "set up", "check-up"):
    # said alone, in another sense, they add nothing of those groups.
    assert not_added.isdisjoint(synonyms.expansion(question))


def test_a_wedding_is_not_a_wednesday():
    assert query_terms("When is the wedding reception?") != query_terms("When is the Wednesday reception?")
    assert query_terms("wedding") == query_terms("weddings")


@pytest.mark.parametrize(
    ("question", "word"),
    [
        ("Who will guarantee the loan if sales fall short?", "underwrit"),
        ("What's the smallest order they take?", "minimum"),
        ("When is lights out at the scout camp?", "curfew"),
        ("屋主什么时候来收房？", "房东"),
        ("供应商能接受的最低价是多少？", "底价"),
        ("宣传的小册子印多少？", "pamphlet"),
        ("这批货的成本多少？", "花费"),
    ],
)
def test_third_batch_groups_fire(question, word):
    assert word in synonyms.expansion(question)
