"""Values as people say them in English chat, and corrections that name who or what changed:
"half eight", "by 8.30", "7.45pm", "quarter to nine" are times; a correction that names the same
rare proper name as the statement ("the plumber Kwame … Kwame can't come that day") is about it;
"X can't do it after all … found Y" and "Y from Z has stepped in" replace a name.

Own sentences, none from bench/.
"""

from __future__ import annotations

import pytest
from helpers_context import rewritten_chat

from canvasweb.context.capture.values import find_values
from canvasweb.context.name_mentions import corrected_names


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("the caterers arrive at half seven", "07:30"),
        ("can you be there by 8.15 please", "08:15"),
        ("last orders at 10.40pm", "22:40"),
        ("registration opens at quarter to nine", "08:45"),
        ("the bus goes at a quarter past 6", "06:15"),
        ("doors at 7 o'clock", "07:00"),
    ],
)
def test_british_clock_times_are_times(text, key):
    assert [(v.type, v.key) for v in find_values(text)] == [("time", key)]


@pytest.mark.parametrize(
    "text",
    ["we need half an hour", "half the budget is gone", "the tickets cost 8.30", "inflation hit 4.25%"],
)
def test_halves_prices_and_rates_are_no_times(text):
    assert not [v for v in find_values(text) if v.type == "time"]


def test_a_correction_naming_the_same_rare_name_retires_its_date():
    out = rewritten_chat(
        ("user", "plumber is Kwame, he can do Wednesday 4 March for the boiler swap"),
        ("assistant", "Great, Kwame on Wednesday 4 March for the boiler."),
        ("user", "the radiators arrive Monday 2 March, Tom says"),
        ("user", "argh, Kwame got called out to an emergency that day, he's coming Friday 6 March instead"),
    )
    assert "4 March" not in out[0] and "4 March" not in out[1]
    assert "Monday 2 March" in out[2]  # another subject's date stays


def test_a_time_said_as_half_past_is_retired_by_a_correction():
    out = rewritten_chat(
        ("user", "the florist will be at the hall for half past seven on the Friday"),
        ("user", "florist rang, she can't get to the hall before 9.15 now, van's in for repair"),
    )
    assert "half past seven" not in out[0]


def test_who_cannot_do_it_and_who_stepped_in():
    names = {
        n.raw: n.role
        for n in corrected_names(
            "Ines Duarte can't do the proofreading after all. found Tariq Amin via the guild instead."
        )
    }
    assert names == {"Ines Duarte": "old", "Tariq Amin": "new"}
    names = {
        n.raw: n.role
        for n in corrected_names("Our treasurer is off sick. Priya Shah from Westfield has stepped in.")
    }
    assert names.get("Priya Shah") == "new"


def test_bare_numbers_that_count_different_nouns_are_different_values():
    from canvasweb.context.value_mentions import find_mentions
    from canvasweb.context.value_mentions.mention import same_value

    (kegs,) = find_mentions("we fill 30 kegs a day")
    (crates,) = find_mentions("a pallet takes 30 crates")
    (kegs_again,) = find_mentions("make that 30 kegs")
    assert not same_value(kegs, crates)
    assert same_value(kegs, kegs_again)
