"""A long recalled sentence that does not fit whole is quoted as its clauses that match the question."""

from __future__ import annotations

import pytest

from canvasweb.context.history_recall import RecallCandidate, recall_history
from canvasweb.context.recall_excerpt import clause_excerpt, split_clauses
from canvasweb.context.tokens import TokenCache, count_tokens
from canvasweb.context.types import MessageData

_EN_LONG = (
    "About the studio move, the landlord's electrician came round on Monday morning with his apprentice, "
    "the old fuse board turned out to be older than anyone thought and the insurer wants it replaced before "
    "we open, so the kiln circuit goes live on 14 October at the earliest, and the painters can only start "
    "after the floor is sealed, which Dmitri says takes three dry days in a row."
)
_ZH_LONG = (
    "搬工作室的事说一下，房东请的电工周一上午带着徒弟来看过了，老配电箱比大家想的还要旧，保险公司要求开业前必须换掉，"
    "窑炉那路电最早10月14日才能通，油漆工要等地面封好才能进场，德米特里说得连着三个晴天，"
    "另外楼下咖啡店说装修期间可以借我们放几箱陶土，门口的停车位周末也能用。"
)


def _recall(text: str, question: str, max_tokens: int) -> str:
    cands = [
        RecallCandidate(
            position=0, message=MessageData(id="x0", role="user", content="Morning!"), text="Morning!"
        ),
        RecallCandidate(position=1, message=MessageData(id="x1", role="user", content=text), text=text),
    ]
    cache = TokenCache()
    return recall_history(
        candidates=cands, question=question, max_tokens=max_tokens, count=cache.count, cache=cache
    ).text


@pytest.mark.parametrize(
    ("text", "question", "value"),
    [
        (_EN_LONG, "When does the kiln circuit go live?", "14 October"),
        (_ZH_LONG, "窑炉那路电哪天能通？", "10月14日"),
    ],
)
def test_long_sentence_that_does_not_fit_is_quoted_as_its_matching_clauses(text, question, value):
    assert count_tokens(text) > 70
    out = _recall(text, question, max_tokens=75)
    assert value in out
    assert "…" in out
    # With room, the whole sentence comes back.
    whole = _recall(text, question, max_tokens=400)
    assert text.replace("\n", " ") in whole


@pytest.mark.parametrize(
    ("text", "terms"),
    [
        (
            "the landlord came round, the painters start after the floor is sealed, and the floor is dry.",
            {"painter": 1.0},
        ),
        ("房东来过了，油漆工要等地面封好才能进场，地面已经干了。", {"油漆工": 1.0}),
    ],
)
def test_value_question_excerpt_needs_a_value_near_the_matching_clause(text, terms):
    # The matching clause states no value and neither does the one after it: no excerpt for a
    # question that asks for one (it would spend budget without answering), one for any other.
    assert clause_excerpt(text, terms, wants_value=True) is None
    excerpt = clause_excerpt(text, terms, wants_value=False)
    assert excerpt is not None and excerpt.startswith("…")


def test_clause_split_keeps_numbers_and_list_items_whole():
    assert split_clauses("We pay £30,000 at 8:30, then the rest.") == [
        "We pay £30,000 at 8:30,",
        " then the rest.",
    ]
    assert len(split_clauses("带了陶土、釉料和工具，明天到。")) == 2
