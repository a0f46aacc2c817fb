"""A card that replaced a superseded or archived one is the newest statement of its subject: among
look-alike question matches it is lifted a little, and clearly when the question asks for the value as
it stands now ("at this point", "in the end", "最后", "现在"). English and Chinese."""

from __future__ import annotations

import pytest
from helpers_context import node

from canvasweb.context.canvas_index import node_label
from canvasweb.context.selection import CanvasIndex, asks_current_value, select_nodes
from canvasweb.context.types import Viewport

FAR = Viewport(x=-20000, y=-20000)


def _first_match(notes, question: str) -> str:
    index = CanvasIndex.build(nodes=notes)
    sel = select_nodes(index=index, viewport=FAR, role="editor", question=question, limit=40)
    matches = [c for c in sel.candidates if c.group == "question"]
    return matches[0].node.id


def _filler(prefix: str, text: str, n: int = 15):
    return [node(f"{prefix}{i}", text.format(i=i), x=-40 * i, y=70) for i in range(n)]


def test_superseded_replacement_wins_a_question_about_the_value_now():
    notes = [
        node("old", "Plumber quote: £3,400 for the boiler swap", superseded_by="new", x=0, y=0),
        node("new", "Plumber quote revised after the site visit: £3,950, flue included", x=9000, y=9000),
        node("rival", "Other plumber quote: Hearth & Co £4,100 for the boiler swap", x=100, y=0),
        *_filler("f", "Paint colour for room {i}: off-white"),
    ]
    assert _first_match(notes, "what's the plumber's quote for the boiler at this point?") == "new"


def test_archived_card_replaced_under_the_same_label_wins_a_question_about_the_final_choice():
    notes = [
        node("old", "住宿：曲江 华清苑酒店，学生 4 人间", archived=True, x=0, y=0),
        node("new", "住宿：小寨 长安书院酒店，学生 3 人间", x=9000, y=9000),
        node("rival", "酒店比价：学生团哪家酒店便宜选哪家", x=100, y=0),
        *_filler("f", "会议室 {i} 的投影仪已检修"),
    ]
    assert _first_match(notes, "学生最后住哪家酒店？") == "new"


def test_without_a_replacement_the_order_is_unchanged():
    notes = [
        node("a", "Plumber quote: £3,400 for the boiler swap", x=0, y=0),
        node("b", "Plumber quote revised after the site visit: £3,950, flue included", x=9000, y=9000),
        *_filler("f", "Paint colour for room {i}: off-white"),
    ]
    assert _first_match(notes, "what's the plumber's quote for the boiler at this point?") == "a"


@pytest.mark.parametrize(
    "question",
    [
        "What did we go for in the end?",
        "Where are we performing on Sunday now?",
        "what's the price at this point?",
        "两台最后谈下来多少钱？",
        "到底从哪个仓发货？",
        "现在定的是哪家？",
    ],
)
def test_questions_about_the_value_now(question):
    assert asks_current_value(question)


@pytest.mark.parametrize("question", ["What flavour is the cake?", "蛋糕是什么口味？"])
def test_plain_questions_do_not_ask_for_the_value_now(question):
    assert not asks_current_value(question)


@pytest.mark.parametrize(
    ("text", "label"),
    [
        ("Venue: Long Gallery (Room 4)", "venue"),
        ("Concert 3: Vigo, Sun 11 May", "concert 3"),
        ("发货仓：福州仓山 顺丰云仓", "发货仓"),
        ("Outbound flight 06:40 from Manchester", ""),
        ("No label here", ""),
    ],
)
def test_node_label(text, label):
    assert node_label(text) == label


def _question_ids(notes, question: str) -> list[str]:
    index = CanvasIndex.build(nodes=notes)
    sel = select_nodes(index=index, viewport=FAR, role="editor", question=question, limit=40)
    return [c.node.id for c in sel.candidates if c.group == "question"]


@pytest.mark.parametrize(
    ("notes", "question"),
    [
        (
            [
                node("old", "Removals firm: Pickfords, two vans", archived=True, x=0, y=0),
                node("new", "Removals firm: Carter Bros, one big lorry", x=9000, y=9000),
                node("match", "Moving day checklist: defrost the freezer, label the boxes", x=100, y=0),
                *_filler("f", "Paint colour for room {i}: off-white"),
            ],
            "who's shifting our boxes between houses now?",
        ),
        (
            [
                node("old", "印刷：城东彩印，胶版纸", archived=True, x=0, y=0),
                node("new", "印刷：雅昌，特种纸", x=9000, y=9000),
                node("match", "画册的出片文件周五前给设计", x=100, y=0),
                *_filler("f", "会议室 {i} 的投影仪已检修"),
            ],
            "画册最后交给哪家去做？",
        ),
    ],
)
def test_a_question_about_the_value_now_finds_the_replacement_that_shares_no_word(notes, question):
    assert "new" in _question_ids(notes, question)


def test_a_plain_question_does_not_seat_replacements_it_does_not_match():
    notes = [
        node("old", "Removals firm: Pickfords, two vans", archived=True, x=0, y=0),
        node("new", "Removals firm: Carter Bros, one big lorry", x=9000, y=9000),
        node("match", "Moving day checklist: defrost the freezer, label the boxes", x=100, y=0),
        *_filler("f", "Paint colour for room {i}: off-white"),
    ]
    assert "new" not in _question_ids(notes, "which boxes still need a label?")
