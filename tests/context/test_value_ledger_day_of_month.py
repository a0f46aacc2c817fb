"""A day of the month said without its month ("改到25号", "so not the 12th") is a date: it names the
date of that day as old, or replaces it. "3号馆", "第3号", "the 2nd floor" are no dates.

Own sentences, none from bench/.
"""

from __future__ import annotations

import pytest
from helpers_context import rewritten_chat

from canvasweb.context.capture.values import find_values


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("交货改到25号", "dom:25"),
        ("不是23号了", "dom:23"),
        ("so not the 12th", "dom:12"),
        ("by the 17th", "dom:17"),
    ],
)
def test_a_day_of_the_month_is_a_date(text, key):
    assert [(v.type, v.key) for v in find_values(text)] == [("date", key)]


@pytest.mark.parametrize(
    "text", ["在3号馆", "5号楼门口", "地铁1号线", "第3号选手", "on the 2nd floor", "the 21st century"]
)
def test_halls_lines_floors_and_centuries_are_no_dates(text):
    assert "date" not in [v.type for v in find_values(text)]


def test_a_day_said_alone_replaces_the_date_of_the_subject():
    out = rewritten_chat(
        ("user", "样品 4月23号 寄到工厂。"),
        ("assistant", "好的，样品 4月23号 寄到。"),
        ("user", "样品那边快递延误了，改到25号寄到工厂。"),
    )
    assert "4月23号" not in out[0] and "4月23号" not in out[1]


def test_not_the_day_retires_the_date_said_with_its_month():
    out = rewritten_chat(
        ("user", "The printer now says the proofs arrive 12 May."),
        ("assistant", "OK, proofs on 12 May then."),
        ("user", "Courier rang, Monday 19 May it is. So not the 12th."),
    )
    assert "12 May" not in out[0] and "12 May" not in out[1]


@pytest.mark.parametrize(
    ("text", "key"),
    [("start Monday 3rd", "dom:03"), ("Tues 12th is fine", "dom:12"), ("on Thursday the 6th", "dom:06")],
)
def test_a_weekday_with_its_day_of_the_month_is_a_date(text, key):
    assert [(v.type, v.key) for v in find_values(text)] == [("date", key)]


def test_a_weekday_with_its_day_replaces_the_one_said_before():
    out = rewritten_chat(
        ("user", "The glazier can fit the windows Monday 3rd."),
        ("assistant", "Noted, windows on Monday 3rd."),
        ("user", "Glazier's moved things round, he's fitting the windows on Thursday 6th now."),
    )
    assert "Monday 3rd" not in out[0] and "Monday 3rd" not in out[1]
    assert "Thursday 6th" in out[2]
