"""Recall ranking: question/answer adjacency, glue turns left out, value-first excerpts, and the
recall index kept across compiles (own English and Chinese text)."""

from __future__ import annotations

import pytest

from canvasweb.context import history_recall, lexical, recall_index, recall_rank
from canvasweb.context.history_recall import RecallCandidate, rank_turns, recall_history
from canvasweb.context.recall_index import RecallIndex, recall_index_for
from canvasweb.context.tokens import TokenCache, count_tokens
from canvasweb.context.types import MessageData

FILLER_EN = [
    "The kettle on the third floor is broken again.",
    "Someone should restock the paper towels in the kitchen.",
    "The quiz night got moved because the pub is closed.",
    "My neighbour's parrot learned to whistle the news theme.",
    "The lift was stuck for ten minutes this morning.",
    "I finally sorted the recycling bins by colour.",
]
FILLER_ZH = [
    "三楼的热水壶又坏了。",
    "厨房的纸巾快用完了，得有人补一下。",
    "楼下的快递柜今天满了。",
    "隔壁的鹦鹉学会了吹口哨。",
    "早上电梯卡了十分钟。",
    "我把垃圾桶按颜色分好了。",
]


def chat(turns: dict[int, str], *, n: int = 60, filler: list[str] = FILLER_EN) -> list[RecallCandidate]:
    out = []
    for i in range(n):
        text = turns.get(i) or filler[i % len(filler)]
        msg = MessageData(id=f"t{i}", role="user" if i % 2 == 0 else "assistant", content=text)
        out.append(RecallCandidate(position=i, message=msg, text=text))
    return out


def rank_of(ranked: list[tuple[int, float, list[int]]], ci: int) -> int | None:
    return next((r for r, (c, _, _) in enumerate(ranked) if c == ci), None)


# --- question/answer adjacency ------------------------------------------------------------------

ADJ_EN = {
    10: "did the choir find a new rehearsal hall in the end?",
    11: "yes, the Tanner Institute basement, from October",
    # Decoys that share the question's words but not the answer.
    30: "the choir rehearsal notes are in the shared folder",
    31: "choir practice ran late, the rehearsal pianist was ill",
    32: "I think the rehearsal schedule for the choir needs a redo",
}


@pytest.mark.parametrize("weight", [None, 0.0])
def test_reply_to_a_matching_question_is_ranked(monkeypatch, weight):
    if weight is not None:
        monkeypatch.setattr(recall_rank, "ANSWER_WEIGHT", weight)
    ranked = rank_turns(candidates=chat(ADJ_EN), question="where will the choir rehearse?")
    r = rank_of(ranked, 11)
    if weight is None:
        assert r is not None and r <= 2, ranked[:5]
    else:  # switched off, the reply that repeats no word is not found
        assert r is None or r > 3


ADJ_ZH = {
    8: "你们乐队的新排练室定下来了吗？",
    9: "定了，在东湖路那个仓库的二楼，每周三晚上",
    20: "乐队排练的时候鼓手老迟到",
    21: "排练完我们去吃了烧烤",
    22: "乐队的排练录音我放网盘了",
}


@pytest.mark.parametrize("weight", [None, 0.0])
def test_reply_to_a_matching_question_is_ranked_in_chinese(monkeypatch, weight):
    if weight is not None:
        monkeypatch.setattr(recall_rank, "ANSWER_WEIGHT", weight)
    ranked = rank_turns(candidates=chat(ADJ_ZH, filler=FILLER_ZH), question="乐队以后在哪里排练？")
    r = rank_of(ranked, 9)
    if weight is None:
        assert r is not None and r <= 2, ranked[:5]
    else:
        assert r is None or r > 3


def test_a_short_interjection_does_not_break_the_pair():
    turns = {
        14: "I went to the garden centre for the hedge question",
        15: "so?",
        16: "they said the laurel needs cutting back to 1.2 metres in spring",
    }
    ranked = rank_turns(candidates=chat(turns), question="how far should the hedge be cut back?")
    assert rank_of(ranked, 16) is not None


# --- turns that state nothing -------------------------------------------------------------------

GLUE = {
    40: "what did the landlord say about the boiler?",
    41: "see you later",
    42: "he'll replace it on the 9th, the engineer comes at 8",
}


@pytest.mark.parametrize("drop", [True, False])
def test_glue_turn_lifted_only_by_neighbours_is_not_ranked(monkeypatch, drop):
    monkeypatch.setattr(recall_rank, "DROP_EMPTY_CONTEXT_TURNS", drop)
    ranked = rank_turns(candidates=chat(GLUE), question="when is the landlord replacing the boiler?")
    ids = [c for c, _, _ in ranked]
    assert 42 in ids
    assert (41 in ids) is (not drop)


@pytest.mark.parametrize("drop", [True, False])
def test_empty_neighbour_is_not_packed(monkeypatch, drop):
    monkeypatch.setattr(history_recall, "DROP_EMPTY_NEIGHBOURS", drop)
    monkeypatch.setattr(recall_rank, "DROP_EMPTY_CONTEXT_TURNS", True)
    # A short answer pulls in the turn before it for context; here that turn is glue.
    turns = {50: "nice, have a good one", 51: "tram 14 for the stadium"}
    res = recall_history(
        candidates=chat(turns),
        question="which tram goes to the stadium?",
        max_tokens=400,
        count=count_tokens,
    )
    assert "tram 14" in res.text
    assert ("have a good one" in res.text) is (not drop)


# --- value-first excerpt ------------------------------------------------------------------------


@pytest.mark.parametrize("on", [True, False])
def test_context_only_hit_is_excerpted_from_its_value(monkeypatch, on):
    monkeypatch.setattr(recall_rank, "VALUE_FIRST_EXCERPT", on)
    long_reply = (
        "oh it was a whole saga, honestly I nearly gave up halfway through the afternoon. "
        "the woman at the counter kept sending me to another window and back again. "
        "there was a queue of retired gentlemen all arguing about car parking. "
        "in the end they gave me FP-40817, valid until spring."
    )
    turns = {20: "did you manage to sort out the fishing permit?", 21: long_reply}
    cands = chat(turns)
    res = recall_history(
        candidates=cands, question="what is our fishing permit number?", max_tokens=95, count=count_tokens
    )
    assert ("FP-40817" in res.text) is on


# --- the index kept across compiles -------------------------------------------------------------


def test_index_is_kept_per_conversation_and_updated_by_diff(monkeypatch):
    cache = TokenCache()
    cands = chat({5: "the spare key is with Mrs Halvorsen at number 12"}, n=40)
    q = "who has the spare key?"
    first = rank_turns(candidates=cands, question=q, cache=cache)
    index = recall_index_for(cands, cache)
    assert isinstance(index, RecallIndex) and len(index.turns) > 0

    added: list[object] = []
    real_add = lexical.BM25Index.add

    def counting_add(self, doc_id, text=None, *, tokens=None):
        added.append(doc_id)
        return real_add(self, doc_id, text, tokens=tokens)

    monkeypatch.setattr(lexical.BM25Index, "add", counting_add)
    # One new turn: only it (its sentence, turn and a few neighbourhoods) is indexed again.
    more = [
        *cands,
        RecallCandidate(
            position=40,
            message=MessageData(id="t40", role="user", content="ok the bins are out"),
            text="ok the bins are out",
        ),
    ]
    second = rank_turns(candidates=more, question=q, cache=cache)
    assert recall_index_for(more, cache) is index
    assert 0 < len(added) <= 8, added
    assert first[0][0] == second[0][0] == 5


def test_cached_index_follows_rewritten_text_and_matches_a_fresh_build():
    cache = TokenCache()
    cands = chat({7: "the gate code is 4471", 23: "拖车在北门，车牌是沪A·7K210"}, n=50, filler=FILLER_EN)
    rank_turns(candidates=cands, question="what is the gate code?", cache=cache)
    # A later correction rewrites turn 7's prepared text (the value retired).
    changed = list(cands)
    changed[7] = RecallCandidate(position=7, message=cands[7].message, text="the gate code is [old value]")
    for q in ("what is the gate code?", "拖车停在哪里？"):
        cached = rank_turns(candidates=changed, question=q, cache=cache)
        fresh = rank_turns(candidates=changed, question=q)
        assert [(c, round(s, 6)) for c, s, _ in cached] == [(c, round(s, 6)) for c, s, _ in fresh]
    index = recall_index_for(changed, cache)
    assert "4471" not in index.turns.postings


def test_the_kept_index_counts_what_it_holds_against_the_cache_byte_bound():
    varied = [f"第{i}号仓库的货架编号是 R{i:03d}，负责人换成了小组{i % 7}。" for i in range(200)]
    turns = chat(dict(enumerate(varied)), n=200, filler=FILLER_ZH)
    roomy = TokenCache(max_bytes=50_000_000)
    rank_turns(candidates=turns, question="R120 货架归谁管？", cache=roomy)
    index = recall_index_for(turns, roomy)
    assert len(index.docs) > 150
    # The bytes charged for the index are what it holds after indexing, not an empty index's size.
    assert roomy.bytes >= index.estimated_bytes() > 100_000

    tight = TokenCache(max_bytes=index.estimated_bytes() // 2)
    tight.memo(key=("other", 1), source="x", compute=lambda: "kept while it fits")
    rank_turns(candidates=turns, question="R120 货架归谁管？", cache=tight)
    assert tight.bytes <= tight.max_bytes


# --- a "how many" question and the turn that states the count -----------------------------------------


def test_counted_answer_reads_the_counted_noun_and_money():
    from canvasweb.context.recall_signals import counted_answer

    assert counted_answer("how many kayaks are left in the shed?").search("we still have 14 kayaks there")
    assert not counted_answer("how many kayaks are left in the shed?").search("the shed is 14 metres long")
    assert counted_answer("仓库里还有多少箱？").search("还剩 36 箱，下周补货")
    assert counted_answer("修车花了多少钱？").search("换刹车片一共 680 元")
    assert counted_answer("how much did the plumber charge?").search("he billed us £185 in the end")
    assert counted_answer("what colour is the van?") is None


def test_a_chinese_count_is_read_across_measure_words_of_one_family():
    from canvasweb.context.recall_signals import counted_answer

    assert counted_answer("搬家要叫几台车？").search("货拉拉订了 3 辆，早上八点到")
    assert counted_answer("下午来几位家长？").search("报名的有 14 名家长")
    assert not counted_answer("搬家要叫几台车？").search("一共 3 箱书")


@pytest.mark.parametrize("lift", [0.0, 0.5])
def test_a_turn_that_states_the_count_is_lifted_above_chat_about_the_subject(monkeypatch, lift):
    monkeypatch.setattr(recall_rank, "COUNT_LIFT", lift)
    cands = chat(
        {
            8: "kayak club update: the sea kayaks got new rudders, and we counted 14 kayaks in the shed after the trip.",
            20: "the kayak shed door sticks again, someone tell the kayak club committee",
            22: "kayak shed painting day soon, bring old clothes for the kayak shed",
        }
    )
    ranked = rank_turns(candidates=cands, question="how many kayaks are in the kayak shed?")
    score = {ci: s for ci, s, _ in ranked}
    assert rank_of(ranked, 8) == 0
    # the lift is what puts a clear margin between the count and the chat about the shed
    assert (score[8] >= 1.5 * max(score[20], score[22])) == (lift > 0)


@pytest.mark.parametrize(
    "turns, question, answer, other",
    [
        (
            {
                9: "the allotment water board meets on 14 May to vote on the new standpipes",
                21: "the allotment water board now has 23 members, all of them get a vote",
            },
            "when does the water board vote?",
            9,
            21,
        ),
        (
            {
                9: "物业那边说小区的停车场改造3月18日动工，先挖东边",
                21: "小区的停车场改造要动43个车位，东边先挖",
            },
            "停车场改造什么时候动工？",
            9,
            21,
        ),
    ],
)
def test_a_turn_that_states_the_kind_of_value_asked_for_outranks_one_with_another_number(
    monkeypatch, turns, question, answer, other
):
    # Both turns match the question and state a number; only one states a date, which "when / 什么时候"
    # asks for.
    cands = chat(turns)

    def ranked() -> tuple[int, float]:
        got = rank_turns(candidates=cands, question=question)
        score = {ci: s for ci, s, _ in got}
        return got[0][0], score[answer] / score[other]

    first, lifted = ranked()
    assert first == answer
    monkeypatch.setattr(recall_rank, "KIND_LIFT", 0.0)
    _, plain = ranked()
    assert lifted >= 1.5 * plain


# --- answers found by their shape ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "answer, question",
    [
        (
            "oh and the florist posts on insta as @petals.and.moss, cute stuff",
            "what is the flower shop's username?",
        ),
        ("you can reach the caretaker at hausmeister.kern@posteo.de", "what's the caretaker's email?"),
        ("the choir finally has a page: singwithus-leeds.org", "where is our web site?"),
        ("花店的账号是 @xiaohua_flowers，粉丝不少", "花店用户名是什么？"),
        ("有事打 139 0172 5538，白天都在", "换锁的师傅怎么联系？"),
        ("ring 07700 900 318 any weekday, he said", "how do we reach the piano tuner?"),
    ],
)
def test_a_question_that_asks_for_a_shape_finds_the_turn_that_holds_one(answer, question):
    turns = {7: answer, 30: "the flower shop and the caretaker and the website are on my list for Monday"}
    cands = chat(turns, n=80, filler=FILLER_ZH if "花" in answer else FILLER_EN)
    ranked = rank_turns(candidates=cands, question=question)
    assert rank_of(ranked, 7) is not None and rank_of(ranked, 7) < 3


def test_a_shape_said_in_many_turns_does_not_lift_them_all():
    # control: five @handles, none tells the answer apart; the words decide
    turns = {i * 10 + 1: f"a fan wrote from @fan_{i}" for i in range(5)}
    turns[55] = "the bakery account manager is Petra"
    ranked = rank_turns(candidates=chat(turns, n=70), question="who manages the bakery account?")
    assert rank_of(ranked, 55) == 0 and all(rank_of(ranked, ci) is None for ci in (1, 11, 21))


def test_a_phone_number_is_told_from_a_date():
    from canvasweb.context.recall_signals import answer_shape

    phone = answer_shape("what's the locksmith's phone number?")
    assert phone is not None
    assert phone.search("ring him on +44 7700 900461") and phone.search("座机 010-6552-3388")
    assert (
        not phone.search("the lease starts 2027-03-01") and answer_shape("when does the lease start?") is None
    )


def test_an_age_question_finds_the_turn_that_says_an_age():
    turns = {
        12: "happy birthday Tomasz!! 🎂",
        13: "thanks! I'm 41 today, feeling ancient",
        40: "I'm 5 minutes away from the office",
    }
    ranked = rank_turns(candidates=chat(turns, n=70), question="how old is Tomasz now?")
    assert rank_of(ranked, 13) is not None and rank_of(ranked, 13) <= 1  # right after the turn naming him
    assert rank_of(ranked, 40) is None or rank_of(ranked, 40) > rank_of(ranked, 13)
    zh = chat({9: "我妈今年68岁了，身体还挺好"}, n=50, filler=FILLER_ZH)
    assert rank_of(rank_turns(candidates=zh, question="你妈妈多大年纪？"), 9) == 0


def test_a_question_about_a_bill_asks_for_an_amount():
    from canvasweb.context.recall_signals import counted_answer

    for question in (
        "what was the bill for the boiler service?",
        "what's the fare to Porto?",
        "修车花了多少？",
    ):
        pattern = counted_answer(question)
        assert (
            pattern is not None
            and pattern.search("in the end it was €280")
            and pattern.search("一共 1200 元")
        )
    assert counted_answer("what was the plan for the boiler?") is None


def test_a_bare_wan_amount_answers_a_money_question():
    from canvasweb.context.recall_signals import counted_answer

    pattern = counted_answer("装修一共要多少钱？")
    assert pattern is not None
    assert pattern.search("全包下来 12.5 万，不含家电") and pattern.search("大概 30万左右")
    assert not pattern.search("小区里住了 3 万人") and not pattern.search("今天走了 2 万步")


# --- "who" questions: a turn that names a person outranks one that only holds a number ----------


@pytest.mark.parametrize(
    ("turns", "question", "answer"),
    [
        (
            {
                8: "the opening speech gets 12 minutes, and whoever gives it must send slides by 3 May",
                20: "for the opening speech we have Ruth Abernathy, she said yes this morning",
            },
            "who gives the opening speech?",
            20,
        ),
        (
            {
                6: "开幕致辞大概 10 分钟，致辞人 5 月 3 日前定下来",
                22: "开幕致辞定了，由宋嘉怡来，她今天答应了",
            },
            "开幕致辞是谁？",
            22,
        ),
        (
            {
                6: "周年庆的摄影要 3 个机位，跟拍 6 小时",
                22: "摄影就找阿宽，他拍过我们去年的周年庆",
            },
            "周年庆谁来摄影？",
            22,
        ),
    ],
)
def test_a_who_question_prefers_the_turn_that_names_a_person(turns, question, answer):
    filler = FILLER_ZH if any("\u4e00" <= ch <= "\u9fff" for ch in question) else FILLER_EN
    ranked = rank_turns(candidates=chat(turns, n=60, filler=filler), question=question)
    other = next(ci for ci in turns if ci != answer)
    assert rank_of(ranked, answer) == 0 and rank_of(ranked, other) is not None


def test_a_person_is_told_from_a_counted_thing():
    from canvasweb.context.recall_signals import asks_for_person, person_score

    assert asks_for_person("who is chairing the panel?") and asks_for_person("这件事哪位负责？")
    assert not asks_for_person("when does the panel start?")
    named = ["请刘经理确认合同", "这张表交给老陈", "the panel goes to Dita Novak", "阿宽负责拍照"]
    assert all(person_score(s) == 1.0 for s in named)
    counted = [
        "打印三张表",
        "桌上放了 17 张卡片",
        "HR 更新了名单，342 人",
        "the panel starts on 3 May",
        "阿姨周三来",
    ]
    assert all(person_score(s) < 0.5 for s in counted)


# --- questions typed without a question mark ----------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "password manager for the team, which one are we going with",
        "so where do we keep the spare keys",
        "did anyone book the van",
        "报销的系统定了吗",
        "发票抬头改好了没有",
    ],
)
def test_a_turn_asks_without_a_question_mark(text):
    msg = MessageData(id="q", role="user", content=text)
    assert recall_index.turn_asks(RecallCandidate(position=0, message=msg, text=text))


@pytest.mark.parametrize(
    "text",
    [
        "I know which one we use.",
        "what a week, finally done",
        "过几天再说",
        "哪个都行，你定",
        "Bitwarden, it's audited",
    ],
)
def test_a_statement_does_not_ask(text):
    msg = MessageData(id="s", role="user", content=text)
    assert not recall_index.turn_asks(RecallCandidate(position=0, message=msg, text=text))


UNMARKED_EN = {
    20: "password manager for the team, which one are we going with",
    21: "Bitwarden, it's audited and cheap",
    22: "can we share folders in it?",
    23: "yes, per project",
}
UNMARKED_ZH = {
    20: "出差报销现在走的是哪个系统呢",
    21: "费控云，手机上拍票就行",
    22: "那纸质的还要交吗？",
    23: "不用了",
}


def test_the_short_reply_to_a_question_without_a_question_mark_is_recalled():
    res = recall_history(
        candidates=chat(UNMARKED_EN),
        question="what tool keeps the team's passwords?",
        max_tokens=400,
        count=count_tokens,
    )
    assert "Bitwarden" in res.text, res.text


def test_the_reply_to_a_chinese_question_without_a_question_mark_outranks_decoys():
    turns = {
        **UNMARKED_ZH,
        40: "报销单上周财务退回来两张",
        41: "出差的报销标准今年没变",
        42: "报销系统有时候登录很慢",
    }
    ranked = rank_turns(candidates=chat(turns, filler=FILLER_ZH), question="出差回来用什么提交报销单？")
    r = rank_of(ranked, 21)
    assert r is not None and r <= 3, ranked[:6]
