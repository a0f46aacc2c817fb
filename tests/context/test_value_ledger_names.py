"""The value ledger retires names (a person, a place, a vendor) that a correction replaces.

Own sentences (EN and ZH), none from bench/. Each test pairs the correction with a control in
which it must not apply (no cue, another subject), so it fails without name support.
"""

from __future__ import annotations

from helpers_context import rewritten_chat

from canvasweb.context.types import MessageData


def msgs(*pairs):
    return tuple(MessageData(id=f"n{i}", role=role, content=text) for i, (role, text) in enumerate(pairs))


def aside(n):
    return [
        ("user" if i % 2 == 0 else "assistant", f"Side remark {i}: the coffee machine needs descaling.")
        for i in range(n)
    ]


def test_a_person_named_as_old_is_retired_where_it_was_said():
    out = rewritten_chat(
        ("user", "The wine tasting on Saturday is led by Bellweather."),
        *aside(4),
        ("user", "The tasting is no longer Bellweather, Hanna Berg takes over the tasting."),
    )
    assert "Bellweather" not in out[0] and "[old value → now Hanna Berg]" in out[0]
    assert "no longer [old value]" in out[-1] and "Hanna Berg" in out[-1]


def test_a_place_moved_from_one_to_another_is_retired():
    out = rewritten_chat(
        ("user", "retreat venue: Girona, near the old town"),
        *aside(4),
        ("user", "retreat venue moved from Girona to Valencia"),
    )
    assert "Girona" not in out[0] and "[old value → now Valencia]" in out[0]


def test_chinese_person_and_place_corrections_are_retired():
    out = rewritten_chat(
        ("user", "晚会主持人是张伟，他负责开场"),
        ("user", "年会场地在世纪酒店，三楼宴会厅"),
        *aside(4),
        ("user", "主持人不再是张伟，改为刘洋"),
        ("user", "年会场地从世纪酒店换到了滨江会展中心"),
    )
    assert "张伟" not in out[0] and "[old value → now 刘洋]" in out[0]
    assert "世纪酒店" not in out[1] and "[old value → now 滨江会展中心]" in out[1]


def test_a_new_name_said_without_a_cue_retires_nothing():
    plain = rewritten_chat(
        ("user", "The wine tasting on Saturday is led by Bellweather."),
        *aside(4),
        ("user", "Hanna Berg leads the wine tasting on Saturday, with Bellweather."),
    )
    assert "Bellweather" in plain[0]
    cued = rewritten_chat(
        ("user", "The wine tasting on Saturday is led by Bellweather."),
        *aside(4),
        ("user", "Bellweather pulled out, Hanna Berg takes over the wine tasting on Saturday."),
    )
    assert "Bellweather" not in cued[0]


def test_a_name_that_fell_through_alone_retires_nothing():
    alone = rewritten_chat(
        ("user", "front desk: Anselm runs it this week"), *aside(4), ("user", "Anselm is off sick today.")
    )
    assert "Anselm" in alone[0]
    replaced = rewritten_chat(
        ("user", "front desk: Anselm runs it this week"),
        *aside(4),
        ("user", "front desk: Anselm is off sick, Lucia Ferrante takes over"),
    )
    assert "Anselm" not in replaced[0] and "Lucia Ferrante" in replaced[0]


def test_the_same_name_about_another_subject_is_not_stale():
    out = rewritten_chat(
        ("user", "The wine tasting on Saturday is led by Bellweather."),
        ("user", "The Friday dinner toast goes to Bellweather as well."),
        *aside(4),
        ("user", "The tasting is no longer Bellweather, Hanna Berg takes over the tasting."),
    )
    assert "Bellweather" not in out[0]
    assert "toast goes to Bellweather" in out[1]


def test_a_reply_right_after_the_correction_no_longer_says_the_old_name():
    out = rewritten_chat(
        ("user", "printing: flyers go to Inkwell, 500 copies"),
        *aside(2),
        ("user", "printing: Inkwell fell through, we moved to Harbourlight Press"),
        ("assistant", "Done: removed the Inkwell card and put Harbourlight Press on the board."),
    )
    assert "Inkwell" not in out[0] and "Inkwell" not in out[-1]
    assert "Harbourlight Press" in out[-1]


def test_a_reply_does_not_retire_a_name_by_suggesting_another():
    out = rewritten_chat(
        ("user", "The wine tasting on Saturday is led by Bellweather."),
        ("assistant", "If Bellweather cannot make it, we could switch to Hanna Berg for the tasting?"),
        ("user", "Bellweather no longer leads it, Hanna Berg takes over the tasting."),
    )
    assert "Bellweather" in out[1] or "[old value" in out[1]
    assert "Bellweather" not in out[0]


def test_a_new_name_replaces_only_the_name_its_message_names_as_old():
    # shared words alone do not make the new sync tool the reports' replica
    out = rewritten_chat(
        ("user", "Migration reports read from the Harbour replica."),
        ("user", "Migration: switched to Tidewater."),
        ("user", "Risk checks switched to Harbour."),
    )
    assert "the Harbour replica" in out[0]
    named = rewritten_chat(
        ("user", "Migration reports read from the Harbour replica."),
        ("user", "Migration reports: switched from Harbour to Tidewater."),
    )
    assert "Harbour" not in named[0]


def test_a_name_negated_that_no_statement_held_is_left_as_said():
    out = rewritten_chat(("user", "The parents stay with us, not the Harbour Inn."), *aside(2))
    assert "not the Harbour Inn" in out[0]


def test_a_longer_name_is_rewritten_whole():
    out = rewritten_chat(
        ("user", "Overflow: the Grange Hotel's ballroom holds 80."),
        *aside(4),
        ("user", "Overflow goes to the Linden Hall instead of the Grange."),
    )
    assert "Grange" not in out[0] and "Hotel" not in out[0] and "Linden Hall" in out[0]


def test_a_vendor_rejected_for_another_is_retired():
    out = rewritten_chat(
        ("user", "The van hire goes through Roadline."),
        *aside(4),
        ("user", "Procurement rejected Roadline; we're going with Kestrel Vans."),
    )
    assert "Roadline" not in out[0] and "Kestrel Vans" in out[0]
    # the one who rejects is no old value
    assert "Procurement" in out[-1]
    # a rejection alone also retires it (there is no current value to name); a mention does not
    out = rewritten_chat(
        ("user", "The van hire goes through Roadline."), *aside(4), ("user", "Procurement rejected Roadline.")
    )
    assert "Roadline" not in out[0] and "[old value]" in out[0]
    out = rewritten_chat(
        ("user", "The van hire goes through Roadline."), *aside(4), ("user", "Roadline confirmed the vans.")
    )
    assert "Roadline" in out[0]


def test_a_person_who_left_is_retired_when_the_message_names_the_successor():
    out = rewritten_chat(
        ("user", "At the bakery our contact is Ilse."),
        *aside(4),
        ("user", "Ilse left the bakery; our contact there is Jonas now."),
    )
    assert "Ilse" not in out[0] and "Jonas" in out[0]
    out = rewritten_chat(
        ("user", "At the bakery our contact is Ilse."), *aside(4), ("user", "Ilse left early today.")
    )
    assert "Ilse" in out[0]


def test_chinese_gone_and_refused_names_are_retired():
    out = rewritten_chat(
        ("user", "礼品那边对接人是小周。"), *aside(4), ("user", "小周离职了，礼品现在找老郑。")
    )
    assert "小周" not in out[0] and "老郑" in out[0]
    out = rewritten_chat(("user", "快递用Swiftly。"), *aside(4), ("user", "老板不同意Swiftly，换成Parcelo。"))
    assert "Swiftly" not in out[0] and "Parcelo" in out[0]
    # control: leaving without a successor retires nothing
    out = rewritten_chat(("user", "礼品那边对接人是小周。"), *aside(4), ("user", "小周离职了，挺可惜的。"))
    assert "小周" in out[0]


def test_a_latin_name_next_to_chinese_text_is_found():
    from canvasweb.context.name_mentions import occurrence_pattern

    pattern = occurrence_pattern(["Swiftly"])
    assert pattern is not None
    assert pattern.search("快递用Swiftly发") and not pattern.search("Swiftlyness")


def test_a_chinese_place_named_by_its_number_is_a_name():
    out = rewritten_chat(
        ("user", "新员工培训在二号楼三层。"),
        *aside(4),
        ("user", "二号楼不行了，培训换到四号楼。"),
    )
    assert "二号楼" not in out[0] and "[old value → now 四号楼]" in out[0]
    assert out[-1].startswith("[old value]不行了") and "四号楼" in out[-1]


def test_a_place_that_is_gone_is_old_only_beside_its_replacement():
    out = rewritten_chat(
        ("user", "样品先放七号库。"),
        *aside(4),
        ("user", "七号库没了，样品换到九号库。"),
    )
    assert "[old value → now 九号库]" in out[0]
    # Control: gone with no replacement named retires nothing.
    kept = rewritten_chat(("user", "样品先放七号库。"), *aside(4), ("user", "七号库没了，先别放了。"))
    assert kept[0] == "样品先放七号库。"


def test_a_short_code_named_as_lost_gives_way_to_the_code_of_its_shape():
    out = rewritten_chat(
        ("user", "The forklift charges at bay D3 overnight."),
        *aside(4),
        ("user", "We lost D3 to the new racking, the forklift charges at D5 now."),
    )
    assert "D3" not in out[0] and "[old value → now D5]" in out[0]
    assert "lost [old value]" in out[-1] and "D5" in out[-1]
    # Control: a lost code with no code of its shape after it retires nothing.
    kept = rewritten_chat(
        ("user", "The forklift charges at bay D3 overnight."),
        *aside(4),
        ("user", "We lost D3 to the new racking, the forklift charges by the ramp now."),
    )
    assert kept[0] == "The forklift charges at bay D3 overnight."


def test_a_code_named_as_broken_in_chinese_gives_way_too():
    out = rewritten_chat(
        ("user", "服务器放在机柜 R7 里。"),
        *aside(4),
        ("user", "R7坏了，服务器换到R9。"),
    )
    assert "R7" not in out[0] and "[old value → now R9]" in out[0]
    kept = rewritten_chat(("user", "服务器放在机柜 R7 里。"), *aside(4), ("user", "R7坏了，先别动。"))
    assert kept[0] == "服务器放在机柜 R7 里。"
