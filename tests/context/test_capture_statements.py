"""The deterministic extractor on ordinary statements in English and Chinese (our own sentences)."""

from __future__ import annotations

import pytest

from canvasweb.context.capture import capture_facts, find_values, same_value, value_type
from canvasweb.context.capture.values import arabic_numerals, cn_to_int


def facts(text):
    return [(f.content, f.value_type) for f in capture_facts(text=text) if not f.tentative]


@pytest.mark.parametrize(
    "text, statement, vtype",
    [
        ("We're going with NATS for the message bus.", "Message bus: NATS", "name"),
        ("We decided on Terraform for provisioning.", "Provisioning: Terraform", "name"),
        ("Let's use Grafana for the dashboards.", "Dashboards: Grafana", "name"),
        ("Headcount: 41", "Headcount: 41", "number"),
        ("cluster region: ap-southeast-2", "Cluster region: ap-southeast-2", "region"),
        ("Client SDK version: v3.2.0", "Client SDK version: v3.2.0", "version"),
        ("The beta deadline is Jun 9.", "Beta deadline: Jun 9", "date"),
        ("Go-live date: 2027-02-14", "Go-live date: 2027-02-14", "date"),
        ("The pilot budget is $12k.", "Pilot budget: $12k", "money"),
        ("Session idle timeout is 45 minutes.", "Session idle timeout: 45 minutes", "duration"),
        ("We ship on October 3rd.", "Ship: October 3rd", "date"),
        ("The offsite is on Nov 12, 2026.", "Offsite: Nov 12, 2026", "date"),
        ("验收日期定在5月20日。", "验收日期：5月20日", "date"),
        ("硬件预算是二十五万元。", "硬件预算：25万元", "money"),
        ("运维团队 7 人。", "运维团队：7 人", "count"),
        ("我们决定用 Pulsar 做消息队列。", "消息队列：Pulsar", "name"),
        ("定了，用 Vite。", "决定：Vite", "name"),
        ("下周五发版。", "发版：下周五", "date"),
        ("接口超时为十五秒。", "接口超时：15秒", "duration"),
        ("部署区域：cn-north-1", "部署区域：cn-north-1", "region"),
    ],
)
def test_ordinary_statements_become_clean_facts(text, statement, vtype):
    assert (statement, vtype) in facts(text), capture_facts(text=text)


@pytest.mark.parametrize(
    "text",
    [
        "Should we move the retro to Thursday?",
        "What if the budget is $90k?",
        "If the vendor slips, the launch is on May 3.",
        "如果预算是五十万元，够不够？",
        "交付日期是哪天？",
        "假如我们用 Kafka 做消息队列呢",
    ],
)
def test_questions_and_hypotheticals_are_not_facts(text):
    assert facts(text) == []


@pytest.mark.parametrize(
    "text",
    [
        "Maybe we go with Redis for the session store.",
        "交付日期可能是6月1日。",
        "The budget is probably $30k.",
    ],
)
def test_hedged_statements_are_tentative(text):
    found = capture_facts(text=text)
    assert found and all(f.tentative for f in found)


def test_chinese_numerals():
    assert cn_to_int("四十万") == 400000 and cn_to_int("十二") == 12 and cn_to_int("一百零五") == 105
    # spoken short forms: the last digit counts in the next lower unit
    assert cn_to_int("三万二") == 32000 and cn_to_int("两千五") == 2500 and cn_to_int("一百五") == 150
    assert arabic_numerals("团队十二人，预算四十万元") == "团队12人，预算40万元"
    assert arabic_numerals("大家一起统一口径") == "大家一起统一口径"  # 一 inside words stays
    assert same_value("四十万元", "400000元") and same_value("40万", "四十万元")


def test_typed_values_compare_by_meaning():
    assert same_value("30 minutes", "30 mins") and not same_value("30 minutes", "30 hours")
    assert same_value("Apr 1", "April 1st") and same_value("4月1日", "4月1号")
    assert same_value("$40k", "$40,000") and not same_value("$40k", "40k EUR")
    assert [v.type for v in find_values("db.example.net:6543 in eu-north-1 at 3pm")] == [
        "port",
        "region",
        "time",
    ]
    assert (
        value_type("Kafka") == "name"
        and value_type("2026-04-01") == "date"
        and value_type("15%") == "percent"
    )


def test_one_value_is_offered_once_and_parts_of_values_are_not_facts():
    got = capture_facts(text="Change the cache TTL from 10 minutes to 20 minutes.")
    assert [(f.kind, f.content, f.previous_value) for f in got] == [
        ("correction", "Cache TTL: 20 minutes", "10 minutes")
    ]


def test_rules_stay_sentences():
    got = capture_facts(text="Never run migrations during business hours. 禁止在周末发布。")
    assert [(f.kind, f.content) for f in got] == [
        ("rule", "Never run migrations during business hours."),
        ("rule", "禁止在周末发布。"),
    ]


def test_credentials_never_become_values():
    got = capture_facts(text="api_key: sk-live-abcdefghijklmnop1234 and the port is 7000")
    assert all("sk-live" not in f.content + (f.value or "") for f in got)


def test_temperatures_are_values_of_their_own_kind():
    got = [
        (v.type, v.key) for v in find_values("kiln A at 1240 degrees, the dryer at 65 °C, the fridge −4°F")
    ]
    assert got == [("temperature", "c:1240"), ("temperature", "c:65"), ("temperature", "f:-4")]
    assert same_value("80°C", "80 ℃") and same_value("80 degrees Celsius", "80°C")
    assert not same_value("80°C", "80°F") and not same_value("80°C", "80")
    assert [(v.type, v.key) for v in find_values("样本柜设在零下80度，冷藏柜4℃")] == [
        ("temperature", "c:-80"),
        ("temperature", "c:4"),
    ]
    # control: electricity is counted in 度 too
    assert [v.type for v in find_values("上个月用了 320 度电")] == ["number"]
    (fact,) = capture_facts(text="Change the proofing room from 27°C to 29°C.")
    assert (fact.content, fact.value_type, fact.previous_value) == (
        "Proofing room: 29°C",
        "temperature",
        "27°C",
    )


def test_held_messages_say_card_and_chat_in_other_words():
    from canvasweb.context.capture import on_hold

    assert on_hold("The caterer quoted $40 a head. Don't card it yet.")
    assert on_hold("Keep it in chat for now, the numbers may move.")
    assert not on_hold("Put it on the board: the caterer quoted $40 a head.")
