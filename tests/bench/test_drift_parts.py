"""The drift benchmark's own parts, on plain data: BM25 reference, replay clock, seeded ids, scenario loading."""

from __future__ import annotations

import itertools
import json
from datetime import UTC, datetime, timedelta

import pytest

from canvasweb.bench.drift import HistoryIndex, bm25_history_compile, bm25_terms, turn_times
from canvasweb.bench.drift.replay import CLOCK_START, ReplayClock, SeededIds
from canvasweb.bench.scenarios import ScenarioError, load_scenarios
from canvasweb.chat.context_inputs import TOKEN_CACHE
from canvasweb.context.tokens import count_tokens


def test_bm25_terms_split_words_and_cjk():
    assert bm25_terms("Ferry leaves at 07:40, pier B") == ["ferry", "leaves", "at", "07", "40", "pier", "b"]
    terms = bm25_terms("渡轮七点 pier")
    assert "pier" in terms and "渡" in terms and "渡轮" in terms and "七点" in terms and "轮七" in terms


def _index(turns):
    index = HistoryIndex()
    for i, text in enumerate(turns):
        index.add(role="user" if i % 2 == 0 else "assistant", content=text)
    return index


def test_bm25_ranks_the_turn_that_shares_rare_words_first():
    turns = [
        "We talked about the weather again today.",
        "The ferry to the island leaves from pier B.",
        "The weather looks fine for the picnic.",
        "Sounds good, see you at the picnic.",
    ]
    ranked = _index(turns).rank("Which pier does the island ferry use?")
    assert ranked[0][1] == 1
    assert all(a[0] >= b[0] for a, b in itertools.pairwise(ranked))


def test_bm25_history_packs_best_first_within_budget_question_last():
    filler = [f"Unrelated chatter number {i} about lunch plans and parking spots." for i in range(60)]
    turns = [*filler[:30], "The lighthouse key hangs on hook 17 in the shed.", *filler[30:]]
    index = _index(turns)
    question = "Where is the lighthouse key kept?"
    compiled = bm25_history_compile(index=index, question=question, budget=300)
    assert compiled.total_tokens <= 300
    assert compiled.messages[0]["role"] == "system" and compiled.messages[-1]["content"] == question
    assert any("hook 17" in m["content"] for m in compiled.messages[1:-1])
    # Conversation order is kept among the packed turns.
    packed = [turns.index(m["content"]) for m in compiled.messages[1:-1]]
    assert packed == sorted(packed)
    cost = sum(count_tokens(m["content"], encoding=TOKEN_CACHE.encoding) for m in compiled.messages)
    assert cost < compiled.total_tokens  # message overheads and reply priming are counted too


def test_bm25_history_with_a_tiny_budget_sends_only_system_and_question():
    index = _index(["The lighthouse key hangs on hook 17 in the shed."])
    compiled = bm25_history_compile(index=index, question="Where is the lighthouse key?", budget=10)
    assert [m["role"] for m in compiled.messages] == ["system", "user"]


def test_turn_times_one_minute_apart_unless_a_turn_says_when():
    turns = [
        {"content": "a"},
        {"content": "b"},
        {"content": "c", "at": "2026-07-01T10:00:00+02:00"},
        {"content": "d"},
        {"content": "e", "at": "2026-07-03T09:30:00"},
    ]
    times = turn_times(turns)
    assert times[0] == CLOCK_START and times[1] == CLOCK_START + timedelta(minutes=1)
    assert times[2] == datetime(2026, 7, 1, 8, 0, tzinfo=UTC)
    assert times[3] == times[2] + timedelta(minutes=1)
    assert times[4] == datetime(2026, 7, 3, 9, 30, tzinfo=UTC)  # naive means UTC


def test_replay_clock_ticks_within_a_turn_and_resets():
    clock = ReplayClock(CLOCK_START)
    a, b = clock.now(), clock.now()
    assert CLOCK_START < a < b < CLOCK_START + timedelta(milliseconds=1)
    clock.set(CLOCK_START)
    assert clock.now() == a


def test_seeded_ids_repeat_per_seed_and_differ_between_seeds():
    one, again, other = SeededIds("s:plain"), SeededIds("s:plain"), SeededIds("s:capture")
    first = [one() for _ in range(5)]
    assert first == [again() for _ in range(5)]
    assert len(set(first)) == 5 and first[0] != other()
    assert all(u.version == 4 for u in first)


def _write(tmp_path, **changes):
    data = {
        "format": "drift-scenario/1",
        "id": "loader-check",
        "lang": "en",
        "turns": [{"role": "user", "content": "The kiln runs at 1240 degrees."}],
        "probes": [{"after_turn": 0, "question": "How hot is the kiln?", "expect_all": ["1240"]}],
    }
    for key, value in changes.items():
        target, _, field = key.partition("__")
        (data["turns"][0] if target == "turn" else data["probes"][0])[field] = value
    path = tmp_path / "s.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_loader_accepts_at_and_tags_and_remembers_the_set(tmp_path):
    path = _write(tmp_path, turn__at="2026-05-01T12:00:00Z", probe__tags=["paraphrase"])
    [scenario] = load_scenarios([str(tmp_path)])
    assert scenario.source == str(tmp_path) and scenario.probes[0]["tags"] == ["paraphrase"]
    [direct] = load_scenarios([str(path)])
    assert direct.source == str(path)


@pytest.mark.parametrize(
    "change, message",
    [
        ({"turn__at": "next tuesday"}, "ISO-8601"),
        ({"turn__at": 1700000000}, "ISO-8601"),
        ({"probe__tags": "paraphrase"}, "tags"),
        ({"probe__tags": [""]}, "tags"),
    ],
)
def test_loader_rejects_bad_at_and_tags(tmp_path, change, message):
    path = _write(tmp_path, **change)
    with pytest.raises(ScenarioError, match=message):
        load_scenarios([str(path)])
