"""The value ledger: values retired by subject across the whole history (own sentences, EN and ZH)."""

from __future__ import annotations

from helpers_context import all_text, node

from canvasweb.context.compiler import compile_context
from canvasweb.context.types import CompileRequest, MessageData
from canvasweb.context.value_ledger import build_ledger
from canvasweb.context.value_mentions import find_mentions
from canvasweb.context.value_mentions.mention import same_value


def msgs(*pairs):
    return tuple(MessageData(id=f"v{i}", role=role, content=text) for i, (role, text) in enumerate(pairs))


def rewritten(history, nodes=()):
    ledger = build_ledger(messages=history, nodes=nodes)
    return [ledger.rewrite(i, m.content) for i, m in enumerate(history)]


def padding(n, start=0):
    return [
        ("user" if i % 2 == 0 else "assistant", f"Aside {i}: the plant on the windowsill needs water.")
        for i in range(start, start + n)
    ]


# --- mentions -------------------------------------------------------------------------------------------


def test_mentions_carry_subject_words_without_the_value_itself():
    (m,) = find_mentions("the boiler service is booked for 9 November")
    assert m.raw == "9 November" and m.type == "date"
    assert {"boiler", "servic"} <= m.context and "november" not in m.context


def test_mentions_know_when_a_value_is_named_as_the_old_one():
    said = {m.raw: m.negated for m in find_mentions("the mirror listens on 7443 now, not 7442")}
    assert said == {"7443": False, "7442": True}
    zh = {m.raw: m.negated for m in find_mentions("镜像服务端口 7442 停用了，现在是 7443")}
    assert zh["7442"] is True and zh["7443"] is False


def test_identifiers_are_values():
    (m,) = find_mentions("backups now go to bucket vault-eu-7")
    assert m.type == "ident" and m.raw == "vault-eu-7"


# --- chat corrections ---------------------------------------------------------------------------------


def test_a_chat_correction_retires_the_old_value_in_every_message_that_states_it():
    h = msgs(
        ("user", "The mirror service listens on port 7442."),
        ("assistant", "Noted: mirror service on port 7442."),
        *padding(6),
        ("user", "Scratch that, the mirror service port is 7443."),
    )
    out = rewritten(h)
    assert "7442" not in out[0] and "7442" not in out[1]
    assert "[old value → now 7443]" in out[0]
    assert out[-1] == h[-1].content


def test_chinese_correction_with_cue_retires_the_earlier_date():
    h = msgs(
        ("user", "年度体检安排在 6月3日，地点在二楼。"),
        *padding(4),
        ("user", "体检刚才说错了，改到 6月10日。"),
    )
    out = rewritten(h)
    assert "6月3日" not in out[0] and "6月10日" in out[0]
    assert "二楼" in out[0]  # the rest of the sentence stays


def test_a_correction_of_a_correction_retires_both_older_values():
    h = msgs(
        ("user", "The conference booth budget is $6,500."),
        *padding(4),
        ("user", "Actually the conference booth budget is now $7,200."),
        *padding(4, 10),
        ("user", "Final word from finance: the conference booth budget is $6,900."),
    )
    out = rewritten(h)
    assert "$6,500" not in out[0] and "$7,200" not in out[5]
    assert "now $6,900" in out[0] and "now $6,900" in out[5]


def test_a_value_said_again_as_current_is_current_again():
    h = msgs(
        ("user", "The demo room is room 214."),
        ("user", "Actually the demo room changed to room 305."),
        ("user", "Update: the demo room is back to 214, 305 is being painted."),
    )
    out = rewritten(h)
    assert "214" in out[0] and "305" not in out[1]


# --- what must survive ---------------------------------------------------------------------------------


def test_a_look_alike_value_of_another_subject_survives():
    h = msgs(
        ("user", "The mirror service listens on port 7442."),
        ("user", "The license server listens on port 7450."),
        *padding(4),
        ("user", "Actually, change the mirror service port to 7443."),
    )
    out = rewritten(h)
    assert "7442" not in out[0]
    assert out[1] == h[1].content


def test_an_unrelated_later_number_retires_nothing():
    h = msgs(
        ("user", "The tent rental covers 40 guests."),
        *padding(4),
        ("user", "The parking garage has 35 spaces for us."),
    )
    assert rewritten(h) == [m.content for m in h]


def test_two_values_in_one_message_are_two_facts():
    h = msgs(
        ("user", "Ingest workers get 12 threads and the exporter gets 16 threads."),
    )
    assert rewritten(h) == [h[0].content]


def test_the_same_value_about_another_subject_is_kept_when_one_subject_changes():
    old = node("o", "Roof inspection on 4 September", superseded_by="n")
    new = node("n", "Roof inspection on 18 September")
    h = msgs(
        ("user", "the roof inspection is on 4 September"),
        ("user", "Our choir concert is on 4 September too."),
    )
    out = rewritten(h, nodes=(old, new))
    assert "4 September" not in out[0] and out[1] == h[1].content


def test_an_assistant_reply_never_retires_a_value():
    h = msgs(
        ("user", "The sprint demo is at 15:00."), ("assistant", "Actually, I would suggest 16:00 instead.")
    )
    assert rewritten(h)[0] == h[0].content


# --- canvas supersede and archive -----------------------------------------------------------------------


def test_a_value_said_only_in_chat_gives_way_to_a_later_supersede():
    old = node("o", "Warehouse lease: 2,400 square metres", superseded_by="n")
    new = node("n", "Warehouse lease: 2,650 square metres (signed)")
    h = msgs(
        ("user", "the warehouse lease is 2,400 square metres"),
        *padding(4),
        ("user", "landlord update: the warehouse lease grows to 2,550 square metres"),
        ("assistant", "OK, the warehouse lease is now 2,550 square metres."),
    )
    out = rewritten(h, nodes=(old, new))
    text = "\n".join(out)
    assert "2,400" not in text and "2,550" not in text and "now 2,650" in text


def test_a_date_or_time_is_never_a_bare_number_without_its_unit():
    def one(text):
        (m,) = find_mentions(text)
        return m

    assert not same_value(one("3 vans"), one("first load 3 June"))
    assert not same_value(one("3辆车"), one("3月9日"))
    assert not same_value(one("room 10"), one("call at 10:30"))
    assert same_value(one("crash-free 99.2"), one("crash-free 99.2%"))


def test_a_bare_value_with_no_subject_of_its_own_follows_the_superseded_node():
    old = node("o", "Greenhouse app: beta for growers. Release: 21 March.", superseded_by="n")
    new = node("n", "Greenhouse app: beta for growers. Release: 28 March.")
    h = msgs(("user", "21 March feels rushed"), *padding(2))
    assert rewritten(h, nodes=(old, new))[0] == "[old value → now 28 March] feels rushed"
    # Chinese: 交付日 5月9日 -> 5月16日; "5月9日太赶了" names no subject of its own.
    old_zh = node("oz", "温室小程序：交付日 5月9日。", superseded_by="nz")
    new_zh = node("nz", "温室小程序：交付日 5月16日。")
    h_zh = msgs(("user", "5月9日太赶了"), *padding(2))
    assert "5月9日" not in rewritten(h_zh, nodes=(old_zh, new_zh))[0]


def test_a_bare_value_is_kept_when_another_subject_states_it_with_words():
    old = node("o", "Greenhouse app: beta for growers. Release: 21 March.", superseded_by="n")
    new = node("n", "Greenhouse app: beta for growers. Release: 28 March.")
    h = msgs(
        ("user", "21 March feels rushed"),
        ("user", "the soil supplier invoices on 21 March as well"),
        *padding(2),
    )
    out = rewritten(h, nodes=(old, new))
    assert "21 March" in out[1]
    # One word that names a subject is no judgement: "printer: 21 March" is another thing's date.
    h = msgs(("user", "printer: 21 March"), *padding(2))
    assert rewritten(h, nodes=(old, new))[0] == "printer: 21 March"


def test_an_amount_added_up_in_a_correction_replaces_the_old_total():
    h = msgs(
        ("user", "the landscaping quote is a flat £8,500, a third before we start"),
        *padding(2),
        ("user", "they added £400 for the extra hedge, so we are at £8,900 now"),
    )
    assert (
        rewritten(h)[0] == "the landscaping quote is a flat [old value → now £8,900], a third before we start"
    )
    h_zh = msgs(("user", "装修预算 40万"), *padding(2), ("user", "追加 5万，现在 45万"))
    assert "40万" not in rewritten(h_zh)[0]


def test_amounts_that_only_happen_to_add_up_retire_nothing():
    h = msgs(
        ("user", "the venue costs £8,500"),
        *padding(2),
        ("user", "catering is £400 per day and the sound hire £8,900 in all"),
    )
    assert rewritten(h)[0] == "the venue costs £8,500"


def test_a_number_with_the_same_label_may_gain_a_digit():
    h = msgs(
        ("user", "I booked the ferry, sailing 845 at dawn"),
        *padding(2),
        ("user", "they cancelled it, I am on sailing 1120 instead"),
    )
    # The marker names the new value without the adverb after it ("1120 instead" has no unit).
    assert rewritten(h)[0] == "I booked the ferry, sailing [old value → now 1120] at dawn"
    # Without a shared label, three digits never become four.
    h = msgs(("user", "the hotel room is 88"), *padding(2), ("user", "actually table 104 is ours"))
    assert rewritten(h)[0] == "the hotel room is 88"


def test_archived_value_is_retired_in_the_chat_that_stated_it():
    gone = node("g", "Pilot store opening: 12 May", archived=True)
    h = msgs(("user", "pilot store opening pencilled for 12 May"), *padding(2))
    assert "12 May" not in rewritten(h, nodes=(gone,))[0]


def test_archived_value_that_a_live_node_still_holds_is_kept():
    gone = node("g", "Pilot store opening: 12 May", archived=True)
    live = node("l", "Board meeting: 12 May")
    h = msgs(
        ("user", "board meeting is 12 May"),
    )
    assert rewritten(h, nodes=(gone, live)) == [h[0].content]


# --- through the compiler ------------------------------------------------------------------------------


def test_compiled_prompt_holds_no_retired_value_in_window_recall_or_summary():
    h = msgs(
        ("user", "Our staging cluster runs Kubernetes 1.29 in zone b. The SSO callback port is 8642."),
        *padding(30),
        ("user", "Heads up, the SSO callback port moved to 8650 after the proxy change."),
        *padding(6, 40),
    )
    for budget in (600, 1200, 3000):
        text = all_text(
            compile_context(
                request=CompileRequest(
                    system_prompt="You help the ops team.",
                    question="which port does the SSO callback use?",
                    messages=h,
                    budget=budget,
                )
            ).messages
        )
        assert "8642" not in text, budget
    text = all_text(
        compile_context(
            request=CompileRequest(
                system_prompt="You help the ops team.",
                question="which Kubernetes version is staging on?",
                messages=h,
                budget=3000,
            )
        ).messages
    )
    assert "1.29" in text


def test_baseline_strategies_keep_history_verbatim():
    h = msgs(("user", "The SSO callback port is 8642."), ("user", "Actually the SSO callback port is 8650."))
    text = all_text(
        compile_context(
            request=CompileRequest(
                system_prompt="s", question="port?", messages=h, budget=3000, strategy="window"
            )
        ).messages
    )
    assert "8642" in text


def test_an_exact_figure_a_supersede_gave_up_is_retired_in_chat_said_in_other_words():
    # the chat names no word of the node ("三套按…算"), but ¥274,500 is no round figure
    old = node("o", "展柜报价 ¥274,500/套，含安装", superseded_by="n")
    new = node("n", "展柜成交 ¥251,000/套，含安装")
    h = msgs(("assistant", "三套按 27.45 万算就是 82.35 万，超了一点。"), *padding(2))
    out = rewritten(h, nodes=(old, new))
    assert "27.45 万" not in out[0] and "82.35 万" in out[0]


def test_a_round_figure_a_supersede_gave_up_needs_the_subject_words():
    # control: ¥300,000 is what many things cost, so the chat's words must name the subject
    old = node("o", "展柜报价 ¥300,000/套，含安装", superseded_by="n")
    new = node("n", "展柜成交 ¥251,000/套，含安装")
    h = msgs(("assistant", "三套按 30 万算就是 90 万，超了一点。"), *padding(2))
    assert rewritten(h, nodes=(old, new))[0] == h[0].content


def test_an_exact_figure_held_by_two_chat_subjects_is_left_to_the_words():
    # control: two subjects hold ¥274,500; one may be a look-alike, so neither is retired by the figure
    old = node("o", "展柜报价 ¥274,500/套，含安装", superseded_by="n")
    new = node("n", "展柜成交 ¥251,000/套，含安装")
    h = msgs(
        ("assistant", "三套按 27.45 万算就是 82.35 万，超了一点。"),
        ("user", "灯光那边的总包也是 27.45 万左右"),
        *padding(2),
    )
    out = rewritten(h, nodes=(old, new))
    assert "27.45 万" in out[0] and "27.45 万" in out[1]


def test_a_supersede_retires_the_value_a_chat_correction_set_whatever_the_nodes_order():
    # The supersede's old node sorts second: its event must not pass for message 1, which set 104.
    old = node("o", "Hall seats 120 (fire certificate)", superseded_by="n")
    new = node("n", "Hall capacity: 96 seats per show (fire officer)")
    h = msgs(
        ("user", "The hall seats 120 on the fire certificate."),
        ("user", "Correction: with the staging in, the hall seats 104."),
    )
    out = rewritten(h, nodes=(old, new))
    assert "104" not in out[1] and "120" not in out[0]


def test_a_value_said_as_down_from_is_the_old_one():
    (m,) = [x for x in find_mentions("So about 90 a night, down from the 110 on the plan.") if x.raw == "110"]
    assert m.negated
