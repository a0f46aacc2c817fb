"""Clock times in Chinese numerals ("六点四十", "八点半", "早上七点") are values like "6:40": a later
correction retires them. 点 that counts points or means "a little" is no time; "十点开门之前" says
"before ten", it takes nothing back; "两个" is a number, not a subject word.

Own sentences, none from bench/.
"""

from __future__ import annotations

import pytest
from helpers_context import rewritten_chat

from canvasweb.context.capture.values import find_values
from canvasweb.context.types import MessageData
from canvasweb.context.value_ledger import build_ledger
from canvasweb.context.value_mentions import find_mentions
from canvasweb.context.value_mentions.words import subject_words


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("保洁阿姨五点四十到", "05:40"),
        ("家长八点半可以进场", "08:30"),
        ("早上七点集合", "07:00"),
        ("晚上九点一刻收摊", "21:15"),
        ("仓库十点才开门", "10:00"),
        ("两点零五发车", "02:05"),
    ],
)
def test_a_clock_time_in_chinese_numerals_is_a_time(text, key):
    assert [(v.type, v.key) for v in find_values(text)] == [("time", key)]


@pytest.mark.parametrize("text", ["我有两点建议", "再快一点", "早一点到也行", "三点要注意：安全第一"])
def test_points_and_a_little_are_no_time(text):
    assert not [v for v in find_values(text) if v.type == "time"]


def test_a_correction_retires_a_time_said_in_chinese_numerals():
    out = rewritten_chat(
        ("user", "跟老周说好了，装卸工五点四十到仓库，先把冷柜的货卸了"),
        ("assistant", "好的，装卸工五点四十到仓库，先卸冷柜的货。"),
        ("user", "物业说大门六点才开，装卸工改成 6:15 到"),
    )
    assert "五点四十" not in out[0] and "[old value → now 6:15]" in out[0]
    assert "五点四十" not in out[1]
    assert "6:15" in out[2]


def test_before_a_time_takes_nothing_back():
    # 之前 after a time means "before", not "what was said before"
    out = rewritten_chat(
        ("user", "展厅营业时间 9:30—21:00。"),
        ("user", "布展的师傅七点二十到，九点半开门之前得把灯调好"),
    )
    assert "9:30" in out[0] and "七点二十" in out[1]


def test_a_number_with_its_measure_word_is_no_subject_word():
    assert "两个" not in subject_words("接下来两个月主要做它")
    assert "几位" not in subject_words("还有几位老师没报名")
    (m,) = [x for x in find_mentions("接下来两个月主要做它，提案定在 5月9日") if x.type == "date"]
    assert "两个" not in m.context


def test_a_code_glued_to_chinese_words_is_a_value():
    found = [(m.raw, m.type) for m in find_mentions("后厨设备：烤箱新麦SM-704三层十盘，和面机 25 公斤")]
    assert ("SM-704", "ident") in found
    out = rewritten_chat(
        ("user", "打印机定了，型号HL-3190CDW，下周到。"),
        ("assistant", "好的，打印机 HL-3190CDW 下周到。"),
        ("user", "打印机那款停产了，改成HL-L3280CDW，价格差不多"),
    )
    assert "HL-3190CDW" not in out[0] and "HL-3190CDW" not in out[1]


def test_a_replaced_card_retires_its_code_wherever_it_was_said():
    from canvasweb.context.types import NodeData

    t = lambda i: f"2026-03-01T10:{i:02d}:00Z"  # noqa: E731
    history = (
        MessageData(id="k0", role="user", content="收银机定了，商米 T2-Pro 两台", created_at=t(0)),
        MessageData(
            id="k1",
            role="user",
            content="代理商那边说 T2-Pro 这批缺货，下月中才有，建议换 T3-Max，我看可以",
            created_at=t(1),
        ),
    )
    nodes = (
        NodeData(id="a", content="收银机：商米 T2-Pro ×2", superseded_by="b", updated_at=t(2)),
        NodeData(id="b", content="收银机：商米 T3-Max ×2（原型号缺货）", updated_at=t(2)),
    )
    ledger = build_ledger(messages=history, nodes=nodes)
    assert "T2-Pro" not in ledger.rewrite(0, history[0].content)
    assert "T2-Pro" not in ledger.rewrite(1, history[1].content)


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("卖四万二就算成功", "cny:42000"),
        ("比去年的3.8万高一点", "cny:38000"),
        ("预算三万五就够", "cny:35000"),
    ],
)
def test_an_amount_in_wan_before_a_particle_or_a_comparison_is_money(text, key):
    assert [(v.type, v.key) for v in find_values(text)] == [("money", key)]


def test_last_years_figure_is_no_subject_of_this_years_target():
    out = rewritten_chat(
        ("user", "这次展会目标定个小点的，卖三万就行"),
        ("assistant", "三万，比去年的2.6万高一点，挺实在。"),
        ("user", "我们重新商量了，去年那个数其实很容易做到，今年最后定了4.5万"),
    )
    assert "2.6万" in out[1]
