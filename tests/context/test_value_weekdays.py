"""Weekdays as values: Wed = Wednesday = 周三 = 星期三 = 礼拜三, a weekday corrects only a weekday (own sentences)."""

from __future__ import annotations

import pytest
from helpers_context import rewritten_chat

from canvasweb.context.capture.values import compatible, find_values, value_key, value_type
from canvasweb.context.types import MessageData
from canvasweb.context.value_mentions import find_mentions


def msgs(*pairs):
    return tuple(MessageData(id=f"w{i}", role=role, content=text) for i, (role, text) in enumerate(pairs))


def weekdays(text):
    return [(v.raw, v.key) for v in find_values(text) if v.type == "weekday"]


# --- the value type ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "spellings",
    [
        ("Monday", "Mon", "mondays", "周一", "星期一", "礼拜一"),
        ("Tuesday", "Tue", "Tues", "周二", "星期二", "礼拜二"),
        ("Wednesday", "Wed", "Wednesdays", "周三", "星期三", "礼拜三"),
        ("Thursday", "Thu", "Thurs", "周四", "星期四", "礼拜四"),
        ("Friday", "Fri", "FRIDAY", "周五", "星期五", "礼拜五"),
        ("Saturday", "Sat", "Saturdays", "周六", "星期六", "礼拜六"),
        ("Sunday", "Sun", "周日", "星期日", "星期天", "礼拜天"),
    ],
)
def test_every_spelling_of_a_day_is_one_value(spellings):
    keys = {value_key(s) for s in spellings}
    assert len(keys) == 1 and next(iter(keys)).startswith("weekday=")
    assert {value_type(s) for s in spellings} == {"weekday"}


def test_a_weekday_is_compatible_only_with_a_weekday():
    assert value_type("Thursday") == "weekday" and compatible("weekday", "weekday")
    for other in ("date", "time", "number", "duration", "name", "text"):
        assert not compatible("weekday", other) and not compatible(other, "weekday")


def test_weekdays_inside_sentences():
    assert weekdays("the pottery class meets on Thursdays after work") == [("Thursdays", "thu")]
    assert weekdays("bins go out Sun night, recycling on Wed") == [("Sun", "sun"), ("Wed", "wed")]
    assert weekdays("合唱团每周六下午排练") == [("周六", "sat")]
    assert weekdays("体检安排在礼拜天上午") == [("礼拜天", "sun")]


def test_lowercase_abbreviations_are_ordinary_words():
    assert weekdays("she sat by the window while the sun went down") == []
    assert weekdays("they plan to wed in the spring") == []
    assert weekdays("she sat down to plan the market stall for Sat") == [("Sat", "sat")]


def test_proper_names_and_ordinary_words_are_no_weekdays():
    assert weekdays("the Sunday Times ran the story about the lighthouse") == []
    assert weekdays("we bought the fridge in the Black Friday sale") == []
    assert weekdays("my old laptop came from Sun Microsystems") == []
    assert weekdays("the Sun was low over the harbour") == []
    assert weekdays("Sat down with the landlord about the boiler.") == []
    assert weekdays("Sun is out, so the picnic is on.") == []
    # but a weekday that starts a sentence and names a day is one
    assert weekdays("Saturday works for the picnic.") == [("Saturday", "sat")]
    assert weekdays("Sat, 11:00 at the boathouse.") == [("Sat", "sat")]


def test_a_weekday_in_a_full_date_stays_part_of_the_date():
    (v,) = find_values("the plumber comes Wednesday, March 4")
    assert v.type == "date" and v.raw == "March 4" and v.key == "03-04"
    (m,) = find_mentions("the plumber comes Wednesday, March 4")
    assert m.type == "date" and m.raw == "Wednesday, March 4" and m.key == "03-04"
    (v,) = find_values("exam on Fri 12 June 2026")
    assert v.type == "date" and v.key == "2026-06-12"
    (v,) = find_values("pickup April 9 (Thu) at the depot")
    assert v.type == "date" and v.raw == "April 9 (Thu)"
    (v,) = find_values("搬家定在5月8日周五")
    assert v.type == "date" and v.raw == "5月8日周五"
    (v,) = find_values("年会在1月16日（星期五）举行")
    assert v.type == "date" and v.raw == "1月16日（星期五）"


@pytest.mark.parametrize(
    "text",
    [
        "the piano tuner can't do the 2nd, he comes Thursday 4th instead",
        "site visit Monday the 12th, first thing",
        "it is the 12th, Monday, for everyone",
        "钢琴调音师改成周四4号来",
        "4号周四上午到",
    ],
)
def test_a_weekday_with_a_day_of_the_month_is_a_date_not_a_weekday(text):
    # the day of the month may be read as a date of its own ("the 2nd", "4号"), never as a weekday
    assert {v.type for v in find_values(text)} <= {"number", "date"}
    assert "weekday" not in [m.type for m in find_mentions(text)]


def test_chinese_words_with_week_characters_are_no_weekdays():
    assert weekdays("这个周末我们去爬山") == []
    assert weekdays("健身一周三次就够了") == []
    assert weekdays("我们实行一周五天工作制") == []
    assert weekdays("老周三点到公司") == []
    # 下周三 / 这周五 / next Friday / last Monday stay relative dates
    assert weekdays("下周三交稿，这周五先开会") == []
    assert weekdays("next Friday works, last Monday did not") == []
    assert weekdays("周末过后的周一交稿") == [("周一", "mon")]


def test_weekday_mentions_need_no_digit():
    (m,) = find_mentions("the release train now leaves on Thursday")
    assert m.type == "weekday" and m.key == "thu" and {"releas", "train"} <= m.context
    (m,) = find_mentions("书法课改到周三")
    assert m.type == "weekday" and m.key == "wed"


# --- corrections ------------------------------------------------------------------------------------------


def test_a_later_weekday_corrects_an_earlier_one_about_the_same_subject():
    out = rewritten_chat(
        ("user", "Our release train leaves on Tuesdays."),
        ("assistant", "Noted."),
        ("user", "Actually the release train leaves on Thursday from now on."),
    )
    assert out[0] == "Our release train leaves on [old value → now Thursday]."
    assert out[2].endswith("on Thursday from now on.")


def test_a_weekday_correction_without_a_subject_corrects_the_weekday_just_said():
    out = rewritten_chat(
        ("user", "The pottery class meets on Tuesdays."),
        ("assistant", "Got it, Tuesdays."),
        ("user", "Actually it's Thursday."),
    )
    assert out[0] == "The pottery class meets on [old value → now Thursday]."
    assert out[1] == "Got it, [old value → now Thursday]."


def test_chinese_weekday_corrections():
    out = rewritten_chat(
        ("user", "我们每周二发布新版本。"),
        ("assistant", "好的，记下了。"),
        ("user", "改成周四。"),
    )
    assert out[0] == "我们每[old value → now 周四]发布新版本。"
    out = rewritten_chat(
        ("user", "读书会定在礼拜三晚上。"),
        ("user", "读书会改到星期五了。"),
    )
    assert "礼拜三" not in out[0] and "now 星期五" in out[0]


def test_the_same_day_in_another_spelling_is_no_correction():
    out = rewritten_chat(
        ("user", "The yoga class is on Wednesday."),
        ("user", "Actually the yoga class is Wed, as before."),
        ("user", "Sorry, the yoga class is Thu."),
    )
    assert out[0] == "The yoga class is on [old value → now Thu]."
    assert out[1] == "Actually the yoga class is [old value → now Thu], as before."


def test_a_date_does_not_correct_a_weekday_nor_a_weekday_a_date():
    assert [m.type for m in find_mentions("the dentist is on Friday and the school trip is 14 May")] == [
        "weekday",
        "date",
    ]
    out = rewritten_chat(
        ("user", "The dentist appointment is on Friday."),
        ("user", "Actually the dentist appointment is on 14 May."),
    )
    assert out[0] == "The dentist appointment is on Friday."
    out = rewritten_chat(
        ("user", "The dentist appointment is on 14 May."),
        ("user", "Actually the dentist appointment is on Friday."),
    )
    assert out[0] == "The dentist appointment is on 14 May."


def test_a_list_of_days_is_no_correction():
    said = "Mon, Wed and Fri standups for the mobile team, all at the same room."
    assert [m.key for m in find_mentions(said)] == ["mon", "wed", "fri"]
    out = rewritten_chat(("user", said))
    assert out == ["Mon, Wed and Fri standups for the mobile team, all at the same room."]
    out = rewritten_chat(("user", "游泳课是周一、周三和周五。"))
    assert out == ["游泳课是周一、周三和周五。"]


def test_a_weekday_about_another_subject_keeps_its_value():
    out = rewritten_chat(
        ("user", "The design review happens every Wednesday."),
        ("assistant", "Okay."),
        ("user", "And the deploy freeze now starts on Friday."),
        ("user", "Actually the design review happens on Tuesday."),
    )
    assert out[0] == "The design review happens every [old value → now Tuesday]."
    assert out[2] == "And the deploy freeze now starts on Friday."
    out = rewritten_chat(
        ("user", "站会每周三开。"),
        ("user", "另外，封版现在改到周五了。"),
    )
    assert out[0] == "站会每周三开。"


def test_a_subjectless_weekday_correction_is_ambiguous_between_two_subjects():
    out = rewritten_chat(
        ("user", "The design review is on Wednesday."),
        ("user", "The deploy freeze starts Friday."),
        ("user", "Sorry, it's Thursday."),
    )
    assert [m.type for m in find_mentions("Sorry, it's Thursday.")] == ["weekday"]
    assert out[:2] == ["The design review is on Wednesday.", "The deploy freeze starts Friday."]


def test_the_weekday_of_a_proper_name_is_not_corrected():
    out = rewritten_chat(
        ("user", "I picked up the Sunday Times for the crossword."),
        ("user", "Actually, let's do the crossword on Saturday."),
    )
    assert out[0] == "I picked up the Sunday Times for the crossword."
    assert [m.raw for m in find_mentions("Actually, let's do the crossword on Saturday.")] == ["Saturday"]


def test_a_weekday_is_about_the_words_next_to_it_not_another_value_of_its_clause():
    out = rewritten_chat(
        ("user", "The team dinner is on Thursday."),
        ("user", "Actually the team dinner is 22 May now and we add a Sunday hike for whoever is around."),
    )
    assert out[0] == "The team dinner is on Thursday."


def test_a_day_said_beside_a_date_still_names_the_dates_subject():
    out = rewritten_chat(
        ("user", "牙医约在4月2日，周四下午"),
        ("assistant", "好的"),
        ("user", "周四要出差，牙医改到 4月9日 了"),
    )
    assert out[0] == "牙医约在[old value → now 4月9日]，周四下午"
    out = rewritten_chat(
        ("user", "订好了，6月3日，周五晚上"),
        ("assistant", "好的"),
        ("user", "周五晚上要加班，改到 6月10日 了"),
    )
    assert out[0] == "订好了，[old value → now 6月10日]，周五晚上"
    out = rewritten_chat(
        ("user", "The piano tuner comes on Monday 6 October, after lunch."),
        ("user", "Sorry, wrong week for the Monday piano tuner: it's Monday 13 October."),
    )
    assert out[0] == "The piano tuner comes on [old value → now Monday 13 October], after lunch."


def test_a_reply_repeating_a_day_does_not_move_another_subject():
    out = rewritten_chat(
        ("user", "The book fair runs until the Saturday after the opening."),
        ("user", "We also add a Sunday workshop."),
        ("assistant", "Noted: the book fair now runs a Sunday workshop too."),
    )
    assert out[0] == "The book fair runs until the Saturday after the opening."


def test_the_weekday_written_in_a_date_names_no_subject():
    # "Sat 15 Nov" and "Sat 22 Nov" are two Saturdays, not one subject: the tasting moves, the opening stays
    out = rewritten_chat(
        ("user", "Tasting for the regulars: Fri 14 Nov."),
        ("assistant", "Noted."),
        ("user", "Public opening is Sat 22 Nov."),
        ("assistant", "Got it."),
        ("user", "Update: the tasting is moving to Sat 15 Nov because the chef is away."),
    )
    assert "Fri 14 Nov" not in out[0] and out[2] == "Public opening is Sat 22 Nov."
    out = rewritten_chat(
        ("user", "品鉴会定在11月14日周五。"),
        ("assistant", "好的。"),
        ("user", "正式开业是11月22日周六。"),
        ("assistant", "记下了。"),
        ("user", "更新：品鉴会改到11月15日周六。"),
    )
    assert "11月14日" not in out[0] and out[2] == "正式开业是11月22日周六。"
