"""Ways of saying "that value changed" that the value ledger reads by structure and value type.

Own sentences (EN and ZH), none from bench/. Each rule has a control in which the
mechanism does not apply (another subject, no change said, or the old parse), so the
test can fail.
"""

from __future__ import annotations

from canvasweb.context import value_mentions
from canvasweb.context.retire import strip_replaced_values
from canvasweb.context.types import MessageData
from canvasweb.context.value_ledger import build_ledger
from canvasweb.context.value_mentions import find_mentions


def msgs(*pairs):
    return tuple(MessageData(id=f"f{i}", role=role, content=text) for i, (role, text) in enumerate(pairs))


def rewritten(history):
    ledger = build_ledger(messages=history)
    return [ledger.rewrite(i, m.content) for i, m in enumerate(history)]


def aside(n):
    return [
        ("user" if i % 2 == 0 else "assistant", f"Side remark {i}: the printer on floor two jams again.")
        for i in range(n)
    ]


# --- value types ----------------------------------------------------------------------------------------


def test_half_past_in_chinese_is_not_the_full_hour():
    (half,) = find_mentions("晨会定在早上8点半")
    (full,) = find_mentions("晨会改成早上8点")
    assert half.key == "08:30" and full.key == "08:00"
    (quarter,) = find_mentions("晨会定在早上8点一刻")
    assert quarter.key == "08:15"


def test_a_half_hour_corrected_to_the_full_hour_is_retired():
    out = rewritten(msgs(("user", "门诊每天早上8点半开诊。"), *aside(4), ("user", "开诊时间改成早上8点整。")))
    assert "8点半" not in out[0] and "[old value" in out[0]


def test_the_same_clock_time_said_again_is_not_retired():
    # control: no other value was said, so nothing changed
    out = rewritten(
        msgs(("user", "门诊每天早上8点半开诊。"), *aside(4), ("user", "提醒一下，开诊是早上8点半。"))
    )
    assert "8点半" in out[0]


def test_am_pm_times_without_minutes_are_values():
    (m,) = find_mentions("the choir warms up at 6pm")
    assert m.type == "time" and m.key == "18:00"
    out = rewritten(
        msgs(("user", "Choir warm-up is at 6pm."), *aside(4), ("user", "Scratch that, warm-up at 5pm."))
    )
    assert "6pm" not in out[0]


def test_a_counted_noun_is_the_subject_of_its_count():
    (m,) = find_mentions("the cafe licence allows 48 seats")
    assert "seat" in m.context
    out = rewritten(
        msgs(
            ("user", "The cafe licence allows 48 seats inside."),
            *aside(4),
            ("user", "Turns out the seated maximum is 40 because of the new fire door."),
        )
    )
    assert "48 seats" not in out[0]


def test_a_count_of_another_noun_keeps_its_value():
    # control: a correction about the staff leaves the seats alone
    out = rewritten(
        msgs(
            ("user", "The cafe licence allows 48 seats inside."),
            *aside(4),
            ("user", "Turns out the weekend rota needs 6 baristas, not 5."),
        )
    )
    assert "48 seats" in out[0]


def test_a_function_word_after_a_number_is_not_its_unit():
    (m,) = find_mentions("the cap is 120 once the ramp is in")
    assert m.unit == ""
    (u,) = find_mentions("we print 120 gizmos")
    assert u.unit == "gizmo"


def test_function_word_units_used_to_block_the_correction(monkeypatch):
    """Control: with the old unit rule ("196 once" -> unit "onc") the same correction is missed."""
    history = msgs(
        ("user", "The cafe licence allows 48 seats inside."),
        *aside(4),
        ("user", "Turns out the seated maximum is 40 once the new fire door is fitted."),
    )
    assert "48 seats" not in rewritten(history)[0]
    monkeypatch.setattr(
        value_mentions, "_unit_after", lambda text, end: (text[end:].split() or [""])[0].lower()[:6]
    )
    assert "48 seats" in rewritten(history)[0]


# --- cue forms ------------------------------------------------------------------------------------------


def test_taking_it_back_a_turn_later_retires_the_value():
    out = rewritten(
        msgs(
            ("user", "The scaffold hire is £780 for the job."),
            ("assistant", "Noted, £780 for the scaffold."),
            ("user", "hang on, £780 was for one elevation. For all four sides it comes to £1,240."),
            *aside(4),
        )
    )
    assert "£780" not in out[0] and "£1,240" in out[2]


def test_a_second_price_without_any_change_said_is_a_fact_of_its_own():
    # control: two prices said plainly about different things stay current
    out = rewritten(
        msgs(
            ("user", "The scaffold hire is £780 for the job."),
            ("assistant", "Noted, £780 for the scaffold."),
            ("user", "The skip for the rubble costs £240 a week."),
            *aside(4),
        )
    )
    assert "£780" in out[0]


def test_chinese_cues_by_structure():
    cases = [
        ("仓库租金每月1.2万元。", "仓库租金以合同为准，每月1.35万元。"),
        ("打包机每小时180件。", "打包机不再按180件算了，每小时按220件来。"),
        ("月度盘点在每月28日。", "最新消息：月度盘点在每月26日。"),
    ]
    for first, later in cases:
        out = rewritten(msgs(("user", first), *aside(4), ("user", later)))
        assert "[old value" in out[0], (first, later, out[0])


def test_a_chinese_statement_about_another_subject_keeps_the_value():
    # control: a cue word in a sentence about another subject does not retire the rent
    out = rewritten(
        msgs(
            ("user", "仓库租金每月1.2万元。"),
            *aside(4),
            ("user", "最新消息：叉车保养每季度一次，每次800元。"),
        )
    )
    assert "1.2万元" in out[0]


# --- names of the old thing inside a correction --------------------------------------------------------


def test_instead_of_a_possessive_or_a_the_name_is_cut_from_the_correction():
    assert "Harlow" not in strip_replaced_values(
        "Deliveries now come through the side gate instead of Harlow's yard, the lorries fit better."
    )
    assert "Harbourlight" not in strip_replaced_values(
        "We moved the launch party to the Old Mill instead of the Harbourlight."
    )


# --- a subject said by another name, found by the unit of its value -----------------------------------


def test_a_correction_by_another_name_finds_the_only_value_with_that_unit():
    out = rewritten(
        msgs(
            ("user", "The rainwater tank holds 1,200 litres."),
            *aside(4),
            ("user", "Correction on the cistern: we are fitting one of 1,500 litres."),
        )
    )
    assert "1,200" not in out[0]
    zh = rewritten(
        msgs(
            ("user", "冷库制冷机组功率45千瓦。"), *aside(4), ("user", "压缩机那边应该是55千瓦，厂家刚确认。")
        )
    )
    assert "45千瓦" not in zh[0]


def test_two_values_with_that_unit_need_the_subject_words():
    # control: with two subjects measured in litres, a correction by another name retires neither
    out = rewritten(
        msgs(
            ("user", "The rainwater tank holds 1,200 litres."),
            ("user", "The pond pump moves 3,000 litres an hour."),
            *aside(4),
            ("user", "Correction on the cistern: we are fitting one of 1,500 litres."),
        )
    )
    assert "1,200" in out[0] and "3,000" in out[1]


def test_a_value_span_is_the_value_alone():
    (m,) = find_mentions("the deposit is £450 for the hall")
    assert "the deposit is £450 for the hall"[m.start : m.end] == m.raw == "£450"


# --- a value in a question asserts nothing ------------------------------------------------------------


def test_an_old_value_asked_about_after_the_correction_stays_retired():
    out = rewritten(
        msgs(
            ("user", "The kiln firing is booked for 3 March."),
            *aside(2),
            ("user", "Kiln update: the firing moves to 9 March."),
            ("user", "I put the kiln firing on 3 March before, didn't I?"),
            ("assistant", "You did; it is 9 March now."),
        )
    )
    assert "3 March" not in out[0] and "3 March" not in out[4]


def test_a_stated_old_value_after_the_correction_is_current_again():
    # control: said as a statement (not asked), the old date is current again (A -> B -> A)
    out = rewritten(
        msgs(
            ("user", "The kiln firing is booked for 3 March."),
            *aside(2),
            ("user", "Kiln update: the firing moves to 9 March."),
            ("user", "Kiln update again: the firing is back on 3 March."),
        )
    )
    assert "3 March" in out[4] and "9 March" not in out[3]


# --- the old value named beside the new one, and cues in the sentence before -----------------------------


def test_the_old_value_named_after_the_new_one_is_rewritten_too():
    out = rewritten(
        msgs(
            ("user", "The team lunch is £35 a head."),
            *aside(2),
            ("user", "sorry, wrong number: lunch is £38 a head, the £35 was the old menu."),
        )
    )
    assert "£35" not in out[0] and "£35" not in out[3] and "£38" in out[3]


def test_a_cue_in_the_sentence_before_carries_to_the_value():
    out = rewritten(
        msgs(
            ("user", "Members pay £42 for the annual pass."),
            *aside(4),
            ("user", "The board finally settled the pass. Members at £45, from January."),
        )
    )
    assert "£42" not in out[0]


def test_without_a_cue_the_sentence_before_carries_nothing():
    # control: the same two sentences with no cue are a second fact, not a correction
    out = rewritten(
        msgs(
            ("user", "Members pay £42 for the annual pass."),
            *aside(4),
            ("user", "The board looked at the pass. Members bring guests at £45, from January."),
        )
    )
    assert "£42" in out[0]


def test_people_counted_in_ren_and_ming_are_one_value():
    out = rewritten(
        msgs(
            ("user", "保洁员要招40人。"),
            ("assistant", "好的，保洁员40名。"),
            *aside(2),
            ("user", "之前说的40人作废，保洁员按46人准备。"),
        )
    )
    assert "40" not in out[0] and "40" not in out[1]


def test_the_now_marker_keeps_the_unit_as_written():
    out = rewritten(msgs(("user", "仓库货架暂定300。"), *aside(4), ("user", "货架调整为340组，二层加一排。")))
    assert "now 340组" in out[0]
    # control: when the old mention has its own unit after it, the marker does not repeat it
    kept = rewritten(
        msgs(("user", "仓库货架一共300组。"), *aside(4), ("user", "货架调整为340组，二层加一排。"))
    )
    assert "[old value → now 340]组" in kept[0]


def test_the_object_of_a_change_verb_needs_one_subject_word_in_its_sentence():
    history = msgs(
        ("user", "The print server listens on port 6310 in the new office."),
        *aside(4),
        ("user", "hmm actually IT moved us to 6312, something about a port clash with the scanner box."),
    )
    assert "6310" not in rewritten(history)[0]
    # control: the same number said without a change verb is not taken as the port's new value
    plain = msgs(
        ("user", "The print server listens on port 6310 in the new office."),
        *aside(4),
        ("user", "hmm IT says ticket 6312 is about a port clash with the scanner box."),
    )
    assert "6310" in rewritten(plain)[0]


# --- a share of another quantity --------------------------------------------------------------------------


def test_a_share_of_the_new_total_keeps_the_total():
    out = rewritten(
        msgs(
            ("user", "The kitchen refit now totals £18,400 with the new worktops."),
            ("assistant", "Understood, £18,400 in all."),
            ("user", "ok, so the deposit: £9,200 then, half of the new total."),
            *aside(4),
        )
    )
    assert "£18,400" in out[0] and "£9,200" in out[2]


def test_a_changed_total_without_a_share_still_retires_the_old_one():
    # control: the same cue without "half of" is a correction of the total
    out = rewritten(
        msgs(
            ("user", "The kitchen refit now totals £18,400 with the new worktops."),
            ("assistant", "Understood, £18,400 in all."),
            ("user", "ok, scratch that, the new total is £19,100 after the tiling quote."),
            *aside(4),
        )
    )
    assert "£18,400" not in out[0] and "£19,100" in out[2]


def test_a_chinese_share_keeps_the_total():
    out = rewritten(
        msgs(
            ("user", "装修总价定为 36 万。"),
            ("assistant", "好的，总价 36 万。"),
            ("user", "改一下付款方式：首付是总价的一半，18 万。"),
            *aside(4),
        )
    )
    assert "36 万" in out[0] and "18 万" in out[2]


def test_share_wording_is_read_by_structure():
    def share_of(text, value):
        return next(m.share for m in find_mentions(text) if m.raw == value)

    assert share_of("fine, €3,300 then, half of the new total", "€3,300")
    assert share_of("a third of the fee is £900", "£900")
    assert share_of("尾款 6 万，是总价的三成", "6 万")
    # controls: a split of the value itself, and a share said about another quantity later on
    assert not share_of("the fee is €14,000, half upfront", "€14,000")
    assert not share_of("the budget is €40,000 and 10% of the budget is contingency", "€40,000")


# --- units behind a modifier, and percentages ---------------------------------------------------------------


def test_a_word_between_the_number_and_its_noun_keeps_the_noun_as_unit():
    out = rewritten(
        msgs(
            ("user", "For the greenhouse the installer says 4 Zigbee repeaters will do."),
            ("assistant", "Four repeaters, noted."),
            ("user", "Site visit done, scratch that: it needs 7 repeaters because of the glass."),
            *aside(4),
        )
    )
    assert "4 Zigbee" not in out[0] and "7 repeaters" in out[2]
    # a short measure word stays the unit
    assert [m.unit for m in find_mentions("we're fitting the 5,000 mAh ones")] == ["mah"]


def test_a_percentage_never_replaces_a_count():
    out = rewritten(
        msgs(
            ("user", "The greenhouse gets 7 repeaters along the glass wall."),
            ("assistant", "7 repeaters along the glass wall."),
            (
                "user",
                "Irrigation: change the tomato bed trigger to below 30% moisture, the glass wall side dries fast.",
            ),
            *aside(4),
        )
    )
    assert "7 repeaters" in out[0] and "30%" in out[2]


# --- a reply that reports a change; codes of capitals and digits ----------------------------------------------


def test_a_reply_that_reports_a_change_as_done_retires_the_old_value():
    out = rewritten(
        msgs(
            ("user", "Book the ferry for the band, please."),
            ("assistant", "Booked: ferry QX4410 from Dover, Friday."),
            ("user", "thanks!"),
            (
                "assistant",
                "heads-up, the ferry company changed the sailing. I'm on QX4472 now, same evening.",
            ),
            *aside(4),
        )
    )
    assert "QX4410" not in out[1] and "QX4472" in out[3]


def test_a_reply_that_only_suggests_a_change_retires_nothing():
    # control: advice is no change
    out = rewritten(
        msgs(
            ("user", "Book the ferry for the band, please."),
            ("assistant", "Booked: ferry QX4410 from Dover, Friday."),
            ("user", "thanks!"),
            ("assistant", "the ferry company may cancel. we could switch to QX4472 instead."),
            *aside(4),
        )
    )
    assert "QX4410" in out[1]


def test_a_reply_that_proposes_a_change_in_other_words_retires_nothing():
    # "I'd", "let's", 不如 and a closing 吧 make a proposal, not a decision: nobody moved the offsite
    for proposal in (
        "The CFO is away then. We'd push the offsite to 19 June, once she's back.",
        "The CFO is away then. Let's move the offsite to 19 June, once she's back.",
    ):
        out = rewritten(
            msgs(
                ("user", "The team offsite is on 12 June."),
                ("assistant", "Offsite pencilled in for 12 June."),
                ("user", "The CFO is travelling that week, annoying."),
                ("assistant", proposal),
                *aside(4),
            )
        )
        assert "12 June" in out[0] and "12 June" in out[1], proposal
    for proposal in ("不如把团建挪到6月19日，她那时回来了。", "她那时回来了，团建挪到6月19日吧。"):
        out = rewritten(
            msgs(
                ("user", "团建定在6月12日。"),
                ("assistant", "团建6月12日，记下了。"),
                ("user", "财务总监那周出差。"),
                ("assistant", proposal),
                *aside(4),
            )
        )
        assert "6月12日" in out[0] and "6月12日" in out[1], proposal


def test_a_reply_that_reports_a_decided_move_still_retires_the_old_date():
    # control: the same change reported as done
    out = rewritten(
        msgs(
            ("user", "团建定在6月12日。"),
            ("assistant", "团建6月12日，记下了。"),
            ("user", "财务总监那周出差，我已经通知大家改期了。"),
            ("assistant", "好的，团建已改到6月19日。"),
            *aside(4),
        )
    )
    assert "6月12日" not in out[0] and "6月19日" in out[3]


def test_a_reply_with_several_values_of_a_kind_replaces_none():
    # control: "按每桌 12 人算" in a reply that confirms a headcount is arithmetic, not a new headcount
    out = rewritten(
        msgs(
            ("user", "年会到场人数更新了，是 268 人。"),
            ("assistant", "更正：到场 268 人。按每桌 12 人算大概 23 桌。"),
            *aside(4),
        )
    )
    assert "268 人" in out[0]


def test_it_was_x_and_now_y_names_only_the_new_value():
    assert strip_replaced_values("the vet moved it, it was Tuesday 10:15 and now it's Friday at 16:00.") == (
        "the vet moved it, now it's Friday at 16:00."
    )
    assert strip_replaced_values("It was 40 seats but now 52") == "now 52"
    assert strip_replaced_values("复诊原来是 3 号，现在改到 5 号了") == "复诊现在改到 5 号了"
    # control: no value in the "it was" part
    assert strip_replaced_values("it was fun and now we rest") == "it was fun and now we rest"


def test_a_reply_repeating_the_value_just_set_in_other_words_is_retired_with_it():
    history = msgs(
        ("user", "The kiln controller listens on port 7012 for the firing schedule."),
        ("assistant", "Noted."),
        ("user", "actually the installer moved the controller to 7014, clash with the camera."),
        ("assistant", "OK, so the app should talk to 7014 from now on."),
        *aside(4),
        ("user", "installer again: the kiln controller port is final at 7020. update everything"),
        *aside(2),
    )
    out = rewritten(history)
    assert "7014" not in out[2] and "7014" not in out[3]


def test_a_value_repeated_long_after_in_other_words_keeps_its_own_subject():
    # control: far from where the value was set, a reply without the subject's words is no echo
    history = msgs(
        ("user", "The kiln controller listens on port 7012 for the firing schedule."),
        ("assistant", "Noted."),
        ("user", "actually the installer moved the controller to 7014, clash with the camera."),
        *aside(8),
        ("assistant", "The glaze batch label printer shows 7014 as its job code."),
        ("user", "installer again: the kiln controller port is final at 7020. update everything"),
        *aside(2),
    )
    out = rewritten(history)
    assert "7014" not in out[2] and "7014" in out[11]


def test_amounts_orders_of_magnitude_apart_are_different_things():
    out = rewritten(
        msgs(
            ("user", "展位费谈下来是 28 万，含搭建。"),
            ("assistant", "好的，展位费 28 万。"),
            ("user", "展位那边还说了，样品单价 89 元。另外展位费改成 31 万了。"),
            *aside(4),
        )
    )
    assert "89 元" in out[2]  # a unit price is no new stand fee
    assert "28 万" not in out[0] and "31 万" in out[2]  # control: the fee of its own size is replaced


def test_amount_magnitudes_read_the_multiplier():
    from canvasweb.context.value_ledger.scoring import _magnitude

    def mag(text):
        return _magnitude(find_mentions(text)[0])

    assert (
        mag("定金 1.5 万") == 5
        and mag("a $9k budget") == 4
        and mag("a £1.2m deal") == 7
        and mag("€14,000") == 5
    )
    # a bare 万 amount before a particle is money; before a counted noun it is not
    assert [m.type for m in find_mentions("展位费改成 31 万了")] == ["money"]
    assert [m.type for m in find_mentions("来了 3 万人")] != ["money"]
    # nor is a word that says how the amount is used or judged ("按 12.6 万算", "9.8 万便宜") a noun it counts
    assert [m.type for m in find_mentions("两辆按 12.6 万算")] == ["money"]
    assert [m.type for m in find_mentions("那家 9.8 万便宜")] == ["money"]
    assert [m.type for m in find_mentions("跑了 2 万步")] != ["money"]


def test_an_item_of_a_list_keeps_its_own_subject():
    out = rewritten(
        msgs(
            ("user", "Tickets: adult entry £24, child £12, family pass £60."),
            ("assistant", "Noted the three prices."),
            ("user", "Update: adult entry is £26 from March, the council raised it."),
            *aside(4),
        )
    )
    assert "£24" not in out[0] and "child £12" in out[0] and "family pass £60" in out[0]


def test_a_short_clause_next_to_the_old_value_is_about_the_same_subject():
    # control: the neighbour that names the old value lends its words
    out = rewritten(
        msgs(
            ("user", "帐篷那边要准备 40 顶，营地可以放下。"),
            ("assistant", "好的，帐篷 40 顶。"),
            ("user", "遮阳伞准备 12 顶，放在签到处。"),
            ("user", "帐篷那边之前说的 40 顶作废，按 55 顶准备。"),
            *aside(4),
        )
    )
    assert "40 顶" not in out[0] and "55 顶" in out[3] and "12 顶" in out[2]


# --- "was" in a plain past-tense statement --------------------------------------------------------------


def test_a_value_after_was_is_old_only_when_a_new_one_follows():
    (plain,) = find_mentions("the plumber came round and the invoice was €185, paid already")
    assert not plain.negated
    old, new = find_mentions("the slot was 11:20 but they gave us 13:05 instead")
    assert old.negated and not new.negated
    # control: another kind of value later does not make the time an old one
    time, count = find_mentions("pickup was 07:45 and we brought 12 crates")
    assert not time.negated and not count.negated


def test_a_past_tense_statement_keeps_its_value_in_the_prompt():
    history = msgs(
        ("user", "the garage fixed the clutch, the invoice was €185"),
        ("assistant", "not bad for a clutch"),
        ("user", "no, the tyres were extra, but whatever"),
    )
    assert rewritten(history)[0] == "the garage fixed the clutch, the invoice was €185"
    # control: the same sentence with a replacement after it still retires the first value
    changed = msgs(("user", "the invoice was €185, after the refund it is €160 now"))
    assert "€185" not in rewritten(changed)[0]


# --- "from" -------------------------------------------------------------------------------------------


def test_from_names_the_old_value_only_when_a_new_one_follows():
    changed = find_mentions("the hall deposit went from 140 to 160 after the audit")
    assert [(m.raw, m.negated) for m in changed] == [("140", True), ("160", False)]
    zh = find_mentions("团建预算从4万追加到5万，场地也换了")
    assert [m.negated for m in zh] == [True, False]
    assert [m.negated for m in find_mentions("the copper kettle is the original one from 1874")] == [False]
    assert [m.negated for m in find_mentions("从2019年起这条线由他负责")] == [False]


def test_a_value_said_with_from_stays_current_beside_a_look_alike():
    history = msgs(
        ("user", "history page: the brewery opened in 1874 under his grandmother, he runs it since 2003"),
        ("assistant", "nice story for the page"),
        ("user", "and the copper kettle is still the original one from 1874"),
        ("assistant", "that is a great headline"),
        ("user", '"our kettle is older than the Eiffel Tower"'),
        ("assistant", "haha not quite, the tower was finished in 1889"),
    )
    out = rewritten(history)
    assert "1874" in out[0] and "1874" in out[2]
    assert "old value" not in out[0] + out[2]


# --- items of one list; asides in brackets; a reply confirming a change --------------------------------


def test_a_correction_of_one_list_item_leaves_its_siblings():
    out = rewritten(
        msgs(
            (
                "user",
                "Ferry fares this season: the early sailing costs €38 per car, the late sailing costs €31 per car.",
            ),
            ("assistant", "Got it."),
            *aside(4),
            ("user", "Correction: the early sailing is €41 per car now."),
        )
    )
    assert "€38" not in out[0] and "€31" in out[0]


def test_a_chinese_correction_of_one_list_item_leaves_its_siblings():
    out = rewritten(
        msgs(
            ("user", "摊位价格：靠河那排（A区）每个3000元，B区每个2500元。"),
            ("assistant", "好的，记下了。"),
            *aside(4),
            ("user", "靠河那排改成每个3200元。"),
        )
    )
    assert "3000元" not in out[0] and "2500元" in out[0]


def test_an_aside_in_brackets_names_the_subject_of_its_clause():
    east, west = find_mentions(
        "Kiln East (the gas one) fires at 1240 degrees, Kiln West fires at 1180 degrees."
    )
    assert {"gas", "east"} <= east.context and "gas" not in west.context
    out = rewritten(
        msgs(
            (
                "user",
                "Kiln plan: Kiln East (the gas one) fires at 1240 degrees, Kiln West fires at 1180 degrees.",
            ),
            ("assistant", "Noted."),
            *aside(4),
            ("user", "the gas one goes to 1260 degrees from now on."),
        )
    )
    assert "1240" not in out[0] and "1180" in out[0]
    # control: an aside that states a value stays a clause of its own
    adult, student = find_mentions("Entry is £140 (student £70) for the weekend.")
    assert "student" in student.context and "student" not in adult.context


def test_a_reply_confirming_a_change_touches_only_the_changed_subject():
    out = rewritten(
        msgs(
            ("user", "Alarm levels: north tank alarms at 85%, south tank alarms at 90%."),
            ("assistant", "Noted."),
            *aside(2),
            ("user", "north tank should alarm at 80% instead."),
            ("assistant", "Done: north tank now alarms at 80%; south tank unchanged."),
            *aside(2),
        )
    )
    assert "85%" not in out[0] and "90%" in out[0]


def test_an_instruction_that_sets_a_value_replaces_the_old_one():
    out = rewritten(
        msgs(
            ("user", "Greenhouse: the seedling bench is heated to 24°C, the cactus bench to 18°C."),
            ("assistant", "Noted."),
            *aside(4),
            ("user", "set the seedling bench to 26°C from tomorrow"),
        )
    )
    assert "24°C" not in out[0] and "18°C" in out[0]
    # control: a temperature never replaces a plain number of the same digits
    out = rewritten(
        msgs(
            ("user", "the seedling bench has 24 trays"), *aside(4), ("user", "set the seedling bench to 26°C")
        )
    )
    assert "24 trays" in out[0]


# --- amounts in Chinese numerals and with a k suffix -------------------------------------------------------


def test_spoken_chinese_amounts_and_k_amounts_are_values():
    (budget,) = find_mentions("团建预算三万二。")
    assert budget.type == "money" and budget.key == "cny:32000"
    (heads,) = find_mentions("年会来了三十人")
    assert heads.type == "count" and heads.key == "30"
    (k,) = find_mentions("The stage rental is 12k for the weekend.")
    assert k.key == "12000"
    # not amounts: "together", "by all means", one teacher
    assert (
        find_mentions("我们一块去吧") == ()
        and find_mentions("千万别迟到") == ()
        and find_mentions("一位老师") == ()
    )


def test_an_amount_in_chinese_numerals_cut_in_chat_is_retired():
    out = rewritten(msgs(("user", "团建预算五万。"), *aside(4), ("user", "老板把团建预算砍到三万二了。")))
    assert "五万" not in out[0] and "[old value" in out[0]
    # control: a budget for something else keeps its value
    out = rewritten(msgs(("user", "团建预算五万。"), *aside(4), ("user", "打印机维修花了三千二。")))
    assert "五万" in out[0]


def test_a_k_amount_cut_in_chat_is_retired():
    out = rewritten(
        msgs(
            ("user", "Stage rental: 14k."), *aside(4), ("user", "Good news, the stage rental got cut to 11k.")
        )
    )
    assert "14k" not in out[0] and "[old value" in out[0]
    out = rewritten(
        msgs(("user", "Stage rental: 14k."), *aside(4), ("user", "The catering quote came in at 11k."))
    )
    assert "14k" in out[0]


def test_verbs_of_change_are_correction_cues():
    for old, new in (
        ("The rehearsal is on 3 June.", "The rehearsal slipped, it is on 10 June."),
        ("Delivery window: 9 March.", "The supplier postponed delivery to 16 March."),
        ("验收定在5月12号。", "甲方那边有事，验收挪到5月19号。"),
    ):
        out = rewritten(msgs(("user", old), *aside(4), ("user", new)))
        assert "[old value" in out[0], (old, new, out[0])


# --- a figure taken back without repeating it ---------------------------------------------------------------


def test_the_real_figure_replaces_the_first_one_said():
    out = rewritten(
        msgs(
            ("user", "Priya's first estimate: £240 per stall for the craft fair, tables included."),
            *aside(4),
            ("user", "Priya checked again: the real fee is £265 per stall, not what I told you before."),
        )
    )
    assert "£240" not in out[0] and "[old value" in out[0]


def test_the_real_thing_without_a_figure_is_no_correction():
    # control: "the real X is" followed by no figure changes nothing, so £240 stays
    out = rewritten(
        msgs(
            ("user", "Priya's first estimate: £240 per stall for the craft fair, tables included."),
            *aside(4),
            (
                "user",
                "The real problem is parking near the fair; £265 per stall is what the school fair charges.",
            ),
        )
    )
    assert "£240" in out[0]


def test_a_rates_period_names_no_subject_when_several_rates_share_it():
    # "/month" and 每月 say how often, not what is paid for: the cleaning stays £380 / 3800 元
    out = rewritten(
        msgs(
            (
                "user",
                "Studio costs. The landlord quoted £2,400/month for the unit. "
                "Cleaning is extra, they said roughly £380/month.",
            ),
            ("assistant", "Noted both."),
            ("user", "Update on the lease, I asked for two years. Now it's £2,150/month."),
            *aside(2),
        )
    )
    assert "£380/month" in out[0]
    out = rewritten(
        msgs(
            ("user", "工作室费用：房东报价每月 24000 元。保洁另算，说是每月大概 3800 元。"),
            ("assistant", "都记下了。"),
            ("user", "房租更新：签两年，谈到了每月 21500 元。"),
            *aside(2),
        )
    )
    assert "每月大概 3800 元" in out[0]


def test_a_raise_or_cut_to_a_figure_of_the_same_measure_word_replaces_it():
    out = rewritten(
        msgs(("user", "访谈计划是30个家庭。"), *aside(4), ("user", "经费批下来了，访谈要扩到45个家庭。"))
    )
    assert "30" not in out[0] and "[old value → now 45" in out[0]
    out = rewritten(
        msgs(("user", "试产批量定为800件。"), *aside(4), ("user", "模具还没调好，批量先压到500件。"))
    )
    assert "[old value → now 500" in out[0]
    # Control: another measure word is another count, whatever the verb.
    kept = rewritten(msgs(("user", "访谈计划是30个家庭。"), *aside(4), ("user", "访谈员要扩到45人。")))
    assert kept[0] == "访谈计划是30个家庭。"


def test_capacity_words_are_one_subject_whatever_the_verb():
    out = rewritten(
        msgs(
            ("user", "The chapel holds 120 mourners."),
            *aside(4),
            ("user", "Heads-up from the chapel office: capacity is down to 100 while the balcony is shut."),
        )
    )
    assert "120" not in out[0] and "[old value → now 100" in out[0]
    out = rewritten(msgs(("user", "礼堂能坐500人。"), *aside(4), ("user", "消防检查后，礼堂容量降到350。")))
    assert "500" not in out[0] and "[old value → now 350" in out[0]
    # Control: a count said without a capacity word is another subject.
    kept = rewritten(
        msgs(
            ("user", "The chapel choir has 120 members."),
            *aside(4),
            ("user", "Heads-up from the chapel office: capacity is down to 100 while the balcony is shut."),
        )
    )
    assert kept[0] == "The chapel choir has 120 members."


def test_a_value_that_a_change_verb_lands_on_replaces_the_subject_with_one_shared_word():
    from helpers_context import rewritten_chat

    out = rewritten_chat(
        ("user", "The dishwasher is £629 at Pryce's, the Bosch one."),
        ("assistant", "Noted, Bosch dishwasher £629 from Pryce's."),
        ("user", "showed them the web price and they knocked the dishwasher down to £579, delivery free"),
    )
    assert "£629" not in out[0] and "£579" in out[2]
    out = rewritten_chat(
        ("user", "灯具那边报价4600元，含安装。"),
        ("assistant", "好的，灯具4600元含安装。"),
        ("user", "跟老板磨了半天，灯具砍到4100元了，安装照送"),
    )
    assert "4600" not in out[0]


def test_a_code_of_the_same_shape_replaces_the_one_code_of_that_shape():
    from helpers_context import rewritten_chat

    out = rewritten_chat(
        ("user", "展位分到了A3-212，靠里面一点。"),
        ("assistant", "好的，展位A3-212。"),
        ("user", "主办方发通知，有人退展，位置调了，我们改到A3-108，离门口近。"),
    )
    assert "A3-212" not in out[0] and "A3-108" in out[2]
    # control: two codes of that shape are two subjects; an uncued code of the shape replaces nothing
    out = rewritten_chat(
        ("user", "展位A3-212，仓库货架A3-550。"),
        ("user", "顺便记一下隔壁是A3-213。"),
    )
    assert "A3-212" in out[0] and "A3-550" in out[0]


# --- versions -------------------------------------------------------------------------------------------


def test_a_version_that_ends_its_sentence_is_a_value():
    (m,) = [
        x
        for x in find_mentions("for the mobile build we'll lock kotlin-sdk 4.17.2. the rest later")
        if x.type == "version"
    ]
    assert m.raw == "4.17.2"
    assert [x.raw for x in find_mentions("the router sits at 10.0.3.4.5") if x.type == "version"] == [
        "10.0.3.4.5"
    ]


def test_the_old_major_line_named_retires_that_version():
    history = msgs(
        ("user", "for the mobile build we'll lock kotlin-sdk 12.4.1 for now."),
        ("assistant", "Noted kotlin-sdk 12.4.1."),
        *aside(2),
        ("user", "change of plan there — 13.0.2, not the 12 line, it needs the newer gradle."),
    )
    out = rewritten(history)
    assert "12.4.1" not in out[0] and "12.4.1" not in out[1]
    assert "13.0.2" in out[-1]


def test_a_number_said_as_old_keeps_a_version_of_another_line():
    # control: "not 10" names no 12.x version
    history = msgs(
        ("user", "for the mobile build we'll lock kotlin-sdk 12.4.1 for now."),
        *aside(2),
        ("user", "the release train has 12 carriages, not 10."),
    )
    assert "12.4.1" in rewritten(history)[0]


def test_a_closing_cue_frames_a_short_message():
    history = msgs(
        ("user", "let's quote a 12% margin on the kitchen job instead."),
        *aside(2),
        (
            "user",
            "Dev here. checked the labour: 12% doesn't cover the snagging visits. we go in at 14%. that's final.",
        ),
    )
    out = rewritten(history)
    assert "12%" not in out[0] and "[old value" in out[0]
    assert "14%" in out[-1]


def test_a_closing_cue_keeps_a_value_of_another_kind_in_a_short_message():
    # control: the £ amount beside the new percentage is no old value of the margin
    history = msgs(
        ("user", "the kitchen job is worth £48,000 and we quote a 12% margin."),
        *aside(2),
        ("user", "Dev here. checked the labour for the £48,000 job. we go in at 14%. that's final."),
    )
    assert "£48,000" in rewritten(history)[0]
