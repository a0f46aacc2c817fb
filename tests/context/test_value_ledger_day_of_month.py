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
