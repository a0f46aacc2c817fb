"""People and places that hand over: "X, not Y", a venue's noun, a plural name, 师傅/工 who cannot
do it any more, "以后对接的是…".

Own sentences (EN and ZH), none from bench/. Each rule has a control in which it must not apply.
"""

from __future__ import annotations

from helpers_context import rewritten_chat

from canvasweb.context.name_mentions import corrected_names, name_key


def roles(text):
    return [(n.raw, n.role) for n in corrected_names(text)]


def test_x_not_y_names_x_as_the_new_one():
    assert roles("Their driver is Tomasz Nowak, not Piotr.") == [("Tomasz Nowak", "new"), ("Piotr", "old")]


def test_x_not_y_retires_the_full_name_said_earlier():
    out = rewritten_chat(
        ("user", "The lender's driver for the crates is Piotr Nowak, booked for two nights."),
        ("assistant", "Noted: Piotr Nowak drives the crates."),
        ("user", "My mistake: their driver is Tomasz Nowak, not Piotr. Piotr is his cousin, same firm."),
    )
    assert "Piotr" not in out[0] and "[old value → now Tomasz Nowak]" in out[0]
    # inside the correcting message the old name is only named: no "now Tomasz" about the cousin
    assert "[old value] is his cousin" in out[2]


def test_a_venue_noun_belongs_to_the_name():
    assert ("Quaker hall", "new") in roles("The talk moved to the Quaker hall on Bridge Street.")


def test_a_plural_name_is_the_same_name():
    assert name_key("Quakers") == name_key("Quaker") == name_key("The Quakers")
    assert name_key("Davies") == "name=davies"  # short and -es names are not cut


def test_a_plural_name_that_fell_through_retires_the_venue():
    out = rewritten_chat(
        ("user", "For the book launch I've booked the Quaker hall on Bridge Street, Friday 7pm."),
        ("assistant", "OK."),
        ("user", "ugh, the Quakers double-booked us. The launch has moved to the Rotary hut instead."),
    )
    assert "Quaker hall" not in out[0] and "Rotary hut" in out[0]


def test_a_titled_person_who_cannot_fit_it_in_hands_over():
    assert roles("刚开工钟师傅那边就说排不开了，他接了别的活。水电换成饶师傅。") == [
        ("钟师傅", "old"),
        ("饶师傅", "new"),
    ]


def test_words_that_end_in_a_title_character_are_no_person():
    # control: 开工 and 施工 end in 工 but name nobody
    assert roles("施工那边说排不开了，换成饶师傅") == [("饶师傅", "new")]


def test_a_contact_who_moved_on_is_replaced_by_the_new_contact():
    assert roles("同步一下：苏敏调去做展会了，以后跟我们对接的是许朗。") == [
        ("苏敏", "old"),
        ("许朗", "assigned"),
    ]
    out = rewritten_chat(
        ("user", "馆方的对接人是苏敏，审图一般两周。"),
        ("assistant", "好的。"),
        ("user", "同步一下：苏敏调去做展会了，以后跟我们对接的是许朗，审图都找他。"),
    )
    assert "苏敏" not in out[0] and "许朗" in out[0]


def test_a_contact_named_without_a_change_replaces_nobody():
    # control: "对接的是" alone, with nobody leaving and no cue, is a plain statement
    out = rewritten_chat(
        ("user", "馆方的对接人是苏敏，审图一般两周。"),
        ("assistant", "好的。"),
        ("user", "印刷厂那边对接的是许朗。"),
    )
    assert "苏敏" in out[0]


def test_an_overbooked_venue_beside_its_replacement_is_old():
    assert roles(
        "Bad news: the Harbour Lodge has overbooked May and can't take us. We moved to the Tern Inn."
    ) == [
        ("Harbour Lodge", "old"),
        ("Tern Inn", "new"),
    ]


def test_a_figure_said_to_be_the_old_one_is_retired_everywhere():
    out = rewritten_chat(
        ("user", "The new lintel over the doorway has to span 2.7 m, says the engineer."),
        ("assistant", "Noted, 2.7 m for the lintel."),
        ("user", "you're right to ask, it's 3.1. 2.7 was the old opening before we widened it"),
    )
    assert "2.7" not in out[0] and "2.7" not in out[1]
    zh = rewritten_chat(
        ("user", "门头招牌宽度做 4.5 米。"),
        ("assistant", "好的。"),
        ("user", "不对，现在是 5.2 米，4.5 米是原来的方案。"),
    )
    assert "4.5" not in zh[0]


def test_a_figure_said_in_the_past_tense_alone_is_not_old():
    # control: "was" without "old" reports a past fact, it names nothing as replaced
    out = rewritten_chat(
        ("user", "The lintel over the doorway spans 2.7 m."),
        ("assistant", "Noted."),
        ("user", "The skip was £240 and it arrived on time."),
    )
    assert "2.7 m" in out[0]


def test_a_firm_whose_answer_came_back_through_someone_hands_over_to_the_one_found_instead():
    assert roles("麻烦了，绿源花艺那边回复说那天订满了，我另外请了花间集。") == [
        ("绿源花艺", "old"),
        ("花间集", "new"),
    ]
    out = rewritten_chat(
        ("user", "婚礼花艺订的绿源花艺，布置加手捧花一共6800。"),
        ("assistant", "好的，花艺：绿源花艺，6800。"),
        ("user", "麻烦了，绿源花艺那边回复说那天订满了，我另外请了花间集，报价6500。"),
    )
    assert "绿源花艺" not in out[0] and "花间集" in out[0]


def test_someone_found_with_nobody_gone_is_a_first_statement():
    # control: "另外找了" with no name that fell through names nothing as old or new
    assert roles("音响我另外找了声海传媒，做个备份。") == []
    # control: two characters before 那边 are the site, not a firm
    assert roles("仓库那边说借走了两台叉车。") == []


def test_old_or_new_inside_a_name_is_part_of_it():
    assert roles("We're moving the quiz to the Old Forge on Mill Street.") == [("Old Forge", "new")]
    # control: opening a sentence, "New" is a chat word
    assert roles("New date: the quiz is on Friday.") == []


def test_a_place_called_by_its_noun_is_the_old_one_when_the_message_names_a_new_place():
    out = rewritten_chat(
        ("user", "The choir's spring concert is at the Abbeyfield Chapel, Saturday evening."),
        ("assistant", "Noted: spring concert at the Abbeyfield Chapel."),
        (
            "user",
            "Right, the chapel is too small for the orchestra we've invited, so we're moving the "
            "concert to the Granary Theatre, same evening.",
        ),
    )
    assert "Abbeyfield Chapel" not in out[0] and "Granary Theatre" in out[0]
    assert "Abbeyfield Chapel" not in out[1]


def test_a_noun_that_ends_two_earlier_names_or_a_message_with_no_new_place_retires_nothing():
    # control: "the hall" could be either hall
    out = rewritten_chat(
        ("user", "Rehearsals at the Corn Exchange Hall, the gala at the Victoria Hall."),
        ("user", "Honestly the hall is cramped, we're moving rehearsals to the Granary Theatre."),
    )
    assert "Corn Exchange Hall" in out[0] and "Victoria Hall" in out[0]
    # control: the noun said without a new name is a plain remark
    out = rewritten_chat(
        ("user", "The choir's spring concert is at the Abbeyfield Chapel, Saturday evening."),
        ("user", "I love the chapel, the acoustics are great."),
    )
    assert "Abbeyfield Chapel" in out[0]


def test_a_firm_that_closed_or_a_booking_scrapped_is_old_without_a_replacement_named():
    assert roles("Bad news, Quillpress have shut, the shop's boarded up.") == [("Quillpress", "old")]
    assert roles("scrap the Avis booking, I've cancelled it.") == [("Avis", "old")]
    assert roles("The insurer won't cover it, so no Sixt.") == [("Sixt", "old")]
    out = rewritten_chat(
        ("user", "Flyers are printed by Quillpress, 500 for £70."),
        ("assistant", "Noted: Quillpress does the flyers."),
        ("user", "Bad news, Quillpress have shut, the shop's boarded up. Looking for someone else."),
    )
    assert "Quillpress" not in out[0] and "Quillpress" not in out[1]


def test_a_firm_said_beside_a_closure_of_something_else_stays():
    # control: "closed" alone says what happened to a thing, and needs a replacement to retire a name
    assert roles("Quillpress closed early on Friday.") == []
    assert roles("Quillpress are open till six, no more than 500 flyers a day.") == []


def test_the_club_a_stand_in_comes_from_is_no_new_name():
    assert roles("Hamish is off sick. Ewan Reid from Largs has stepped in.") == [
        ("Hamish", "old"),
        ("Ewan Reid", "new"),
    ]
