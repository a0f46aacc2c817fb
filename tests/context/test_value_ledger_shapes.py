"""Value shapes and markers the value ledger must read right: thousands separators in counts,
counts beside money with the same digits, corrections that share only a generic verb, markers
that would name a value retired since.

Own sentences (EN and ZH), none from bench/.
"""

from __future__ import annotations

from canvasweb.context.types import MessageData
from canvasweb.context.value_ledger import build_ledger
from canvasweb.context.value_mentions import find_mentions


def msgs(*pairs):
    return tuple(MessageData(id=f"s{i}", role=role, content=text) for i, (role, text) in enumerate(pairs))


def rewritten(history):
    ledger = build_ledger(messages=history)
    return [ledger.rewrite(i, m.content) for i, m in enumerate(history)]


def aside(n):
    return [
        ("user" if i % 2 == 0 else "assistant", f"Side remark {i}: the kettle in the lab keeps tripping.")
        for i in range(n)
    ]


# --- thousands separators in counts ---------------------------------------------------------------


def test_a_count_with_thousands_separators_is_read_whole():
    (en,) = find_mentions("The stadium expects 3,000 people tonight")
    assert (en.type, en.raw, en.key, en.number) == ("count", "3,000 people", "3000", "3000")
    (big,) = find_mentions("we registered 12,500 members last spring")
    assert (big.raw, big.key) == ("12,500 members", "12500")
    (zh,) = find_mentions("开幕式预计3,000人到场")
    assert (zh.type, zh.raw, zh.key) == ("count", "3,000人", "3000")
    (wan,) = find_mentions("马拉松报名1.2万人")
    assert (wan.type, wan.key, wan.number, wan.unit) == ("count", "12000", "12000", "人")


def test_two_counts_in_thousands_are_different_values():
    out = rewritten(
        msgs(
            ("user", "The conference hall fits 3,000 people."),
            *aside(4),
            ("user", "Actually the conference hall fits 2,500 people now."),
        )
    )
    assert "3,000" not in out[0] and "[old value → now 2,500 people]" in out[0]
    out = rewritten(
        msgs(("user", "礼堂可以坐3,000人。"), *aside(4), ("user", "更正一下，礼堂只能坐2,400人。"))
    )
    assert "3,000人" not in out[0] and "[old value" in out[0]


def test_a_count_in_thousands_said_again_stays():
    # control: the same count said again is no change
    out = rewritten(
        msgs(
            ("user", "The conference hall fits 3,000 people."),
            *aside(4),
            ("user", "Reminder: the conference hall fits 3,000 people."),
        )
    )
    assert "3,000 people" in out[0]


# --- a count is not a money amount with the same digits -------------------------------------------


def test_a_count_named_as_too_many_leaves_a_money_amount_with_its_digits():
    out = rewritten(
        msgs(
            ("user", "软件授权这块：每年维护费 30 万，按年付。"),
            *aside(4),
            ("user", "机房那边，30 台机柜太多了，先上 18 台。"),
        )
    )
    assert "30 万" in out[0]
    out = rewritten(
        msgs(
            ("user", "The yearly support contract is $40, billed in January."),
            *aside(4),
            ("user", "For the workshop, 40 laptops are too many, we will bring 25 laptops."),
        )
    )
    assert "$40" in out[0]


def test_a_money_amount_named_as_too_much_is_still_retired():
    # control: the same old-value phrasing about the amount itself retires it
    out = rewritten(
        msgs(
            ("user", "软件授权这块：每年维护费 30 万，按年付。"),
            *aside(4),
            ("user", "维护费 30 万太多了，谈到了 26 万。"),
        )
    )
    assert "30 万" not in out[0] and "[old value" in out[0]


# --- a correction that shares only a generic verb -------------------------------------------------


def test_a_correction_sharing_only_a_generic_verb_leaves_another_subject_alone():
    out = rewritten(
        msgs(
            (
                "user",
                "Plan for Saturday: we set up the stage at 13:30, once the 13:00 school class leaves the hall.",
            ),
            *aside(4),
            ("user", "Bad news from the airline, they moved the return flight, it now leaves at 18:05."),
        )
    )
    assert "13:00" in out[0] and "13:30" in out[0]
    out = rewritten(
        msgs(
            ("user", "周六安排：我们 13:30 开始搭舞台，等 13:00 的学生团出发。"),
            *aside(4),
            ("user", "坏消息，航班改了，现在 18:05 出发。"),
        )
    )
    assert "13:00" in out[0] and "13:30" in out[0]


def test_a_correction_sharing_a_generic_verb_and_a_noun_replaces_that_subject():
    # control: the subject that shares a real noun (flight, 航班) is replaced, the other kept
    out = rewritten(
        msgs(
            ("user", "The return flight leaves at 17:40 on Sunday evening."),
            (
                "user",
                "Plan for Saturday: we set up the stage at 13:30, once the 13:00 school class leaves the hall.",
            ),
            *aside(4),
            ("user", "Bad news from the airline, they moved the return flight, it now leaves at 18:05."),
        )
    )
    assert "17:40" not in out[0] and "[old value → now 18:05]" in out[0] and "13:00" in out[1]
    out = rewritten(
        msgs(
            ("user", "回程航班 17:40 出发。"),
            ("user", "周六安排：我们 13:30 开始搭舞台，等 13:00 的学生团出发。"),
            *aside(4),
            ("user", "坏消息，航班改了，现在 18:05 出发。"),
        )
    )
    assert "17:40" not in out[0] and "13:00" in out[1]


def test_a_short_correction_that_names_its_subject_by_the_verb_alone_still_replaces_it():
    # control: nothing else is named, so the verb is the subject ("it starts at 9:30")
    out = rewritten(
        msgs(("user", "The workshop starts at 9:00."), *aside(4), ("user", "Sorry, it starts at 9:30."))
    )
    assert "9:00" not in out[0]
    out = rewritten(msgs(("user", "培训上午 9:00 开始。"), *aside(4), ("user", "刚才说错了，9:30 开始。")))
    assert "9:00" not in out[0]


# --- a marker never names a value that is itself retired ------------------------------------------


def test_a_marker_does_not_name_a_value_another_subject_retired_since():
    out = rewritten(
        msgs(
            ("user", "The staging database listens on port 5433."),
            *aside(4),
            ("user", "Actually the staging database listens on port 5434 now."),
            ("user", "Note for the VPN crew: the firewall opens 5434 for the office."),
            ("user", "Firewall change: not 5434 any more, the firewall opens 5440 for the office."),
        )
    )
    assert out[0] == "The staging database listens on port [old value]."
    out = rewritten(
        msgs(
            ("user", "订票：回程航班 17:40 起飞。"),
            *aside(4),
            ("user", "更正，回程航班改到 18:05 起飞。"),
            ("user", "防火墙那边：18:05 的同步任务开始。"),
            ("user", "同步任务不再是 18:05，改成 19:00。"),
        )
    )
    assert out[0] == "订票：回程航班 [old value] 起飞。"


def test_a_marker_still_names_a_current_value_nobody_retired():
    # control: without the second subject's change the marker names the current value
    out = rewritten(
        msgs(
            ("user", "The staging database listens on port 5433."),
            *aside(4),
            ("user", "Actually the staging database listens on port 5434 now."),
            ("user", "Note for the VPN crew: the firewall opens 5434 for the office."),
        )
    )
    assert out[0] == "The staging database listens on port [old value → now 5434]."


def _slot(text, *, retired=(), current=None):
    from canvasweb.context.value_ledger.scoring import _Slot

    (m,) = find_mentions(text)
    return m, _Slot(kind=m.type, words=set(m.context), current=current, retired=list(retired))


def test_a_marker_names_the_value_that_replaced_it_in_a_clearly_same_subject():
    from canvasweb.context.value_ledger import _live_value

    b, here = _slot("the staging database port is 5434")
    here.current = b
    c, same = _slot("the staging database port moved to 5440", retired=[b])
    same.current = c
    assert _live_value(here, [here, same]) is c
    c2, other = _slot("the office firewall opens 5440", retired=[b])
    other.current = c2
    assert _live_value(here, [here, other]) is None
    # ZH: 回程航班 (B) later replaced in a subject with the same words
    b, here = _slot("回程航班 18:05 起飞")
    here.current = b
    c, same = _slot("回程航班改到 19:10 起飞", retired=[b])
    same.current = c
    assert _live_value(here, [here, same]) is c
