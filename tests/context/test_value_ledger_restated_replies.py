"""A reply that restates, in the subject's own words, a value the user just set in other words is
about that subject: a later correction of the subject retires the value in both messages.

Own sentences, none from bench/.
"""

from __future__ import annotations

from helpers_context import rewritten_chat


def test_a_correction_retires_the_value_in_the_message_the_reply_restated():
    out = rewritten_chat(
        ("user", "The marquee is delivered on 4 June."),
        ("user", "Bad news: the hire firm's lorry broke down, it's now coming 11 June."),
        ("assistant", "Noted. So the marquee delivery moves from 4 June to 11 June."),
        ("user", "Weather chat aside, the tent order is fine."),
        ("user", "Update: marquee delivery is fixed for 13 June now."),
    )
    assert "11 June" not in out[1]
    assert "11 June" not in out[2]
    assert "13 June" in out[4]


def test_a_reply_restating_a_chinese_value_joins_the_subject():
    out = rewritten_chat(
        ("user", "展台搭建定在5月8号。"),
        ("user", "搭建公司那边说工人不够，现在改成5月10号了。"),
        ("assistant", "好的，展台搭建从5月8号挪到5月10号。"),
        ("user", "展台搭建最后定在5月12号，别再改了。"),
    )
    assert "5月10号" not in out[1]
    assert "5月10号" not in out[2]


def test_a_reply_with_the_same_value_for_another_subject_long_after_stays():
    out = rewritten_chat(
        ("user", "Choir rehearsal is on 9 May."),
        ("assistant", "Got it, rehearsal on 9 May."),
        ("user", "The printer's proofs arrive 20 May."),
        ("user", "Lunch with the sponsor, fine."),
        ("user", "Coffee order done."),
        ("user", "Chairs booked."),
        ("user", "Posters sent."),
        ("assistant", "The proof schedule is 20 May, and the bake sale also lands on 20 May."),
        ("user", "Proofs now arrive 22 May instead."),
    )
    assert "20 May" not in out[2]
    assert "9 May" in out[0]
