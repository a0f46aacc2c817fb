"""A date measured from another event ("starts 4 March, two weeks before the launch") is not that
event's date: when the event moves, the start date stays.

Own sentences, none from bench/. Each test pairs the retirement that must happen with the one that
must not, so it fails both when the ledger over-retires and when it stops retiring.
"""

from __future__ import annotations

from helpers_context import rewritten_chat


def test_a_date_before_an_event_is_not_the_events_date():
    out = rewritten_chat(
        ("user", "The product launch is set for 10 March."),
        (
            "user",
            "Our new designer Tomasz starts on 24 February, which gives us two weeks with him before the product launch.",
        ),
        ("user", "Change of plan: the product launch moves to 20 March."),
    )
    assert "[old value" in out[0] and "10 March" not in out[0]  # the launch date itself is retired
    assert "24 February" in out[1] and "[old value" not in out[1]


def test_a_date_in_chinese_ahead_of_an_event_is_not_the_events_date():
    out = rewritten_chat(
        ("user", "发布会定在3月10日。"),
        ("user", "新来的设计师小周2月24日到岗正好赶在发布会之前熟悉产品。"),
        ("user", "发布会改到3月20日了。"),
    )
    assert "3月10日" not in out[0]
    assert "2月24日" in out[1] and "[old value" not in out[1]


def test_a_span_that_ends_on_another_value_keeps_its_words():
    # "from 8am until we reopen on Monday": what follows "until" is the span's end, a value of its own,
    # so the start keeps those words and is not taken for the removal van's time.
    out = rewritten_chat(
        ("user", "The removal van will be at the old clinic for 07:30 on the Saturday."),
        (
            "user",
            "The locum practice now covers all our emergencies from Saturday 8am until we reopen on Monday.",
        ),
        ("user", "Correction: the removal van comes at 09:00 on the Saturday, not 07:30."),
    )
    assert "07:30" not in out[0]  # the van's own correction still retires its time
    assert "8am" in out[1] and "[old value" not in out[1]
