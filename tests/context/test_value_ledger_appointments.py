"""Appointments and counts said in everyday words: a day and its time, a change made "again", a
count of the same people under another noun.

Own sentences (EN and ZH), none from bench/. Each rule has a control in which it must not apply.
"""

from __future__ import annotations

from helpers_context import rewritten_chat

from canvasweb.context.types import MessageData
from canvasweb.context.value_mentions import find_mentions


def msgs(*pairs):
    return tuple(MessageData(id=f"a{i}", role=role, content=text) for i, (role, text) in enumerate(pairs))


# --- a weekday and the time on it --------------------------------------------------------------------


def test_a_time_takes_the_subject_words_of_its_day():
    day, time = find_mentions("the physio slot was pushed, now it's Tuesday at 16:05")
    assert day.type == "weekday" and time.type == "time"
    assert "physio" in time.context and "physio" in day.context


def test_a_day_named_as_the_old_one_names_its_time_too():
    old_day, old_time, _day, _time = find_mentions(
        "the physio moved my slot, it was Monday 11:20 and now it's Tuesday at 16:05"
    )
    assert old_day.negated and old_time.negated


def test_a_time_after_another_value_keeps_its_own_words():
    # control: "at 16:05" follows a count, not a day
    _count, time = find_mentions("we need 40 chairs, delivery at 16:05")
    assert "chair" not in time.context


def test_an_appointment_moved_twice_retires_the_middle_day_and_time():
    out = rewritten_chat(
        ("user", "the physio moved my slot, it was Monday 11:20 and now it's Tuesday at 16:05"),
        ("assistant", "Noted."),
        ("user", "ugh, the physio cancelled, the slot moved once more, now it's Thursday at 09:40"),
    )
    assert "16:05" not in out[0] and "Tuesday" not in out[0]
    assert "[old value → now 09:40]" in out[0]


# --- "again" ---------------------------------------------------------------------------------------


def test_a_change_made_again_retires_the_value_changed_before():
    out = rewritten_chat(
        ("user", "the vet moved Biscuit's jab, it was Monday 11:20 and now it's Tuesday at 16:05"),
        ("assistant", "OK, Tuesday 16:05 for the jab."),
        ("user", "vet rang again, they have to push it, now it's Wednesday at 08:45 since the nurse is off"),
    )
    assert "16:05" not in out[0] and "08:45" in out[0]


def test_a_change_made_again_in_chinese():
    out = rewritten_chat(
        ("user", "牙医把复诊挪了，原来是周一上午10点，现在改成周三下午4点。"),
        ("assistant", "好的，周三下午4点。"),
        ("user", "诊所刚又来电话，医生请假，只能再推到周五上午9点半了"),
    )
    assert "下午4点" not in out[0] and "周三" not in out[0]
    assert "上午9点半" in out[0]


def test_a_value_said_again_without_a_change_retires_nothing():
    # control: "again" in a sentence that changes nothing
    out = rewritten_chat(
        ("user", "the vet moved Biscuit's jab, it was Monday 11:20 and now it's Tuesday at 16:05"),
        ("assistant", "OK."),
        ("user", "the cat sitter comes again on Saturday at 10:30"),
    )
    assert "16:05" in out[0]


def test_a_never_changed_value_is_not_retired_by_again():
    # control: nothing of that kind was changed before, so "again" has nothing to point at
    out = rewritten_chat(
        ("user", "Biscuit's jab is on Tuesday at 16:05."),
        ("assistant", "OK."),
        ("user", "the groomer moved us again, now it's Wednesday at 08:45"),
    )
    assert "16:05" in out[0]


# --- a count under another noun ----------------------------------------------------------------------


def test_a_count_corrected_under_a_synonym_of_its_noun():
    (pupils,) = find_mentions("the museum trip takes 38 pupils")
    (learners,) = find_mentions("we're down to 31 learners")
    assert pupils.unit == learners.unit  # one noun family
    out = rewritten_chat(
        ("user", "For the museum trip we have 38 pupils signed up in total."),
        ("assistant", "Great turnout."),
        ("user", "Update: some parents said no, we're down to 31 learners."),
    )
    assert "38 pupils" not in out[0]


def test_a_count_of_another_noun_is_not_corrected():
    # control: bins are not people
    out = rewritten_chat(
        ("user", "For the museum trip we have 38 pupils signed up in total."),
        ("assistant", "Great turnout."),
        ("user", "Update: the coach firm is down to 31 seats for us."),
    )
    assert "38 pupils" in out[0]


# --- a date moved by a stated amount -----------------------------------------------------------------


def test_a_date_pushed_by_two_days_names_the_date_two_days_before_as_old():
    out = rewritten_chat(
        ("user", "The gallery confirmed the hanging day: Tuesday 9 September."),
        ("assistant", "Great, 9 September for the hang."),
        ("user", "Bad news from the framers, they pushed us back two days. Thursday 11 September then."),
    )
    assert "9 September" not in out[0] and "9 September" not in out[1]
    assert "[old value → now" in out[0]


def test_a_date_brought_forward_in_chinese():
    out = rewritten_chat(
        ("user", "样品评审会定在5月9日。"),
        ("assistant", "好的，5月9日评审。"),
        ("user", "客户那边要赶时间，提前三天，5月6日开。"),
    )
    assert "5月9日" not in out[0] and "5月6日" in out[2]


def test_a_shift_that_does_not_land_on_a_said_date_names_nothing():
    # control: 16 September minus a week is 9 September, but the chat said 2 September
    out = rewritten_chat(
        ("user", "The gallery confirmed the hanging day: Tuesday 2 September."),
        ("assistant", "Great."),
        ("user", "Separately, the printers pushed the catalogue proofs back a week, to 16 September."),
    )
    assert "2 September" in out[0]


def test_shift_sentences_read_amounts_and_directions():
    from canvasweb.context.value_ledger.shifts import shift_sentences, shifted_key

    assert shift_sentences("They slipped it by a fortnight.") == ((0, 14),)
    assert shift_sentences("We brought the tasting forward two days.") == ((0, -2),)
    assert shift_sentences("She brought two days of samples.") == ()
    assert shift_sentences("往后推两天吧") == ((0, 2),)
    assert shifted_key("03-01", -1) == "02-29" and shifted_key("2027-01-02", -3) == "2026-12-30"


# --- a lost day, a proposed date, words that only say "when" -----------------------------------------


def test_a_lost_weekday_retires_the_date_said_with_that_day():
    out = rewritten_chat(
        ("user", "质检那边说，耐压测试排的是5月13号周二开始，还可能动。"),
        ("assistant", "好的。"),
        ("user", "实验室来电话了，周二的档期没了，改周四，5月15号。"),
    )
    assert "5月13号" not in out[0] and "[old value → now" in out[0]


def test_a_lost_weekday_leaves_a_date_on_another_day_alone():
    # control: the date was a Wednesday, so "周二没了" says nothing about it
    out = rewritten_chat(
        ("user", "质检那边说，耐压测试排的是5月14号周三开始。"),
        ("assistant", "好的。"),
        ("user", "实验室来电话了，周二的档期没了，改周四，5月15号。"),
    )
    assert "5月14号周三" in out[0]


def test_a_date_pushed_to_in_chinese_is_a_change_and_gives_way_to_the_final_one():
    out = rewritten_chat(
        ("user", "我想6月1号开业。"),
        ("assistant", "好。"),
        ("user", "装修拖了，老周说6月1号开业够呛，往后推到6月12号吧。"),
        ("assistant", "好的。"),
        ("user", "算了，日子我妈挑好了，6月20号开业，不再改了。"),
    )
    assert "6月12号" not in out[2] and "6月1号" not in out[0]


def test_time_words_name_no_subject_of_a_date():
    from canvasweb.context.value_mentions import find_mentions

    (m,) = find_mentions("开始时间改到4月10日")
    assert "时间" not in m.context and "开始" in m.context
    (e,) = find_mentions("the start date moved to 10 April")
    assert "dat" not in e.context and "start" in e.context
