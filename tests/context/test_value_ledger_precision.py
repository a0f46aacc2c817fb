"""Current values the history filters must not retire: a speaker's name is no topic, a value set by
a correction is not replaced by the next value of the same message, "drops everyone at" is no fall
in a value, and a long sentence of figures with "rather than" in it is no subjectless correction.

Own sentences, none from bench/.
"""

from __future__ import annotations

from helpers_context import rewritten_chat

from canvasweb.context.retire import retire_outdated
from canvasweb.context.types import MessageData
from canvasweb.context.value_mentions import find_mentions


def test_a_speaker_signature_is_no_topic_of_the_message():
    (m,) = find_mentions("Priya. The minibus leaves the depot at 06:10.")
    assert "priya" not in m.context
    (h,) = find_mentions("budget: the minibus hire is £420")
    assert "budget" in h.context  # a real topic header still counts


def test_a_value_set_by_a_correction_stays_beside_another_value_of_its_kind():
    out = rewritten_chat(
        ("user", "Priya. The minibus leaves the depot at 06:10. Kids there by 05:55."),
        ("assistant", "Noted."),
        (
            "user",
            "Priya. I had it wrong, the minibus leaves the depot at 05:40, not 06:10. Kids in the yard by 05:25.",
        ),
    )
    assert "05:40" in out[2] and "[old value → now 05:40]" in out[0]


def test_dropping_people_off_is_no_fall_in_a_value():
    out = rewritten_chat(
        ("user", "The minibus leaves the depot at 06:10 on the first day."),
        ("assistant", "Noted."),
        ("user", "Coming back, the minibus drops everyone at the depot gate around 18:20."),
    )
    assert "06:10" in out[0]


def test_a_value_that_drops_to_a_new_figure_is_still_a_correction():
    out = rewritten_chat(
        ("user", "The hall hire for the fair is £640."),
        ("assistant", "Noted."),
        ("user", "Good news, the hall hire drops to £560 if we book before Friday is over and done."),
    )
    assert "£640" not in out[0]


def test_a_long_sentence_of_figures_is_no_subjectless_correction():
    earlier = MessageData(id="e", role="user", content="Minibus leaves at 5:40, kids there by 5:25.")
    later = MessageData(
        id="l",
        role="user",
        content=(
            "On pocket money: a bus ticket is about 450 forint and a pastry 350, so we suggest 15,000 "
            "forint a week, roughly £34, on a prepaid card rather than cash."
        ),
    )
    corrections: list = []
    retire_outdated(message=later, later_corrections=corrections, position=5)
    assert retire_outdated(message=earlier, later_corrections=corrections, position=2) is None


def test_a_price_word_makes_a_bare_chinese_amount_money():
    (m,) = find_mentions("供应商说单价可以降到 46,800 一套")
    assert m.type == "money" and m.key == "cny:46800"
    out = rewritten_chat(
        ("user", "展柜报价 ¥52,000/套。"),
        ("assistant", "好的。"),
        ("user", "刚谈完，展柜报价改成 46,800 了。"),
    )
    assert "52,000" not in out[0]
    # control: a small count after a price word is no amount
    (c,) = find_mentions("单价 3 个以内")
    assert c.type != "money"
