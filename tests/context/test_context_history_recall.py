"""Recall from the whole conversation, low-information turns, and priority that ages."""

from __future__ import annotations

import pytest
from helpers_context import all_text, node

from canvasweb.context.compiler import compile_context
from canvasweb.context.history_recall import RecallCandidate, is_low_information, recall_history
from canvasweb.context.retire import CANVAS_OUTDATED_MARKER, OUTDATED_MARKER
from canvasweb.context.selection import CanvasIndex, select_nodes
from canvasweb.context.tokens import TokenCache, count_tokens
from canvasweb.context.types import Budget, CompileRequest, MessageData, Viewport

SYSTEM = "You are the team assistant."
CHATTER = [
    "Did the standup run long again today?",
    "A little, the new intern had many questions.",
    "We should order more whiteboard markers.",
    "Okay.",
    "The office plants need watering on Mondays.",
    "Thanks!",
    "I moved my desk closer to the window.",
    "好的",
    "The printer on floor two jams constantly.",
    "收到",
    "Lunch was the usual noodle place.",
    "嗯嗯",
]


def long_chat(n: int, facts: dict[int, str]) -> tuple[MessageData, ...]:
    out = []
    for i in range(n):
        text = facts.get(i) or f"{CHATTER[i % len(CHATTER)]} (turn {i})"
        out.append(MessageData(id=f"m{i}", role="user" if i % 2 == 0 else "assistant", content=text))
    return tuple(out)


def compile_(**kw):
    kw.setdefault("system_prompt", SYSTEM)
    return compile_context(request=CompileRequest(**kw))


def test_fact_said_in_turn_5_of_400_is_recalled():
    msgs = long_chat(
        400, {5: "By the way, the warehouse alarm code changed, the new door is the east loading bay."}
    )
    c = compile_(messages=msgs, question="Which entrance of the warehouse do we use now?", budget=1000)
    text = all_text(c.messages)
    assert "east loading bay" in text
    assert "m5" in c.report.recalled_message_ids
    assert "<recalled_messages>" in text and "[#6 assistant]" in text
    assert c.report.total_tokens <= 1000


def test_recall_can_be_turned_off():
    msgs = long_chat(400, {5: "The quarterly offsite will be held in Lisbon this year."})
    c = compile_(messages=msgs, question="Where is the quarterly offsite?", budget=1000, recall_history=False)
    assert "Lisbon" not in all_text(c.messages)
    assert c.report.layer_tokens["recall"] == 0


def test_chinese_fact_recalled_from_far_back():
    facts = {7: "对了，新员工的门禁卡统一在三楼行政处领取，带上身份证。"}
    msgs = long_chat(300, facts)
    c = compile_(messages=msgs, question="新同事的门禁卡去哪里领？", budget=1000)
    assert "三楼行政处" in all_text(c.messages)


def test_archived_turns_are_searched_but_not_resummarized():
    archived = long_chat(200, {12: "The penetration test is booked with Northwind Security for week 19."})
    recent = tuple(
        MessageData(
            id=f"r{i}",
            role="user" if i % 2 == 0 else "assistant",
            content=f"We reviewed the sprint board item {i}.",
        )
        for i in range(6)
    )
    c = compile_(
        messages=recent,
        archived_messages=archived,
        rolling_summary="<conversation_summary>\n</conversation_summary>",
        question="Who runs the penetration test?",
        budget=1000,
    )
    assert "Northwind Security" in all_text(c.messages)
    assert "m12" in c.report.recalled_message_ids
    # Only recent turns the window gives up are summarized; the 200 archived ones never again.
    assert c.report.summarized_message_count < len(recent)


def test_short_answer_comes_with_its_question():
    msgs = list(long_chat(120, {}))
    msgs[40] = MessageData(
        id="m40", role="user", content="Should the nightly export go to the bucket called acme-archive-eu?"
    )
    msgs[41] = MessageData(id="m41", role="assistant", content="Yes, that one.")
    msgs[60] = MessageData(id="m60", role="user", content="Is the export format still parquet?")
    msgs[61] = MessageData(
        id="m61", role="assistant", content="Parquet with snappy compression, partitioned by day."
    )
    c = compile_(
        messages=tuple(msgs), question="What compression does the export use and which bucket?", budget=1000
    )
    text = all_text(c.messages)
    assert "snappy compression" in text and "acme-archive-eu" in text


def test_long_message_is_excerpted_around_the_match():
    padding = " ".join(
        f"Paragraph {k} discusses the roadmap themes, hiring plans and the general mood of the team."
        for k in range(25)
    )
    long_text = padding + " The invoice approval limit for team leads is 2,500 euros. " + padding
    cands = [
        RecallCandidate(position=i, message=MessageData(id=f"c{i}", role="user", content=t), text=t)
        for i, t in enumerate(["Morning all.", long_text, "See you tomorrow."])
    ]
    cache = TokenCache()
    r = recall_history(
        candidates=cands,
        question="What can a team lead approve on an invoice?",
        max_tokens=120,
        count=cache.count,
        cache=cache,
    )
    assert "2,500 euros" in r.text
    assert "…" in r.text and r.tokens <= 120 < count_tokens(long_text)


def _tight_excerpt(text: str, question: str, max_tokens: int) -> str:
    cands = [RecallCandidate(position=0, message=MessageData(id="c0", role="user", content=text), text=text)]
    cache = TokenCache()
    return recall_history(
        candidates=cands, question=question, max_tokens=max_tokens, count=cache.count, cache=cache
    ).text


_EN_FILLER = " ".join(f"Note {k} is about the hallway paint and the coffee rota." for k in range(12))
_ZH_FILLER = "".join(f"第{k}件事是走廊刷漆和咖啡值班表。" for k in range(12))


@pytest.mark.parametrize(
    ("text", "asks_value", "asks_no_value", "max_tokens", "label", "value"),
    [
        (
            f"{_EN_FILLER} The acoustic survey of the hall came back. It says we need 14 ceiling panels. {_EN_FILLER}",
            "What did the acoustic survey find?",
            "Tell me about the acoustic survey",
            75,
            "acoustic survey",
            "14 ceiling panels",
        ),
        (
            f"{_ZH_FILLER}礼堂的声学检测报告出来了。报告说要装十四块吸音板。{_ZH_FILLER}",
            "声学检测报告里结论是什么？",
            "说说声学检测报告",
            90,
            "声学检测报告",
            "十四块吸音板",
        ),
    ],
)
def test_excerpt_of_a_value_question_takes_the_value_after_its_label(
    text, asks_value, asks_no_value, max_tokens, label, value
):
    excerpt = _tight_excerpt(text, asks_value, max_tokens)
    assert label in excerpt and value in excerpt
    # A question that asks for no value keeps the excerpt to the matching sentence.
    assert value not in _tight_excerpt(text, asks_no_value, max_tokens)


@pytest.mark.parametrize(
    ("text", "question", "max_tokens", "value"),
    [
        (
            f"{_EN_FILLER} Greenhouse heaters and paraffin, hear me out. The seed trays arrive on Monday. "
            "The volunteers want a new rota. For the cold snap next week, each greenhouse heater burns "
            f"40 litres of paraffin, and the cans stay in the shed. {_EN_FILLER}",
            "How much paraffin does every greenhouse heater get?",
            90,
            "40 litres",
        ),
        (
            f"{_ZH_FILLER}温室加热器的煤油那块我想了很久，你帮我看看。种子托盘周一到。志愿者想换排班。"
            f"每台加热器配 40升，冷空气来之前备好。{_ZH_FILLER}",
            "每台温室加热器要配多少煤油？",
            75,
            "40升",
        ),
    ],
)
def test_excerpt_of_a_value_question_starts_at_the_matching_sentence_with_the_value(
    text, question, max_tokens, value
):
    # The sentence naming the subject matches best; the one that also gives the figure is quoted first.
    assert value in _tight_excerpt(text, question, max_tokens)


def test_a_hit_that_does_not_fit_brings_no_neighbour_sentence_alone():
    text = (
        f"{_EN_FILLER} The loading dock schedule for the spring fair is settled: the florist unloads at 6:30, "
        f"the caterer at 7:15 and the sound crew at 8:00, each with a twenty-minute slot. {_EN_FILLER}"
    )
    excerpt = _tight_excerpt(text, "When does the florist unload at the loading dock?", 65)
    # The matching sentence is too long for this budget; the filler sentence before it answers nothing.
    assert "hallway paint" not in excerpt


def test_recalled_sentence_already_in_the_window_is_not_repeated():
    fact = "The demo environment resets every Sunday at midnight."
    cands = [RecallCandidate(position=0, message=MessageData(id="a", role="user", content=fact), text=fact)]
    cache = TokenCache()
    r = recall_history(
        candidates=cands,
        question="When does the demo environment reset?",
        max_tokens=200,
        count=cache.count,
        cache=cache,
        already_shown=[fact],
    )
    assert r.text == ""


def test_a_retired_sentence_that_names_no_new_value_is_not_quoted():
    text = f"The demo environment resets every Sunday. {OUTDATED_MARKER} {CANVAS_OUTDATED_MARKER}"
    cands = [RecallCandidate(position=0, message=MessageData(id="a", role="user", content=text), text=text)]
    cache = TokenCache()
    r = recall_history(
        candidates=cands,
        question="When does the demo environment reset?",
        max_tokens=200,
        count=cache.count,
        cache=cache,
    )
    assert "resets every Sunday" in r.text
    assert OUTDATED_MARKER not in r.text and CANVAS_OUTDATED_MARKER not in r.text


def test_low_information_turns():
    for text in ("Okay.", "Thanks!", "ok thanks", "好的", "收到", "嗯嗯", "好的，谢谢！", "Sounds good 👍"):
        assert is_low_information(text), text
    for text in (
        "Okay, 5433 it is.",
        "No, use the EU region.",
        "好的，预算是四十万元",
        "Thanks, the answer is Kafka",
    ):
        assert not is_low_information(text), text


def test_low_information_turns_do_not_take_the_window():
    msgs = []
    for i in range(30):
        msgs.append(
            MessageData(
                id=f"u{i}", role="user", content=f"Point {i}: the migration step {i} touches table t{i}."
            )
        )
        msgs.append(MessageData(id=f"a{i}", role="assistant", content="Okay." if i % 2 else "好的"))
    c = compile_(
        messages=tuple(msgs), question="Anything else?", budget=Budget.from_total(total=900, system=30)
    )
    kept = c.report.included_message_ids
    assert kept[-1] == "a29"  # the floor is always kept verbatim
    assert not any(k.startswith("a") for k in kept[:-2])
    assert any("low-information" in n for n in c.report.notes)


def _two_notes(old_updated: str):
    old = node("old", "Office wifi network is called Falcon", x=100, y=0, updated_at=old_updated)
    new = node(
        "new", "Guest wifi network is called Sparrow", x=150, y=0, updated_at="2026-06-01T09:00:00+00:00"
    )
    return old, new


def test_stale_nodes_lose_priority_against_recent_ones():
    old, new = _two_notes("2026-03-01T09:00:00+00:00")  # three months older
    index = CanvasIndex.build(nodes=[old, new])
    sel = select_nodes(
        index=index, viewport=Viewport(x=0, y=0), role="editor", now="2026-06-01T10:00:00+00:00"
    )
    assert [c.node.id for c in sel.candidates][:2] == ["new", "old"]
    same = select_nodes(
        index=CanvasIndex.build(nodes=[_two_notes("2026-06-01T09:00:00+00:00")[0], new]),
        viewport=Viewport(x=0, y=0),
        role="editor",
        now="2026-06-01T10:00:00+00:00",
    )
    assert [c.node.id for c in same.candidates][:2] == ["old", "new"]  # distance decides when equally fresh


def test_pinned_nodes_do_not_age_and_decay_can_be_disabled():
    from canvasweb.context.types import SelectionConfig

    old = node(
        "old", "Retention policy is 400 days", x=100, y=0, pinned=True, updated_at="2025-01-01T00:00:00+00:00"
    )
    new = node("new", "Backup window starts 02:00", x=150, y=0, updated_at="2026-06-01T09:00:00+00:00")
    sel = select_nodes(
        index=CanvasIndex.build(nodes=[old, new]),
        viewport=Viewport(),
        role="editor",
        now="2026-06-01T10:00:00+00:00",
    )
    assert sel.candidates[0].node.id == "old" and sel.candidates[0].group == "anchor"
    a = node("a", "Three-month-old note", x=100, y=0, updated_at="2026-03-01T00:00:00+00:00")
    b = node("b", "Fresh note", x=150, y=0, updated_at="2026-06-01T00:00:00+00:00")
    off = select_nodes(
        index=CanvasIndex.build(nodes=[a, b]),
        viewport=Viewport(),
        role="editor",
        now="2026-06-01T10:00:00+00:00",
        config=SelectionConfig(decay_half_life_days=0),
    )
    assert [c.node.id for c in off.candidates] == ["a", "b"]


def test_decay_reference_defaults_to_the_newest_edit():
    a = node("a", "Three-month-old note", x=100, y=0, updated_at="2026-03-01T00:00:00+00:00")
    b = node("b", "Fresh note", x=150, y=0, updated_at="2026-06-01T00:00:00+00:00")
    sel = select_nodes(index=CanvasIndex.build(nodes=[a, b]), viewport=Viewport(), role="editor")
    assert [c.node.id for c in sel.candidates] == ["b", "a"]


def test_excerpt_of_a_what_time_question_takes_the_matching_sentence_that_leads_to_a_time():
    text = (
        f"{_EN_FILLER} ok so for match days, I want this written down before I forget it all. "
        "everyone in the changing room by 1.40pm please, boots on, kit checked. "
        "the coach wants the subs warming up with the physio. "
        f"after the last home game of the season the club dinner is at the Mill, match day or not. {_EN_FILLER}"
    )
    excerpt = _tight_excerpt(text, "By what time do the players have to be there on match days?", 75)
    assert "1.40pm" in excerpt


@pytest.mark.parametrize(
    "text, question, answer",
    [
        (
            f"{_EN_FILLER} Right, the marquee, quick summary. "
            "The tent people we signed with are Harrowgate Canvas Hire, two poles, forty by twenty. "
            "If we are getting the tent up for the fete and the tent blows about, the spare pegs are in the shed. "
            f"The bunting goes up on the Friday evening. {_EN_FILLER}",
            "Whose tent are we getting for the fete?",
            "Harrowgate",
        ),
        (
            f"{_ZH_FILLER}展位搭建那边发来了安排，我贴一下。一、搭建：合作的是苏州恒展会展服务公司，木结构，两天搭完。"
            f"二、如果展位搭好以后电路出问题，展位那边的电工半小时内到。{_ZH_FILLER}",
            "展位是谁家给咱们搭的？",
            "恒展",
        ),
    ],
)
def test_excerpt_of_a_who_question_takes_the_matching_sentence_that_names_someone(text, question, answer):
    # The better word match ("tent … tent", "展位 … 展位") names no one; the sentence that names the
    # firm answers "whose / 谁家".
    assert answer in _tight_excerpt(text, question, 90)


def test_the_best_hit_is_quoted_whole_when_the_budget_allows():
    from test_context_recall_rank import chat

    long_turn = (
        "Long update on the allotment committee meeting, sorry. The committee finally agreed the new plot "
        "rules last night. Everyone must keep paths clear and mow them monthly. Bonfires stay banned from "
        "April to October. Water butts are free for new members this year. The shed key moves to the honesty "
        "box by the gate. Hedges along the lane get trimmed by the council in March. Rent stays at forty "
        "pounds a year."
    )
    question = "what did the committee decide about the plot rules?"
    roomy = recall_history(
        candidates=chat({12: long_turn}), question=question, max_tokens=600, count=count_tokens
    )
    assert "Rent stays at forty pounds a year." in roomy.text
    tight = recall_history(
        candidates=chat({12: long_turn}), question=question, max_tokens=140, count=count_tokens
    )
    assert "plot rules" in tight.text and "Rent stays" not in tight.text
