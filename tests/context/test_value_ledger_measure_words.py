"""Counts said with 个, and values named beside a new one: what the value ledger may retire.

Own sentences, none from bench/. Each test has the retirement that must happen beside the one that
must not, so it fails both when the ledger over-retires and when it stops retiring.
"""

from __future__ import annotations

from helpers_context import rewritten_chat

from canvasweb.context.value_mentions import find_mentions


def test_the_noun_after_ge_is_part_of_the_unit():
    (points,) = find_mentions("分成按8个点算")
    (days,) = find_mentions("彩样要9个工作日")
    (bare,) = find_mentions("最后定了11个。")
    (people,) = find_mentions("来了12个人")
    assert points.unit == "个点" and days.unit == "个工"
    assert bare.unit == "个"  # no noun follows: it counts what the sentence is about
    assert people.unit == "人"


def test_a_correction_counting_another_noun_with_ge_retires_nothing():
    pairs = (
        ("user", "展会那边谈好了，分成按8个点算，签一年。"),
        ("assistant", "好的，分成8个点，一年。"),
        ("user", "印刷厂改了排期：打样要9个工作日，比原来慢。"),
    )
    out = rewritten_chat(*pairs)
    assert "8个点" in out[0] and "8个点" in out[1]
    assert "[old value" not in out[0] + out[1]


def test_a_bare_ge_count_still_replaces_the_count_of_its_subject():
    pairs = (
        ("user", "电工建议会议室留6个插座，一般够用。"),
        ("assistant", "好的，会议室先按6个插座布线。"),
        ("user", "最后定了：会议室插座改成10个。"),
    )
    out = rewritten_chat(*pairs)
    assert "6个插座" not in out[0] and "[old value" in out[0]
    assert "6个插座" not in out[1]


def test_a_value_named_far_from_the_new_one_in_a_long_message_is_not_named_as_old():
    pairs = (
        ("user", "发布会定在10月8日，场地在西湖边的酒店。"),
        ("assistant", "记下了：发布会10月8日，西湖边。"),
        (
            "user",
            "宣传节奏我想了一下，分三段。第一段是预热，从9月20日到10月1日，达人先发开箱视频。"
            "第二段是直播，每晚八点开播，主播还是小林。第三段10月8日以后正式开卖，预算往分销倾斜。",
        ),
    )
    out = rewritten_chat(*pairs)
    assert "10月8日" in out[0] and "10月8日" in out[1]
    assert "[old value" not in out[0] + out[1] + out[2]


def test_a_value_named_beside_its_replacement_is_still_the_old_one():
    pairs = (
        ("user", "茶歇每人预算45元。"),
        ("user", "更新一下：茶歇每人52元，45元是去年的标准。"),
    )
    out = rewritten_chat(*pairs)
    assert "45元" not in out[0]
    assert "52元" in out[1]


def test_from_to_between_dates_or_times_is_a_span_unless_a_change_is_said():
    (start, _end) = find_mentions("The desk is staffed from 09:00 to 17:00 on weekdays")
    assert not start.negated
    (first, _last) = find_mentions("展期从5月3日到5月7日，共五天")
    assert not first.negated
    (moved, _new) = find_mentions("The review moved from 3 May to 10 May")
    assert moved.negated
    (raised, _higher) = find_mentions("The fee went from £40 to £45")
    assert raised.negated
    (amount, _more) = find_mentions("So from £1,300 to £1,340, forty more")
    assert amount.negated  # between amounts "from … to …" is a change


def test_a_phone_number_is_one_value():
    (uk,) = find_mentions("Reception is on 0161 496 0734 for bookings")
    (cn,) = find_mentions("前台电话021-58812345，找刘老师")
    (us,) = find_mentions("Call 415 555 0199 for the loading dock")
    assert (uk.type, uk.key) == ("phone", "01614960734")
    assert (cn.type, cn.key) == ("phone", "02158812345")
    assert us.type == "phone"
    # lists of years or ports stay separate numbers
    assert [m.type for m in find_mentions("we compared 2023 2024 2025 figures")] == ["number"] * 3
    assert len(find_mentions("open 5432 5433 6379 on the firewall")) == 3


def test_a_new_phone_number_retires_the_old_one_whole_and_not_its_neighbour():
    pairs = (
        ("user", "The studio's number is 0161 496 0734; the night line stays 0161 496 0999."),
        ("assistant", "Noted: studio 0161 496 0734, night line 0161 496 0999."),
        ("user", "Correction from the telecom letter: the studio number is now 0161 496 0743."),
    )
    out = rewritten_chat(*pairs)
    assert "0161 496 0734" not in out[0] and "[old value → now 0161 496 0743]" in out[0]
    assert "0161 496 0999" in out[0] and "0161 496 0999" in out[1]
    assert "0161 496 0743" in out[2]


# --- siblings: values one message stated together ------------------------------------------------------


def test_one_new_value_replaces_none_of_a_list_it_matches_only_as_well():
    pairs = (
        ("user", "Marta here. Fair day plan: stalls open 10:00, the brass band 12:30, raffle draw 15:45."),
        ("assistant", "Noted: stalls 10:00, band 12:30, raffle 15:45."),
        ("user", "Marta again, a quick one: the caretaker can now let us into the hall at 08:15."),
    )
    out = rewritten_chat(*pairs)
    assert "10:00" in out[0] and "12:30" in out[0] and "15:45" in out[0]
    assert "[old value" not in out[0] + out[1]


def test_a_sentence_restating_a_list_with_as_many_new_values_replaces_it_item_for_item():
    pairs = (
        ("user", "新楼分给我们的房间是312和314，一间做实验室一间放仪器。"),
        ("user", "刚才说错了，我看错邮件了，房间是412和414，在四楼。"),
    )
    out = rewritten_chat(*pairs)
    assert (
        out[0] == "新楼分给我们的房间是[old value → now 412]和[old value → now 414]，一间做实验室一间放仪器。"
    )
    assert "412和414" in out[1]


def test_a_list_item_said_again_beside_the_new_one_keeps_its_value():
    pairs = (
        ("user", "Consent forms: 30 of 36 returned."),
        ("user", "Consent forms: 34 of 36 returned now, chasing the rest."),
    )
    out = rewritten_chat(*pairs)
    assert "30" not in out[0] and "of 36" in out[0]


# --- what an opening line says about every value in the message -----------------------------------------


def test_a_greeting_or_a_name_called_is_no_topic_of_the_message():
    from canvasweb.context.value_mentions.words import _header_words

    assert _header_words("Hi, Priya here (ops). The stage build starts Monday.") == frozenset()
    assert _header_words("Priya, long one. The stage build starts Monday.") == frozenset()
    assert _header_words("你好，陈老师。舞台搭建周一开始。") == frozenset()
    assert "build" in _header_words("Stage build, quick one. Crew of 6 from Monday.")
    assert "舞台" in _header_words("舞台这块，我说一下。周一开始搭。")


def test_a_name_in_two_openings_does_not_make_two_values_one_subject():
    pairs = (
        ("user", "Hi, Priya here (ops). Guests arrive at 18:30 for the dinner."),
        (
            "user",
            "Priya, long one. I walked the yard with the caretaker, and now we can't get in before 16:00.",
        ),
    )
    out = rewritten_chat(*pairs)
    assert out[0] == pairs[0][1]


def test_one_letter_time_units_only_right_after_the_digits():
    (timeout,) = find_mentions("Set the job timeout to 45s")
    (ttl,) = find_mentions("The token TTL is 15m")
    (length,) = find_mentions("The counter is 2.4 m long")
    assert timeout.type == ttl.type == "duration" and ttl.key == "s:900"
    assert length.type != "duration"


# --- one shared word, many subjects ---------------------------------------------------------------------


def test_one_word_shared_with_many_subjects_picks_the_one_said_in_the_closest_sentence():
    pairs = (
        ("user", "展会这边：紫砂壶礼盒展会价398一套。"),
        ("user", "展会的场地费是1500，已经付了。"),
        ("user", "展会上扫码关注送一包试饮装，预计送出200包。"),
        ("user", "隔壁摊位卖368。我们紫砂壶礼盒展会价改成358吧。"),
    )
    out = rewritten_chat(*pairs)
    assert "398" not in out[0] and "[old value → now 358]" in out[0]
    assert "1500" in out[1] and "200包" in out[2]


def test_spelled_out_numbers_and_no_change_words_are_no_subject_words():
    from canvasweb.context.value_ledger.scoring import _word_overlap
    from canvasweb.context.value_mentions.words import subject_words

    assert subject_words("the three late ones are all cellists") == subject_words(
        "the late ones are all cellists"
    )
    # "stays" says the value did not change; it names no subject two values could share
    assert _word_overlap(subject_words("the cleaning fee stays"), subject_words("the deposit stays")) == 0


def test_a_new_amount_replaces_the_nearest_of_two_unrelated_subjects():
    pairs = (
        ("user", "体检套餐定了，480 元一位。"),
        ("user", "团建经费按工会标准，每人 260 块。"),
        ("user", "套餐价有变化：今年标准套餐加了一项，单价涨到 510 元。"),
    )
    out = rewritten_chat(*pairs)
    assert "480" not in out[0] and "[old value → now 510 元]" in out[0]
    assert "260 块" in out[1]


def test_a_date_said_beside_the_change_is_not_the_day_that_moves():
    pairs = (
        ("user", "验收约在5月12日上午。开业日定在5月16日。"),
        ("user", "坏消息，验收说12号验完还要等报告，16号肯定开不了。建议挪到5月23号"),
    )
    out = rewritten_chat(*pairs)
    assert "5月12日" in out[0]
    assert "5月16日" not in out[0] and "[old value → now 5月23号]" in out[0]


def test_the_old_value_said_beside_its_replacement_is_still_the_old_one():
    pairs = (
        ("user", "Stewards use radio channel 14; the marina office is on channel 9."),
        ("user", "The ferry company uses channel 14 and asked us not to. Moving the stewards to channel 16."),
    )
    out = rewritten_chat(*pairs)
    assert "channel 14" not in out[0] and "channel 9" in out[0]
    assert "channel 14" not in out[1]
