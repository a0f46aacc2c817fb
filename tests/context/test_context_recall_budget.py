"""Recall's share of the budget, the value lift and the newest-statement rule (own text, EN + ZH)."""

from __future__ import annotations

import pytest
from helpers_context import all_text, node

from canvasweb.context import compile_budget as budget_mod
from canvasweb.context import compile_canvas as canvas_mod
from canvasweb.context import recall_rank
from canvasweb.context.compiler import compile_context
from canvasweb.context.history_recall import RecallCandidate, past_match_share, rank_turns
from canvasweb.context.recall_signals import asks_for_value, value_score
from canvasweb.context.types import CompileRequest, MessageData

SYSTEM = "You are the team assistant."
FILLER = [
    "The kettle in the kitchen whistles far too loudly.",
    "Somebody keeps leaving mugs on the windowsill.",
    "I walked the long way round the lake this morning.",
    "The hallway carpet finally got cleaned.",
    "We should sort the shared drive folders one day.",
    "My neighbour's cat sat on my car roof again.",
]


def chat(n: int, facts: dict[int, str]) -> tuple[MessageData, ...]:
    return tuple(
        MessageData(
            id=f"t{i}",
            role="user" if i % 2 == 0 else "assistant",
            content=facts.get(i) or f"{FILLER[i % len(FILLER)]} ({i})",
        )
        for i in range(n)
    )


def cands(texts: list[str]) -> list[RecallCandidate]:
    return [
        RecallCandidate(position=i, message=MessageData(id=f"c{i}", role="user", content=t), text=t)
        for i, t in enumerate(texts)
    ]


def compile_(**kw):
    kw.setdefault("system_prompt", SYSTEM)
    return compile_context(request=CompileRequest(**kw))


# ---------------------------------------------------------------- signals
def test_value_score_sees_numbers_codes_and_names():
    assert value_score("the locker combination is 4-1-9") >= 0.8
    assert value_score("ship it under order ZX882 please") == 1.0
    assert value_score("we booked the Grand Meridian for the party") >= 0.6
    assert value_score("柜子密码是 419") >= 0.8
    assert value_score("一共三千块") >= 0.8
    assert value_score("sounds lovely, see you then") == 0.0
    assert value_score("I think so too") == 0.0  # "I" is no name
    assert value_score("") == 0.0


def test_asks_for_value():
    assert asks_for_value("which locker did the courier use?")
    assert asks_for_value("How many chairs are in the attic?")
    assert asks_for_value("快递放在哪个柜子？")
    assert asks_for_value("阁楼里有几把椅子")
    assert not asks_for_value("tell me your thoughts on the new layout")
    assert not asks_for_value("帮我总结一下")


def test_past_match_share_counts_question_words_in_older_turns():
    msgs = chat(10, {3: "The greenhouse heater broke on Sunday."})
    assert past_match_share(question="which greenhouse heater broke on Sunday?", messages=msgs) == 1.0
    assert 0.5 < past_match_share(question="what happened to the greenhouse heater?", messages=msgs) < 1.0
    assert past_match_share(question="what colour is the submarine?", messages=msgs) == 0.0
    zh = (MessageData(id="z1", role="user", content="温室的暖气周日坏了"),)
    assert past_match_share(question="温室暖气哪天坏的？", messages=zh) >= 0.5
    assert past_match_share(question="潜水艇是什么颜色", messages=zh) == 0.0


# ---------------------------------------------------------------- ranking
VALUE_TURNS = ["parking garage bay: awful", "the parking garage bay they assigned us is 117 on level two"]


def test_value_question_lifts_the_turn_that_states_a_value(monkeypatch):
    q = "which parking garage bay did we get?"
    top = rank_turns(candidates=cands(VALUE_TURNS), question=q)[0][0]
    assert top == 1
    monkeypatch.setattr(recall_rank, "VALUE_LIFT", 0.0)
    assert rank_turns(candidates=cands(VALUE_TURNS), question=q)[0][0] == 0  # lexically the chatter wins


def test_value_lift_in_chinese(monkeypatch):
    texts = ["停车场车位太难停了", "物业说停车场给我们的车位是地下二层 117 号"]
    q = "停车场给我们的是哪个车位？"
    assert rank_turns(candidates=cands(texts), question=q)[0][0] == 1
    monkeypatch.setattr(recall_rank, "VALUE_LIFT", 0.0)
    assert rank_turns(candidates=cands(texts), question=q)[0][0] == 0


def test_newest_statement_of_a_value_ranks_first(monkeypatch):
    texts = [
        "badge printer toner: order 12",  # older, shorter: lexically stronger
        "ok for the badge printer toner we now need to order 20 after the audit",
    ]
    q = "how much badge printer toner do we order?"
    assert rank_turns(candidates=cands(texts), question=q)[0][0] == 1
    monkeypatch.setattr(recall_rank, "RESTATED_FACTOR", 1.0)
    assert rank_turns(candidates=cands(texts), question=q)[0][0] == 0


# ---------------------------------------------------------------- budget shares
LONG_FACTS = {7: "The spare key for the bike shed hangs behind the fuse box, on the red hook."}
SHED_Q = "where is the spare key for the bike shed?"
# Many earlier turns about the shed: recall can use every token it is given.
SHED_TALK = {
    i: f"Bike shed note {i}: the shed key log says visitor {i} borrowed a spare key on day {i}."
    for i in range(20, 200, 9)
}


def test_idle_canvas_hands_window_and_summary_plan_to_recall(monkeypatch):
    msgs = chat(300, {**LONG_FACTS, **SHED_TALK})
    with_shift = compile_(messages=msgs, question=SHED_Q, budget=1000)
    monkeypatch.setattr(budget_mod, "CHAT_MEMORY_SHIFT", 0.0)
    without = compile_(messages=msgs, question=SHED_Q, budget=1000)
    got, old = with_shift.report.layer_tokens, without.report.layer_tokens
    assert got["recall"] > old["recall"]
    assert got["recent"] < old["recent"]
    assert len(with_shift.report.recalled_message_ids) > len(without.report.recalled_message_ids)
    assert with_shift.report.total_tokens <= 1000


@pytest.mark.parametrize("follows", [True, False])
def test_idle_canvas_share_of_the_summary_follows_to_recall(monkeypatch, follows):
    msgs = chat(300, {**LONG_FACTS, **SHED_TALK})
    monkeypatch.setattr(budget_mod, "IDLE_SHARE_FOLLOWS", follows)
    got = compile_(messages=msgs, question=SHED_Q, budget=1000).report.layer_tokens
    monkeypatch.setattr(budget_mod, "IDLE_SHARE_FOLLOWS", False)
    old = compile_(messages=msgs, question=SHED_Q, budget=1000).report.layer_tokens
    if follows:
        assert got["recall"] > old["recall"]
        assert got["summary"] < old["summary"]
    else:
        assert got == old


def test_buried_fact_is_recalled_at_a_small_budget():
    c = compile_(messages=chat(300, LONG_FACTS), question=SHED_Q, budget=1000)
    assert "red hook" in all_text(c.messages)


def _narrowed(c) -> bool:
    return any(n.startswith("canvas block narrowed") for n in c.report.notes)


def test_busy_canvas_that_answers_the_question_keeps_its_share(monkeypatch):
    # Every note matches the question: the block is all relevance, nothing is narrowed or moved.
    nodes = tuple(
        node(
            f"n{i}",
            f"Bike shed rack {i} holds {i + 2} bikes; the spare key for rack {i} is on hook {i}",
            x=i * 5,
        )
        for i in range(60)
    )
    msgs = chat(300, LONG_FACTS)
    a = compile_(messages=msgs, nodes=nodes, question=SHED_Q, budget=1000)
    monkeypatch.setattr(budget_mod, "CHAT_MEMORY_SHIFT", 0.0)
    b = compile_(messages=msgs, nodes=nodes, question=SHED_Q, budget=1000)
    assert not _narrowed(a)
    assert a.report.layer_tokens["canvas"] > 300
    assert a.report.layer_tokens == b.report.layer_tokens


UNRELATED_NOTES = {
    "en": [f"Storage room {i} holds {i * 3} boxes of cables and adapters" for i in range(60)],
    "zh": [f"第{i}号储藏室放着{i * 3}箱线缆和转接头" for i in range(60)],
}
CHAT_FACT = {
    "en": ({7: LONG_FACTS[7]}, SHED_Q, "red hook"),
    "zh": ({7: "自行车棚的备用钥匙挂在电闸箱后面的红钩子上。"}, "车棚的备用钥匙放在哪儿？", "红钩子"),
}
# Earlier turns on the question's subject: recall can use every token it is handed.
CHAT_TALK = {
    "en": SHED_TALK,
    "zh": {i: f"车棚记录{i}：访客{i}在第{i}天借走过一把备用钥匙。" for i in range(20, 200, 9)},
}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_busy_canvas_of_unrelated_notes_gives_way_to_recall(monkeypatch, lang):
    # Sixty notes near the viewport fill the block and none answers; the chat holds the answer.
    nodes = tuple(node(f"n{i}", t, x=i * 5) for i, t in enumerate(UNRELATED_NOTES[lang]))
    facts, question, answer = CHAT_FACT[lang]
    msgs = chat(300, {**facts, **CHAT_TALK[lang]})
    got = compile_(messages=msgs, nodes=nodes, question=question, budget=1000)
    monkeypatch.setattr(budget_mod, "NARROW_WHEN_PAST_SHARE", 2.0)  # never narrow
    old = compile_(messages=msgs, nodes=nodes, question=question, budget=1000)
    assert _narrowed(got) and not _narrowed(old)
    assert 0 < got.report.layer_tokens["canvas"] < old.report.layer_tokens["canvas"] // 2
    assert got.report.layer_tokens["recall"] > 2 * old.report.layer_tokens["recall"]
    assert got.report.total_tokens <= 1000
    # A truncation is reported once, for the block the prompt holds.
    assert len({(t.layer, t.item_id) for t in got.report.truncations}) == len(got.report.truncations)
    monkeypatch.undo()
    alone = compile_(messages=chat(300, facts), nodes=nodes, question=question, budget=1000)
    assert _narrowed(alone) and answer in all_text(alone.messages)


def test_busy_canvas_stays_when_the_question_is_about_nothing_said():
    nodes = tuple(node(f"n{i}", t, x=i * 5) for i, t in enumerate(UNRELATED_NOTES["en"]))
    c = compile_(
        messages=chat(300, LONG_FACTS),
        nodes=nodes,
        question="what is the airspeed of a swallow?",
        budget=1000,
    )
    assert not _narrowed(c)
    assert c.report.layer_tokens["canvas"] > 300


def test_narrowed_plan_rules():
    plan = budget_mod.LayerPlan(use_canvas=True, use_summary=True, use_recall=True, canvas=400)
    about_chat = lambda: 1.0  # noqa: E731
    narrow = budget_mod.narrowed_canvas_plan
    assert (
        narrow(plan, canvas_cost=380, relevant_cost=60, n_older=10, min_cost=36, past_share=about_chat)
        == 60 + budget_mod.NARROW_SLACK_TOKENS
    )
    assert narrow(
        plan, canvas_cost=380, relevant_cost=0, n_older=10, min_cost=36, past_share=about_chat
    ) == max(36, budget_mod.NARROW_SLACK_TOKENS)
    assert (
        narrow(plan, canvas_cost=380, relevant_cost=200, n_older=10, min_cost=36, past_share=about_chat)
        is None
    )  # half answers
    assert (
        narrow(plan, canvas_cost=380, relevant_cost=60, n_older=0, min_cost=36, past_share=about_chat) is None
    )  # nothing older
    assert (
        narrow(plan, canvas_cost=380, relevant_cost=60, n_older=10, min_cost=36, past_share=lambda: 0.2)
        is None
    )
    # A block that already leaves half its plan idle is not cut further.
    assert (
        narrow(plan, canvas_cost=200, relevant_cost=60, n_older=10, min_cost=36, past_share=about_chat)
        is None
    )
    no_recall = budget_mod.LayerPlan(use_canvas=True, use_summary=True, use_recall=False, canvas=400)
    assert (
        narrow(no_recall, canvas_cost=380, relevant_cost=60, n_older=10, min_cost=36, past_share=about_chat)
        is None
    )


def test_question_about_nothing_said_keeps_the_window(monkeypatch):
    msgs = chat(300, LONG_FACTS)
    q = "what is the airspeed of an unladen swallow?"
    a = compile_(messages=msgs, question=q, budget=1000)
    monkeypatch.setattr(budget_mod, "CHAT_MEMORY_SHIFT", 0.0)
    b = compile_(messages=msgs, question=q, budget=1000)
    assert a.report.layer_tokens["recent"] == b.report.layer_tokens["recent"]


def test_chinese_fact_gets_the_bigger_recall_share():
    facts = {9: "自行车棚的备用钥匙挂在电闸箱后面的红钩子上。"}
    msgs = tuple(
        MessageData(
            id=f"z{i}",
            role="user" if i % 2 == 0 else "assistant",
            content=facts.get(i) or f"今天食堂的汤有点咸，第{i}次说了",
        )
        for i in range(300)
    )
    c = compile_(messages=msgs, question="车棚备用钥匙放哪儿了？", budget=1000)
    assert "红钩子" in all_text(c.messages)
    assert c.report.layer_tokens["recall"] > c.report.layer_tokens["recent"]


# ---------------------------------------------------------------- small canvas blocks
def test_question_share_grows_in_small_blocks():
    share = canvas_mod.question_share
    assert share(0.25, 200) == canvas_mod.QUESTION_SHARE_SMALL
    assert share(0.25, 2 * canvas_mod.SMALL_BLOCK_TOKENS) == 0.25
    mid = share(0.25, int(1.5 * canvas_mod.SMALL_BLOCK_TOKENS))
    assert 0.25 < mid < canvas_mod.QUESTION_SHARE_SMALL
    assert share(0.7, 100) == 0.7  # a larger configured share is kept


def busy_canvas(lang: str) -> tuple:
    if lang == "en":
        near = [f"Meeting room {i} has a projector and {i + 4} chairs along the wall" for i in range(40)]
        far = [f"Greenhouse sensor G{i} reports soil moisture of {30 + i} percent" for i in range(6)]
    else:
        near = [f"第{i}号会议室有投影仪，靠墙放着{i + 4}把椅子" for i in range(40)]
        far = [f"温室传感器G{i}报告土壤湿度为百分之{30 + i}" for i in range(6)]
    nodes = [node(f"near{i}", t, x=i * 3, y=0) for i, t in enumerate(near)]
    nodes += [node(f"far{i}", t, x=90_000 + i * 50, y=90_000) for i, t in enumerate(far)]
    return tuple(nodes)


def _far_included(c) -> int:
    return sum(1 for n in c.report.included_nodes if n.node_id.startswith("far"))


def test_small_block_gives_far_question_matches_more_seats(monkeypatch):
    for lang, q in (
        ("en", "what soil moisture do the greenhouse sensors report?"),
        ("zh", "温室传感器报告的土壤湿度是多少？"),
    ):
        nodes = busy_canvas(lang)
        a = compile_(nodes=nodes, question=q, budget=1000, recall_history=False)
        monkeypatch.setattr(canvas_mod, "QUESTION_SHARE_SMALL", 0.25)
        b = compile_(nodes=nodes, question=q, budget=1000, recall_history=False)
        monkeypatch.undo()
        assert _far_included(a) > _far_included(b) >= 1, lang
