"""Answer kinds: a question that asks for a time, an amount, a duration or a measure lifts the notes
that state one (selection), in English and Chinese; word forms that the stemmer used to split."""

from __future__ import annotations

import pytest
from helpers_context import node

from canvasweb.context.answer_kinds import asked_kinds, stated_kinds
from canvasweb.context.lexical import tokenize
from canvasweb.context.selection import ANSWER_KIND_LIFT, CanvasIndex, select_nodes
from canvasweb.context.types import Viewport


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("What time does the ferry leave Harwich?", "time"),
        ("How late can the band play on Fridays?", "time"),
        ("When is the roof inspection?", "date"),
        ("Which evenings is the hall free?", "weekday"),
        ("How much is the venue hire?", "money"),
        ("What's the hourly rate for the electrician?", "money"),
        ("How long does the varnish need to dry?", "duration"),
        ("What share of the grant goes to equipment?", "percent"),
        ("How cold must the vaccine fridge stay?", "temperature"),
        ("How heavy is the new kiln?", "measure"),
        ("渡轮几点从码头出发？", "time"),
        ("屋顶验收定在哪天？", "date"),
        ("场地租一天要多少钱？", "money"),
        ("油漆要晾多久才能进人？", "duration"),
        ("设备费在总经费里占多大比例？", "percent"),
        ("新窑炉有多重？", "measure"),
        ("What number do members dial for the front desk?", "phone"),
        ("物业的报修电话是多少？", "phone"),
    ],
)
def test_asked_kinds_en_and_zh(question, kind):
    assert kind in asked_kinds(question)


@pytest.mark.parametrize(
    "question",
    [
        "Why did we pick the blue tiles?",
        "Who is bringing the projector?",
        "为什么换了供应商？",
        "How many pages is the brochure?",
    ],
)
def test_questions_that_ask_for_no_value_kind(question):
    assert not asked_kinds(question) - {"count"}


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("Ferry to Hook of Holland sails 22:45 from Harwich", "time"),
        ("Kiln: 380 kg, needs a 32 A supply", "measure"),
        ("窑炉重 1.2 吨，需要 380 伏电源", "measure"),
        ("场地租金 ¥4,800 一天", "money"),
        ("Varnish dries in 6 hours", "duration"),
        ("Front desk: 0161 496 0734", "phone"),
    ],
)
def test_stated_kinds(text, kind):
    assert kind in stated_kinds(text)


def test_a_note_without_numbers_states_no_kind():
    assert stated_kinds("The ferry company is Stena Line") == frozenset()
    assert stated_kinds("码头在东边") == frozenset()


def _ferry_canvas():
    # Every note names the ferry; only one says when it leaves.
    notes = [
        node("terminal", "Ferry sailing: parking north side", x=100, y=0),
        node("tickets", "Ferry sailing: tickets in the drive", x=200, y=0),
        node("cabins", "Ferry sailing: cabins four-berth", x=300, y=0),
        node("dogs", "Ferry sailing: dogs on the kennel deck", x=400, y=0),
        node(
            "leaves",
            "Ferry sailing from the port at 22:45, check-in closes an hour before, bring passports",
            x=9000,
            y=9000,
        ),
    ]
    notes += [
        node(f"other{i}", f"Rehearsal room {i} has a piano and {i + 2} music stands", x=-50 * i, y=60)
        for i in range(20)
    ]
    return notes


def test_the_note_with_the_asked_kind_is_lifted_among_equal_matches():
    index = CanvasIndex.build(nodes=_ferry_canvas())
    sel = select_nodes(
        index=index,
        viewport=Viewport(x=-20000, y=-20000),
        role="editor",
        question="What time does the ferry sail?",
        limit=40,
    )
    matches = [c for c in sel.candidates if c.group == "question"]
    assert matches[0].node.id == "leaves"
    # a note that only states the kind, with no word of the question, is never seated for it
    assert all(not c.node.id.startswith("other") for c in matches)


def test_the_lift_is_bounded():
    index = CanvasIndex.build(nodes=_ferry_canvas())
    sel = select_nodes(
        index=index,
        viewport=Viewport(x=-20000, y=-20000),
        role="editor",
        question="What time does the ferry sail?",
        limit=40,
    )
    plain = select_nodes(
        index=index, viewport=Viewport(x=-20000, y=-20000), role="editor", question="the ferry sail", limit=40
    )
    lifted = {c.node.id: c.match_score for c in sel.candidates if c.group == "question"}
    unlifted = {c.node.id: c.match_score for c in plain.candidates if c.group == "question"}
    assert lifted["leaves"] <= unlifted["leaves"] * (1 + ANSWER_KIND_LIFT) + 1e-6


def test_chinese_question_lifts_the_note_with_a_duration():
    notes = [
        node("spec", "烘干机：海尔 HGY100，容量 10 公斤", x=0, y=0),
        node("vendor", "烘干机由国美配送安装", x=50, y=0),
        node("wait", "烘干机下单后 15 天送到", x=8000, y=8000),
    ]
    notes += [node(f"n{i}", f"会议室 {i} 的投影仪已检修", x=-30 * i, y=40) for i in range(15)]
    index = CanvasIndex.build(nodes=notes)
    sel = select_nodes(
        index=index, viewport=Viewport(x=-9000, y=-9000), role="editor", question="烘干机要等多久？", limit=40
    )
    matches = [c for c in sel.candidates if c.group == "question"]
    assert matches[0].node.id == "wait"


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Sunday", "Sun"),
        ("Saturdays", "Sat"),
        ("Tues", "Tuesday"),
        ("mornings", "morning"),
        ("evening", "evenings"),
        ("nightly", "night"),
        ("departure", "departs"),
        ("星期天", "周日"),
        ("礼拜六", "周六"),
    ],
)
def test_word_forms_of_one_family_are_one_token(a, b):
    assert tokenize(a)[-1] == tokenize(b)[-1]


def test_evening_is_not_even():
    assert tokenize("evening") != tokenize("even")
