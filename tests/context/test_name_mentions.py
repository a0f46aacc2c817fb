"""Names read as values (name_mentions.py): only where a correction frames them as old or new.

Own sentences (EN and ZH), none from bench/.
"""

from __future__ import annotations

from canvasweb.context.name_mentions import (
    corrected_names,
    name_key,
    name_occurrences,
    occurrence_pattern,
    tracked_forms,
)
from canvasweb.context.value_mentions import find_mentions


def roles(text):
    return [(n.raw, n.role) for n in corrected_names(text)]


def test_no_longer_and_takes_over_name_the_old_and_the_new():
    got = roles("The tasting is no longer Bellweather, Hanna Berg takes over the tasting.")
    assert got == [("Bellweather", "old"), ("Hanna Berg", "new")]


def test_from_to_names_the_old_place_and_the_new():
    assert roles("the retreat moved from Girona to Valencia") == [("Girona", "old"), ("Valencia", "new")]


def test_instead_of_names_the_new_before_it_and_the_old_after_it():
    got = roles("We print at the Harbourlight Press this year instead of the Inkwell, they were cheaper.")
    assert got == [("Harbourlight Press", "new"), ("Inkwell", "old")]


def test_a_name_that_fell_through_is_old_only_beside_its_replacement():
    assert roles("front desk: Anselm is off sick today") == []
    got = roles("front desk: Anselm is off sick, Lucia Ferrante takes over")
    assert got == [("Anselm", "old"), ("Lucia Ferrante", "new")]
    # the replacement may come in the next sentence; a title's full stop ends none
    got = roles("front desk: Anselm is off sick. Mrs. Ferrante takes over.")
    assert got == [("Anselm", "old"), ("Mrs. Ferrante", "new")]


def test_capitalised_words_without_a_correction_are_no_names():
    assert roles("Anselm and Lucia Ferrante review the Harbour Street lease on Monday.") == []
    # a capitalised word that opens a sentence is a name only with a second one
    assert roles("Backup goes to the cold store instead.") == []


def test_a_question_or_advice_reads_no_name():
    assert roles("should we switch to Hanna Berg for the tasting?") == []
    assert roles("主持人要不要换成刘洋？") == []


def test_chinese_cues_name_the_old_and_the_new():
    assert roles("主持人不再是张伟，改为刘洋") == [("张伟", "old"), ("刘洋", "new")]
    assert roles("年会场地从世纪酒店换到了滨江会展中心") == [("世纪酒店", "old"), ("滨江会展中心", "new")]
    assert roles("布展由青禾工作室负责") == [("青禾工作室", "assigned")]


def test_chinese_not_x_but_y_is_emphasis_not_a_replacement():
    # "the hard part is not the price, it is delivery": no name is replaced
    assert roles("这次最难的不是价格，是交付") == []
    assert roles("采购最在意的不是品牌，而是售后") == []


def test_a_chinese_value_after_a_cue_is_no_name():
    # dates, sums and counts are read by values.py
    assert roles("签约改为5月3日") == []
    assert roles("预算改成三万元") == []


def test_a_tracked_name_is_found_elsewhere_with_its_title():
    forms = tracked_forms(corrected_names("It's no longer Dr Bellweather, Hanna Berg takes over."))
    assert forms == {"Bellweather", "Hanna Berg"}
    found = name_occurrences("Dr Bellweather opens; Bellweathers is a shop.", occurrence_pattern(forms), ())
    assert [n.raw for n in found] == ["Dr Bellweather"]
    assert found[0].key == name_key("Bellweather") and found[0].role == ""


def test_names_become_mentions_negated_or_changed_to():
    text = "The tasting is no longer Bellweather, Hanna Berg takes over the tasting."
    old, new = find_mentions(text, corrected_names(text))
    assert (old.type, old.negated, old.changed_to) == ("name", True, False)
    assert (new.type, new.negated, new.changed_to) == ("name", False, True)
    assert "tast" in new.context  # stemmed
