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


def test_a_reply_reporting_the_change_joins_the_subject_the_users_words_missed():
    out = rewritten_chat(
        ("user", "抽签出来了，我们估计上午9:50左右轮到，排第6个。"),
        ("assistant", "好，预计上午9:50左右上台。"),
        ("user", "哎我看错了，把前一组的当成我们的了。我们是第8个，差不多10点20上台。"),
        ("assistant", "好的，那就是第8个、大约10点20上台。白板上那张先不动，等正式的表出来一起改。"),
        ("user", "正式的表发下来了，又变了。我们预计10:45上台。以这个为准！"),
    )
    assert "10点20" not in out[2] and "10点20" not in out[3]
    assert "9:50" not in out[0]


def test_a_value_that_stays_beside_a_change_is_no_old_value_and_the_old_one_named_first_is_retired():
    out = rewritten_chat(
        ("user", "Tickets: adults £15, students £8."),
        ("assistant", "Noted: £15 adults, £8 students."),
        (
            "user",
            "hang on, I misread the minutes. £15 was what we charged for the panto. for this show they "
            "voted the adult price up to £16.50, students stay at £8. sorry!",
        ),
    )
    assert "£8" in out[0] and "£8" in out[1] and "students stay at £8" in out[2]
    assert "£15" not in out[0] and "£15" not in out[1]
    assert "£15 was what" not in out[2]
