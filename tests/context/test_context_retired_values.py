"""Retired values never come back: chat corrections, corrections of corrections, canvas supersedes,
clause-level rewriting of long sentences, and look-alike values of other subjects that must survive."""

from __future__ import annotations

import pytest
from helpers_context import all_text, node

from canvasweb.context.compiler import compile_context
from canvasweb.context.summary import build_summary
from canvasweb.context.types import CompileRequest, MessageData

SYSTEM = "You are the team assistant."


def msgs(*pairs):
    return tuple(MessageData(id=f"m{i}", role=role, content=text) for i, (role, text) in enumerate(pairs))


def filler(n, start=0):
    return [
        ("user" if i % 2 == 0 else "assistant", f"Side note {i}: the retro board has {i} sticky notes.")
        for i in range(start, start + n)
    ]


def compile_(history, question, budget=1500, **kw):
    return compile_context(
        request=CompileRequest(system_prompt=SYSTEM, question=question, messages=history, budget=budget, **kw)
    )


def test_chat_correction_retires_the_old_value_everywhere_and_names_the_new_one():
    h = msgs(
        ("user", "The SFTP server listens on port 2201."),
        *filler(30),
        ("user", "Actually, change the SFTP server port to 2202."),
        *filler(4, 40),
    )
    c = compile_(h, "Which port does the SFTP server use?")
    text = all_text(c.messages)
    assert "2202" in text and "2201" not in text


def test_a_value_corrected_twice_retires_both_older_values():
    h = msgs(
        ("user", "The launch party budget is 3000 euros."),
        *filler(20),
        ("user", "Correction: change the launch party budget to 3500 euros."),
        *filler(20, 30),
        ("user", "Correction: change the launch party budget to 4200 euros."),
        *filler(30, 60),
    )
    for budget in (800, 1500, 3000):
        text = all_text(compile_(h, "How much can we spend on the launch party?", budget=budget).messages)
        assert "4200" in text, budget
        assert "3000" not in text and "3500" not in text, budget


def test_chinese_correction_in_chat():
    h = msgs(
        ("user", "发布会定在3月28日。"),
        *filler(24),
        ("user", "刚才说错了，发布会改成4月2日。"),
        *filler(6, 30),
    )
    text = all_text(compile_(h, "发布会是哪天？").messages)
    assert "4月2日" in text and "3月28日" not in text


def test_look_alike_value_of_another_subject_survives():
    h = msgs(
        ("user", "The SFTP server listens on port 2201."),
        ("user", "The metrics exporter listens on port 2202."),
        *filler(26),
        ("user", "Actually, change the SFTP server port to 2203."),
        *filler(4, 40),
    )
    text = all_text(
        compile_(h, "Which ports do the SFTP server and the metrics exporter use?", budget=3000).messages
    )
    assert "2203" in text and "2201" not in text
    assert "metrics exporter listens on port 2202" in text


def test_long_sentence_keeps_its_other_facts_when_one_value_is_retired():
    long = (
        "For the pilot, the onboarding call is 30 minutes, the dashboard refresh runs every 10 minutes, "
        "the pilot cohort has 40 customers, and the support inbox is pilot-help@example.org."
    )
    h = msgs(
        ("user", long),
        *filler(10),
        ("user", "Correction: change the pilot cohort to 55 customers."),
        *filler(4, 20),
    )
    text = all_text(
        compile_(h, "How big is the pilot cohort, and what is the support inbox?", budget=3000).messages
    )
    assert "55 customers" in text and "40 customers" not in text
    assert "pilot-help@example.org" in text and "every 10 minutes" in text


def test_canvas_supersede_retires_the_value_in_history_and_summary():
    old = node("old", "Feature freeze is on 12 May", superseded_by="new")
    new = node("new", "Feature freeze is on 19 May")
    h = msgs(("user", "Reminder: feature freeze is on 12 May."), *filler(40))
    for budget in (700, 2000):
        text = all_text(compile_(h, "When is the feature freeze?", budget=budget, nodes=(old, new)).messages)
        assert "19 May" in text and "12 May" not in text


def test_stored_rolling_summary_is_reconciled_with_the_canvas():
    old = node("old", "The standup moves to 09:45", superseded_by="new")
    new = node("new", "The standup moves to 10:15")
    rolling = build_summary(
        messages=msgs(("user", "We agreed the standup moves to 09:45.")), max_tokens=200
    ).text
    assert "09:45" in rolling
    c = compile_(msgs(*filler(6)), "When is standup?", budget=1200, nodes=(old, new), rolling_summary=rolling)
    text = all_text(c.messages)
    assert "09:45" not in text and "10:15" in text


def test_summary_by_subject_keeps_only_the_newest_entry():
    h = msgs(
        ("user", "Team size for the hackathon is 12 people."),
        ("assistant", "Noted."),
        ("user", "Update: change the hackathon team size to 15 people."),
        ("assistant", "Okay."),
        ("user", "Correction: change the hackathon team size to 18 people."),
    )
    s = build_summary(messages=h, max_tokens=400).text
    assert "18 people" in s and "12 people" not in s
    assert s.count("team size") == 1


def test_subjectless_correction_retires_the_nearby_value_of_the_same_shape():
    h = msgs(
        ("user", "Our cloud vendor gave us database port 6012."),
        ("assistant", "Got it, I will note the database port."),
        ("user", "Actually the vendor moved us to 6013."),
        *filler(4),
    )
    text = all_text(compile_(h, "What is the database port now?", budget=3000).messages)
    assert "6013" in text and "6012" not in text


def test_subjectless_chinese_correction():
    h = msgs(
        ("user", "验收会议定在5月20日。"),
        ("assistant", "好的，我记下了。"),
        ("user", "刚才说错了，是5月22日。"),
        *filler(4),
    )
    text = all_text(compile_(h, "验收会议哪天开？", budget=3000).messages)
    assert "5月22日" in text and "5月20日" not in text


def test_subjectless_chinese_correction_retires_only_a_count_of_the_same_measure():
    # 张 counts desks, 名 counts people: "是 40 名" corrects the pupils, not the desks.
    h = msgs(
        ("user", "新教室放 36 张课桌。"),
        ("user", "报名的是 32 名学生。"),
        ("assistant", "好的，我记下了。"),
        ("user", "刚才说错了，是 40 名。"),
        *filler(4),
    )
    text = all_text(compile_(h, "教室有几张课桌，多少学生？", budget=3000).messages)
    assert "36 张课桌" in text
    assert "32 名" not in text and "40 名" in text


def test_subjectless_correction_that_names_its_old_count_retires_only_that_count():
    # "200 人作废，按 260 人" is about the 200 volunteers: the 3000 entrants said nearby are another count
    pad = [("user" if i % 2 == 0 else "assistant", "另外：茶水间的咖啡机又坏了。") for i in range(4)]
    h = msgs(
        ("user", "报名名额定为 3000 人。"),
        ("assistant", "好的，名额 3000 人。"),
        ("user", "志愿者要招 200 人。"),
        ("assistant", "记下了。"),
        ("user", "志愿者那边之前说的 200 人作废，按 260 人准备。"),
        *pad,
    )
    said = [m["content"] for m in compile_(h, "报名名额多少人？志愿者多少？", budget=3000).messages]
    assert "报名名额定为 3000 人。" in said and "好的，名额 3000 人。" in said
    assert not any("200 人" in s and "作废" not in s for s in said)


def test_subjectless_correction_does_not_reach_far_back():
    h = msgs(
        ("user", "The office door code is 4471."),
        *filler(20),
        ("user", "The vendor quoted a port of 6012."),
        ("user", "Actually they moved us to 6013."),
        *filler(4, 30),
    )
    text = all_text(compile_(h, "What is the office door code?", budget=3000).messages)
    assert "4471" in text  # a look-alike four-digit value far back is another subject
    assert "6012" not in text


def test_a_correction_does_not_repeat_the_value_it_replaces():
    h = msgs(
        ("user", "Ticketing runs on Trackwise."),
        *filler(12),
        ("user", "Heads up: support moved from Trackwise to Deskly last month."),
        ("user", "Actually the venue fee is 7,200 euros, not 6,800."),
        ("user", "场地费刚才说错了，是 7.5 万，不是 6.8 万。"),
        *filler(4, 20),
    )
    text = all_text(
        compile_(h, "Which support tool do we use and what is the venue fee?", budget=3000).messages
    )
    assert "Deskly" in text and "7,200 euros" in text and "7.5 万" in text
    assert "Trackwise" not in text and "6,800" not in text and "6.8 万" not in text
    s = build_summary(messages=h, max_tokens=400).text
    assert "Trackwise" not in s.split("Corrections")[-1] and "6.8 万" not in s


def test_short_mention_of_a_long_superseded_node_is_retired_but_other_subjects_survive():
    old = node(
        "old",
        "Pen test window opens 11 August (remote, two testers, report within 5 days)",
        superseded_by="new",
    )
    new = node("new", "Pen test window opens 25 August (remote, two testers, report within 5 days)")
    h = msgs(
        ("user", "fyi the pen test window opens 11 August"),
        ("user", "The team offsite opens 11 August too."),
        *filler(30),
    )
    text = all_text(
        compile_(
            h, "When does the pen test window open, and when is the offsite?", budget=3000, nodes=(old, new)
        ).messages
    )
    assert "25 August" in text and "pen test window opens 11 August" not in text
    assert "offsite opens 11 August" in text


def test_chat_correction_later_superseded_on_the_canvas_still_retires_the_first_value():
    old = node("old", "Kickoff venue: Room Orion", superseded_by="new")
    new = node("new", "Kickoff venue: Room Vega")
    h = msgs(
        ("user", "The kickoff venue is Room Lyra."),
        *filler(6),
        ("user", "Correction: change the kickoff venue to Room Orion."),
        *filler(20, 10),
    )
    text = all_text(compile_(h, "Where is the kickoff?", budget=3000, nodes=(old, new)).messages)
    assert "Vega" in text and "Orion" not in text and "Lyra" not in text


def test_value_said_in_chat_between_two_canvas_versions_is_retired():
    old = node("old", "Load test runs on 14 July with 2,000 virtual users", superseded_by="new")
    new = node("new", "Load test runs on 28 July with 2,000 virtual users")
    h = msgs(
        ("user", "the load test runs on 14 July"),
        *filler(8),
        ("user", "heads up, the load test moves to 21 July"),
        *filler(8, 20),
        ("user", "Our release retro is on 21 July."),
        *filler(8, 40),
    )
    text = all_text(
        compile_(h, "When is the load test, and the release retro?", budget=3000, nodes=(old, new)).messages
    )
    assert "28 July" in text and "14 July" not in text and "load test moves to 21 July" not in text
    assert "release retro is on 21 July" in text


def test_another_date_said_in_chat_between_two_canvas_versions_is_kept_when_only_the_date_is_shared():
    # The 8, 月 and 日 of the dates are all the two statements share: the inspection is no subject of
    # the superseded pour date, and neither is it retired as one.
    old = node("old", "浇筑日：8月3日（周五）", superseded_by="new")
    new = node("new", "浇筑日：8月17日（周五），商混站已确认")
    h = msgs(
        ("user", "浇筑日先定8月3日。"),
        *filler(8),
        ("user", "还有两个检查：监理8月9日看钢筋，质监站8月14日来抽检试块。"),
        *filler(8, 20),
        ("user", "浇筑日改到8月10日了，画布等正式通知再改。"),
        *filler(8, 40),
    )
    text = all_text(compile_(h, "质监站哪天来抽检？", budget=3000, nodes=(old, new)).messages)
    assert "质监站8月14日来抽检试块" in text
    assert "8月17日" in text and "8月3日" not in text and "改到8月10日" not in text


def test_a_sentence_stating_the_newest_version_of_a_chain_is_kept():
    # 3月14日 -> 3月21日 -> 3月20日 on the canvas: the reply that names the newest date restates
    # no old version, though its number has the shape of the middle one.
    a = node("a", "发布会日期：3月14日（周六）下午", superseded_by="b")
    b = node("b", "发布会日期：3月21日（周六）下午，国展中心", superseded_by="c")
    c = node("c", "发布会日期：3月20日（周五）下午，国展中心")
    h = msgs(
        ("user", "发布会先定3月14日。"),
        *filler(8),
        ("assistant", "日期卡片已换成 3月20日（周五）下午。"),
        *filler(8, 20),
    )
    text = all_text(compile_(h, "发布会是哪天？", budget=3000, nodes=(a, b, c)).messages)
    assert "日期卡片已换成 3月20日（周五）下午" in text
    assert "3月14日" not in text


def test_a_new_statement_about_an_archived_subject_is_kept():
    old = node("old", "Print run: Inkwell Press, 500 copies.", archived=True)
    h = msgs(
        ("user", "Print run is with Inkwell Press, 500 copies."),
        *filler(8),
        (
            "user",
            "Inkwell Press was too slow: the print run moved to Papercraft, 800 copies. Archive the old card.",
        ),
        *filler(8, 20),
    )
    text = all_text(
        compile_(h, "Who prints the run, and how many copies?", budget=3000, nodes=(old,)).messages
    )
    assert "Papercraft, 800 copies" in text
    assert "Print run is with Inkwell Press, 500 copies" not in text


def test_the_chinese_message_that_replaces_an_archived_supplier_is_kept():
    old = node("old", "打印机供应商：墨点科技。", archived=True)
    h = msgs(
        ("user", "打印机供应商定了墨点科技。"),
        *filler(6),
        ("user", "打印机还是用墨点科技，下周来装。"),
        *filler(6, 10),
        ("user", "打印机从墨点科技换成了蓝鲸办公，原来那家售后太慢，那张卡片归档吧。"),
        *filler(6, 20),
    )
    text = all_text(compile_(h, "打印机找哪家？", budget=3000, nodes=(old,)).messages)
    assert "换成了蓝鲸办公" in text
    assert "打印机还是用墨点科技" not in text and "打印机供应商定了墨点科技" not in text


@pytest.mark.parametrize(
    ("archived", "live", "history", "question", "echo", "kept"),
    [
        (
            "Banner printing: Acme Print, £400 for 12 banners",
            "Banner printing: Bolt Press, £450 for 12 banners",
            [
                ("user", "We'll order the banners from Acme Print, they quoted £400 for twelve."),
                ("assistant", "Great, Acme Print it is."),
            ],
            "Which company prints our banners?",
            "Great, Acme Print it is.",
            "Acme Print still owes us a refund for the sample we sent back",
        ),
        (
            "横幅印刷：墨点广告，12条共400元，含上门安装，周五前送到会场",
            "横幅印刷：蓝鲸快印，12条共450元，含上门安装，周五前送到会场",
            [("user", "横幅就找墨点广告吧，12条400元。"), ("assistant", "好的，就定墨点广告了。")],
            "横幅找哪家印？",
            "好的，就定墨点广告了。",
            "墨点广告还欠我们一张样品横幅的退款，财务下周去对账",
        ),
    ],
)
def test_a_short_echo_of_an_archived_choice_is_retired(archived, live, history, question, echo, kept):
    # The card of the first choice is archived and a live card names the new one: a short reply that
    # only repeats the old name must not read as current; a sentence that says more about the old
    # vendor (a refund it owes) is a statement of its own and stays.
    old = node("old", archived, archived=True)
    new = node("new", live)
    h = msgs(*history, *filler(8), ("user", f"{kept}."), *filler(8, 20))
    text = all_text(compile_(h, question, budget=3000, nodes=(old, new)).messages)
    assert echo not in text
    assert kept in text


def test_a_marker_never_names_a_value_that_was_retired_later():
    from canvasweb.context.retire import OUTDATED_MARKER, retire_outdated

    old = MessageData(id="o", role="user", content="The pottery fair stand is booked for 9 May.")
    correction = MessageData(id="c", role="user", content="Correction: the pottery fair stand is on 16 May.")
    later: list = []
    assert retire_outdated(message=correction, later_corrections=later) is None  # newest first
    named = retire_outdated(message=old, later_corrections=list(later))
    assert named is not None and "corrected later to" in named and "16 May" in named
    # once 16 May is retired in turn (by the value ledger), the marker names no value
    unnamed = retire_outdated(
        message=old, later_corrections=list(later), retired_values=frozenset({"16 May"})
    )
    assert unnamed == OUTDATED_MARKER


def test_subjectless_correction_with_an_amount_keeps_a_nearby_length():
    # "£2.4m instead" replaces the earlier quote, not the 3.10 m headroom said in between.
    h = msgs(
        ("user", "The first builder quoted £2.1m for the whole job."),
        ("user", "Measured the garage: the headroom is only 3.10 m under the joists."),
        ("assistant", "Noted both."),
        ("user", "Oakfield Builders instead — 2027, £2.4m, and they're local, which helps."),
        *filler(4),
    )
    text = all_text(
        compile_(
            h, "How much headroom is there in the garage, and the builder's price?", budget=3000
        ).messages
    )
    assert "3.10 m" in text and "£2.4m" in text
