"""Corrections find the node they retire (paraphrase, Chinese, no subject), and only on a value conflict."""

from __future__ import annotations

from helpers_context import node

from canvasweb.context.capture import capture_facts, find_conflicts, match_supersede, with_label

CANVAS = [
    node("token", "Access tokens (JWT) expire after 20 minutes."),
    node("pg", "The primary database accepts connections on port 6432."),
    node("cache", "Cache port 11211"),
    node("ship", "客户验收的截止日期是6月10日"),
    node("mq", "Message bus: RabbitMQ"),
    node("goal", "Goal: open the ticketing kiosk in Lisbon by Sep 30.", pinned=True),
    node("money", "Marketing spend cap: $25k per quarter"),
    node("zhcap", "活动预算上限 30 万元"),
    node("weekday", "No releases on Fridays."),
    node("zhday", "周五禁止上线"),
    node("window", "Migration window: Mar 2 - Mar 6"),
    node("old", "Cache port 11200", superseded_by="cache"),
]


def retired(text, *, nodes=CANVAS, context=""):
    out = []
    for fact in capture_facts(text=text):
        matches = match_supersede(fact=fact, nodes=nodes, context=context)
        out.append(
            (fact.content, matches[0].node.id if matches else None, matches[0].old_value if matches else None)
        )
    return out


def test_change_from_to_names_old_and_new():
    assert retired("Change the JWT expiry from 20 minutes to 40 minutes.") == [
        ("JWT expiry: 40 minutes", "token", "20 minutes")
    ]


def test_paraphrased_subject_in_english_and_chinese():
    assert retired("Correction: token lifetime is 35 minutes.")[0][1:] == ("token", "20 minutes")
    assert retired("把交付期限改成6月20日")[0][1:] == ("ship", "6月10日")


def test_corrections_without_a_subject_use_what_was_being_discussed():
    assert retired(
        "Actually the hosting provider moved us to 6440.",
        context="Which port does the primary database listen on?",
    )[0][1:] == ("pg", "6432")
    assert retired("刚才说错了，是6月18日", context="客户验收最晚哪天？")[0][1:] == ("ship", "6月10日")
    # two candidates of the same type and nothing to tell them apart: no guess
    assert retired("Actually it is 7000.") == [("7000", None, None)]


def test_not_a_but_b_and_instead():
    assert retired("不是6月10日，而是6月12日")[0][1:] == ("ship", "6月10日")
    assert retired("Use Kafka instead of RabbitMQ.")[0][1:] == ("mq", "RabbitMQ")


def test_a_type_only_replaces_the_same_type():
    # a date does not retire the port node, a name does not retire a date
    assert all(
        node_id not in ("pg", "cache") for _, node_id, _ in retired("Actually the kickoff is on Mar 9.")
    )
    assert retired("We're going with Kafka for the message bus.")[0][1] == "mq"


def test_sharing_a_subject_word_is_not_a_conflict():
    # the pinned-goal bug: a later message about the kiosk must not retire the goal
    for text in (
        "The ticketing kiosk uses Stripe for payments.",
        "The kiosk demo is on Sep 2.",
        "We open the kiosk office on Oct 3.",
    ):
        assert all(node_id != "goal" for _, node_id, _ in retired(text)), text


def test_pinned_and_more_sensitive_nodes_are_flagged():
    nodes = [
        node("g", "Launch date: Oct 1", pinned=True),
        node("s", "Vendor rate: $900", sensitivity="internal"),
    ]
    fact = capture_facts(text="Correction: the launch date is Oct 8.")[0]
    assert [m.warnings for m in match_supersede(fact=fact, nodes=nodes)] == [("pinned",)]
    fact = capture_facts(text="Change the vendor rate from $900 to $950.")[0]
    assert [m.warnings for m in match_supersede(fact=fact, nodes=nodes)] == [("more_sensitive",)]
    # a plain statement (no correction) never retires a pinned node
    assert match_supersede(fact=capture_facts(text="Launch date: Oct 8")[0], nodes=nodes) == []


def test_twice_corrected_value_retires_the_intermediate_node():
    first = capture_facts(text="Change the JWT expiry from 20 minutes to 40 minutes.")[0]
    after_first = [n for n in CANVAS if n.id != "token"] + [node("token2", first.content)]
    second = capture_facts(text="Scratch that, make the JWT expiry 60 minutes.")
    assert any(
        m.node.id == "token2" and m.old_value == "40 minutes"
        for f in second
        for m in match_supersede(fact=f, nodes=after_first)
    )


def test_superseded_and_archived_nodes_are_never_candidates():
    assert all(node_id != "old" for _, node_id, _ in retired("Change the cache port to 11300."))


def test_with_label_rebuilds_the_statement():
    fact = capture_facts(text="刚才说错了，是6月18日")[0]
    assert with_label(fact, "截止日期").content == "截止日期：6月18日"


def conflicts(text):
    return {(c.node.id, c.reason) for c in find_conflicts(text=text, nodes=CANVAS)}


def test_conflicts_with_constraints():
    both = {("weekday", "weekday"), ("zhday", "weekday")}  # the same rule, said in either language
    assert conflicts("Let's release on Friday afternoon.") == both
    assert conflicts("这周五上线吧") == both
    assert conflicts("The agency quote for marketing is $31k.") == {("money", "cap")}
    assert conflicts("活动预算需要三十五万元") == {("zhcap", "cap")}
    assert conflicts("The migration runs on Mar 9.") == {("window", "date_range")}


def test_no_conflict_inside_the_constraint_or_when_negated():
    assert conflicts("We will not release on Friday.") == set()
    assert conflicts("The migration runs on Mar 4.") == set()
    assert conflicts("Marketing spend is $20k this quarter.") == set()
    assert conflicts("Could we release on Friday?") == set()


def test_a_description_with_a_subject_of_its_own_is_no_new_value():
    for text in (
        "The printer is actually the one we least need, the scanner matters more.",
        "Actually the venue is what you picked last spring.",
    ):
        assert [f for f in capture_facts(text=text) if f.kind == "correction"] == []
    # control: a plain noun phrase, possessive included, is the new value
    (fact,) = capture_facts(text="The venue is actually our old office.")
    assert fact.kind == "correction" and fact.value == "our old office"


def test_a_description_does_not_retire_the_earlier_statement_in_the_history():
    from canvasweb.context.retire import corrected_by
    from canvasweb.context.sentences import analyze_text

    (earlier,) = analyze_text("Scanning: 3 scanners, Epson for the archive, the rest from the old lab.")
    (later,) = analyze_text("Epson is actually the one I trust least, it jammed 12 times last month.")
    assert corrected_by(earlier, [later]) is None
    # control: a real new value for the same subject does retire it
    (fixed,) = analyze_text("Scanning: the archive scanner is actually Canon now.")
    assert corrected_by(earlier, [fixed]) is not None


# --- a value named as the old one, ZH change verbs, subjects before 说错了 ---------------------------------


def test_no_wait_opens_a_correction_and_the_value_named_as_old_is_no_fact():
    text = "No wait, $900 was the rental for one day. For the whole weekend it adds up to $1,600."
    facts = capture_facts(text=text)
    assert [(f.kind, f.value, f.previous_value) for f in facts] == [("correction", "$1,600", "$900")]
    assert not any("$900" in f.content for f in facts)  # the old value never becomes a fact
    rental = [node("rental", "Projector rental: $900"), node("cater", "Catering: $2,400")]
    assert retired(text, nodes=rental) == [(facts[0].content, "rental", "$900")]


def test_a_hold_instruction_is_no_rule():
    assert capture_facts(text="Don't card it yet, the supplier may go lower.") == []


def test_zh_from_to_with_more_change_verbs():
    assert retired("打印服务从蓝鲸文印换成青木图文了，原来那家太慢。", nodes=[]) == [
        ("打印服务：青木图文", None, None)
    ]
    [fact] = capture_facts(text="打印服务从蓝鲸文印换成青木图文了，原来那家太慢。")
    assert fact.previous_value == "蓝鲸文印"
    travel = [node("travel", "差旅预算：8万")]
    assert retired("差旅费从8万追加到11万，出差城市多了。", nodes=travel) == [
        ("差旅费：11万", "travel", "8万")
    ]


def test_zh_subject_named_before_shuo_cuo_le():
    guards = [node("guard", "保安配：6名"), node("park", "停车位：40个")]
    assert retired("刚才保安人数说错了，是9名，夜里要多两班。", nodes=guards) == [
        ("保安人数：9名", "guard", "6名")
    ]


def test_zh_a_voided_value_names_the_node_even_in_other_words():
    guests = [node("guests", "参会嘉宾：120人"), node("staff", "会务人员：20人")]
    assert retired("接待那边之前说的120人作废，按150人安排。", nodes=guests) == [
        ("接待那边：150人", "guests", "120人")
    ]


def test_zh_qishi_marks_a_correction_and_is_no_part_of_the_label():
    pay = [node("night", "夜班补贴150元/晚。"), node("meal", "餐补30元/天。")]
    assert retired("夜班补贴其实是180元/晚，150是去年的。", nodes=pay)[0] == (
        "夜班补贴：180元",
        "night",
        "150 元",
    )


def test_a_value_the_canvas_already_holds_for_the_subject_retires_nothing():
    fees = [node("full", "全程马拉松报名费200元。"), node("family", "亲子跑报名费80元。")]
    assert retired("报名费也改了，全马调整为200元。", nodes=fees) == [("全马：200元", None, None)]


def test_zh_counts_keep_their_measure_word_and_times_their_zheng():
    assert [f.content for f in capture_facts(text="签到台不是3个，而是5个。")] == ["签到台：5个"]
    assert [f.value for f in capture_facts(text="开门时间改成9点整。")] == ["9点整"]
