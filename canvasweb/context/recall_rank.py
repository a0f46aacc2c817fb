"""Ranking past turns against a question: BM25 over sentences, turns and their neighbourhoods.

The index (recall_index.py) holds each sentence, each whole turn and each turn with its
neighbours, and is kept across compiles, so the next compile only indexes what changed.

Scoring: the best sentence decides, the whole turn and its neighbourhood add; then
  * question/answer adjacency: a reply inherits the score of the matching question before it;
  * turns lifted only by neighbours that state nothing are dropped;
  * value questions lift turns that state a value, and an older value restated later is demoted
    (recall_signals);
  * with vectors, reciprocal-rank fusion with embedding similarity.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import cast

from .answer_kinds import asked_kinds, stated_kinds
from .lexical import (
    CHAR_PREFIX,
    cosine,
    query_terms,
    reciprocal_rank_fusion,
    term_weights,
    tokenize,
)
from .recall_index import (
    RecallCandidate,
    _index_key,
    is_low_information,
    recall_index_for,
    turn_asks,
    turn_sentences,
)
from .recall_signals import (
    answer_shape,
    asks_for_person,
    asks_for_value,
    counted_answer,
    person_score,
    value_score,
)
from .synonyms import expansion
from .text import normalize_sentence
from .tokens import TokenCache
from .types import MessageData

MIN_RELATIVE_SCORE = 0.08  # hits scoring below this share of the best hit are noise
SHORT_REPLY_TOKENS = 8  # ranking tokens: "yes, 5433" needs its question
CONTEXT_WEIGHT = 0.5
MAX_HITS = 60
# A question that asks for a value lifts turns whose matching sentence states one (recall_signals).
VALUE_LIFT = 0.6
HIT_VALUE_SENTENCES = 2  # the value lift looks at this many best matching sentences of a turn
# A "how many X / 多少人 / 多少钱" question lifts turns that state a number of X (or an amount).
COUNT_LIFT = 0.5
# "哪天 / when" is answered by a date, "多少钱 / how much" by an amount: a turn whose matching sentence
# states a value of the asked kind ranks above one that states only some other number.
KIND_LIFT = 1.0
# A question that asks for an @handle, an email, a web address or a phone number seats the few turns
# that hold one (at most SHAPE_MAX_HOLDERS) at least at SHAPE_FLOOR of the best score, whatever their words.
SHAPE_FLOOR = 0.8
SHAPE_LIFT = 0.5  # and lifts the ones that match the question's words too
SHAPE_MAX_HOLDERS = 4
RESTATED_FACTOR = 0.6
# The reply to a matching question inherits this share of its score (_inherit_from_questions),
# looking at most ANSWER_REACH turns ahead.
ANSWER_WEIGHT = 1.0
ANSWER_REACH = 2
# Turns lifted only by their neighbours, and neighbours pulled in for context, are left out when
# they state nothing (short, no value, no question): carries_nothing.
DROP_EMPTY_CONTEXT_TURNS = True
# The direct reply to a matching question is glue only when it has at most this many ranking tokens.
REPLY_GLUE_TOKENS = 2
# A turn ranked only through its context is excerpted from its value-stating sentence (_hit_order).
VALUE_FIRST_EXCERPT = True


def past_match_share(
    *, question: str, messages: Sequence[MessageData], cache: TokenCache | None = None
) -> float:
    """Share (0..1) of the question's words that some of `messages` contains: how much the question is
    about what was said earlier. Words only (no single-character sub-tokens); per-message term sets cached."""
    terms = {t for t in query_terms(question) if not t.startswith(CHAR_PREFIX)}
    if not terms:
        return 0.0
    found: set[str] = set()
    for m in messages:
        if m.role == "tool":
            continue
        if cache is None:
            words = frozenset(tokenize(m.content))
        else:

            def words_of(m: MessageData = m) -> frozenset[str]:
                return frozenset(tokenize(m.content))

            words = cache.memo(key=("recall-words", m.id), source=m.content, compute=words_of)
        found.update(terms.intersection(words))
        if len(found) == len(terms):
            break
    return len(found) / len(terms)


def _best_sentence_score(
    cand: RecallCandidate, cache: TokenCache | None, *, name: str, score: Callable[[str], float]
) -> float:
    """The turn's best sentence under `score`, memoised per message and text."""

    def compute() -> float:
        return max((score(x) for x in turn_sentences(cand.text)), default=0.0)

    if cache is None:
        return compute()
    return cache.memo(key=(name, cand.message.id), source=cand.text, compute=compute)


def _turn_value(cand: RecallCandidate, cache: TokenCache | None) -> float:
    return _best_sentence_score(cand, cache, name="recall-value", score=value_score)


def _turn_person(cand: RecallCandidate, cache: TokenCache | None) -> float:
    return _best_sentence_score(cand, cache, name="recall-person", score=person_score)


def _hit_value(
    cand: RecallCandidate,
    hits: tuple[float, list[tuple[float, int]]] | None,
    cache: TokenCache | None,
    *,
    person: bool = False,
) -> float:
    """How much the turn's best matching sentences state a value (for a "who" question: name a
    person): in a long turn, a number in another paragraph says nothing about whether the part
    that matches the question answers it. A turn ranked through its neighbours only (no sentence
    hit) counts as a whole."""
    if not hits:
        return _turn_person(cand, cache) if person else _turn_value(cand, cache)
    sentences = turn_sentences(cand.text)
    best = sorted(hits[1], reverse=True)[:HIT_VALUE_SENTENCES]
    score = person_score if person else value_score
    return max((score(sentences[si]) for _, si in best if si < len(sentences)), default=0.0)


def _sentence_kinds(cand: RecallCandidate, cache: TokenCache | None) -> tuple[frozenset[str], ...]:
    """The value kinds each sentence of the turn states, memoised per message and text (every
    compile that asks for a kind reads them for every ranked turn)."""

    def compute() -> tuple[frozenset[str], ...]:
        return tuple(stated_kinds(x) for x in turn_sentences(cand.text))

    if cache is None:
        return compute()
    return cache.memo(key=("recall-kinds", cand.message.id), source=cand.text, compute=compute)


def _hit_states_kind(
    cand: RecallCandidate,
    hits: tuple[float, list[tuple[float, int]]] | None,
    asked: frozenset[str],
    cache: TokenCache | None,
) -> bool:
    """Whether the turn's best matching sentences (the whole turn when it matched only through its
    neighbours) state a value of a kind in `asked`."""
    kinds = _sentence_kinds(cand, cache)
    if not hits:
        return any(k & asked for k in kinds)
    best = sorted(hits[1], reverse=True)[:HIT_VALUE_SENTENCES]
    return any(si < len(kinds) and kinds[si] & asked for _, si in best)


def _demote_restated(
    scored: dict[int, float],
    *,
    candidates: Sequence[RecallCandidate],
    flat_by_ci: Mapping[int, list[str]],
    q: Sequence[str],
    cache: TokenCache | None,
) -> None:
    """An older value-bearing turn whose matched question words a later value-bearing turn also
    matches was most likely restated or corrected since: the later one ranks first (the newest
    statement of a subject is the current one)."""
    qset = {t for t in q if not t.startswith(CHAR_PREFIX)}
    if not qset:
        return
    later: list[frozenset[str]] = []
    # Only turns that could be quoted matter: the best 2 x MAX_HITS (keeps this linear in practice).
    contenders = sorted(scored, key=lambda c: -scored[c])[: MAX_HITS * 2]
    for ci in sorted(contenders, key=lambda c: -candidates[c].position):
        if _turn_value(candidates[ci], cache) < 0.5:
            continue
        matched = frozenset(qset.intersection(flat_by_ci.get(ci, ())))
        if len(matched) >= 1 and any(matched <= m for m in later):
            scored[ci] *= RESTATED_FACTOR
        if matched:
            later.append(matched)


def carries_nothing(
    cand: RecallCandidate, toks: Sequence[str], cache: TokenCache | None, *, replies: bool = False
) -> bool:
    """A short turn that neither asks nor states a value: chat glue, not a fact.

    `replies`: the turn answers a matching question, so a few words of its own are the answer
    ("Klaro, it's open source and light"); only glue as short as "see you later" is dropped."""
    limit = REPLY_GLUE_TOKENS if replies else SHORT_REPLY_TOKENS // 2
    return len(toks) <= limit and not turn_asks(cand) and _turn_value(cand, cache) == 0.0


def _inherit_from_questions(
    scored: dict[int, float], *, candidates: Sequence[RecallCandidate], flat_by_ci: Mapping[int, list[str]]
) -> set[int]:
    """Question/answer adjacency: the reply to a turn that asks something matching the question
    ("did you move in the end?" / "yes, it's on Mill Lane") scores at least ANSWER_WEIGHT of the
    asking turn, although it repeats none of its words. A short turn in between ("so?", "怎么样",
    "ok") passes the subject through: the reply also inherits from the turn before it.

    Returns the turns that reply directly to a matching question."""
    base = dict(scored)
    by_pos = {c.position: ci for ci, c in enumerate(candidates)}
    replies: set[int] = set()
    for ai in flat_by_ci:
        pos = candidates[ai].position
        best = 0.0
        for step in range(1, ANSWER_REACH + 1):
            pi = by_pos.get(pos - step)
            if pi is None:
                break
            prev = candidates[pi]
            if step == 1 and turn_asks(prev) and base.get(pi, 0.0) > 0.0:
                replies.add(ai)
            if (step == 1 and turn_asks(prev)) or step > 1:
                best = max(best, base.get(pi, 0.0))
            # A short turn ("so?", "ok", "which one?") passes the subject on to the next turn.
            short = pi not in flat_by_ci or len(flat_by_ci[pi]) <= SHORT_REPLY_TOKENS
            if not short:
                break
        if ANSWER_WEIGHT * best > scored.get(ai, 0.0):
            scored[ai] = ANSWER_WEIGHT * best
    return replies


def rank_turns(
    *,
    candidates: Sequence[RecallCandidate],
    question: str,
    cache: TokenCache | None = None,
    question_vector: Sequence[float] | None = None,
    vectors: Mapping[str, Sequence[float]] | None = None,
    skip_sentences: frozenset[str] = frozenset(),
) -> list[tuple[int, float, list[int]]]:
    """(candidate index, score, matching sentence indexes) best first.

    Sentences whose normalized text is in `skip_sentences` (already in the prompt) do not count as hits.
    """
    q = query_terms(question, chars=True)
    weights = term_weights(q)
    extra = expansion(question)
    q += list(extra)
    weights.update(extra)
    if not q or not candidates:
        return []
    ci_of = {c.message.id: ci for ci, c in enumerate(candidates)}
    index = recall_index_for(candidates, cache)
    with index.lock:
        index.sync(candidates, cache)
        if cache is not None:  # the cache's byte bound sees what the index holds now
            cache.remeasure(key=_index_key(candidates), nbytes=index.estimated_bytes())
        raw_sent = index.sentences.scores(q, weights=weights)
        raw_turn = index.turns.scores(q, weights=weights)
        raw_ctx = index.contexts.scores(q, weights=weights)
        flat_by_ci = {ci_of[mid]: flat for mid, flat in index.flat.items() if mid in ci_of}
    sent_scores: dict[tuple[int, int], float] = {}
    for key, score in raw_sent.items():
        mid, si = cast(tuple[str, int], key)
        ci = ci_of.get(mid)
        if ci is None:
            continue
        if skip_sentences:
            sents = turn_sentences(candidates[ci].text)
            if si < len(sents) and normalize_sentence(sents[si]) in skip_sentences:
                continue
        sent_scores[(ci, si)] = score
    turn_scores = {ci_of[m]: s for m, s in raw_turn.items() if m in ci_of}
    context_scores = {ci_of[m]: s for m, s in raw_ctx.items() if m in ci_of and ci_of[m] in flat_by_ci}
    per_turn: dict[int, tuple[float, list[tuple[float, int]]]] = {}
    for (ci, si), s in sent_scores.items():
        best, hits = per_turn.get(ci, (0.0, []))
        hits.append((s, si))
        per_turn[ci] = (max(best, s), hits)
    if not per_turn and answer_shape(question) is None:
        return []
    top_turn = max(turn_scores.values(), default=0.0) or 1.0
    top_sent = max((b for b, _ in per_turn.values()), default=0.0) or 1.0
    top_ctx = max(context_scores.values(), default=0.0) or 1.0
    scored: dict[int, float] = {}
    lift = VALUE_LIFT if asks_for_value(question) else 0.0
    for ci in set(per_turn) | set(context_scores):
        best = per_turn.get(ci, (0.0, []))[0]
        # The best sentence decides; the whole turn's match breaks ties, and the
        # neighbouring turns' match lifts an answer that does not repeat the question's words.
        scored[ci] = (
            best / top_sent
            + 0.35 * turn_scores.get(ci, 0.0) / top_turn
            + CONTEXT_WEIGHT * context_scores.get(ci, 0.0) / top_ctx
        )
    replies: set[int] = set()
    if ANSWER_WEIGHT:
        replies = _inherit_from_questions(scored, candidates=candidates, flat_by_ci=flat_by_ci)
    if DROP_EMPTY_CONTEXT_TURNS:
        # A turn lifted only by its neighbours that states nothing ("see you tomorrow", "good luck")
        # would spend budget without answering anything.
        for ci in [ci for ci in scored if ci not in per_turn]:
            if carries_nothing(candidates[ci], flat_by_ci.get(ci, ()), cache, replies=ci in replies):
                del scored[ci]
    counted = counted_answer(question)
    person = asks_for_person(question)
    asked = asked_kinds(question) if lift else frozenset()
    for ci in scored:
        if lift:
            scored[ci] *= 1.0 + lift * _hit_value(candidates[ci], per_turn.get(ci), cache, person=person)
        if counted is not None and counted.search(candidates[ci].text):
            scored[ci] *= 1.0 + COUNT_LIFT  # states the count the question asks for
        if asked and _hit_states_kind(candidates[ci], per_turn.get(ci), asked, cache):
            scored[ci] *= 1.0 + KIND_LIFT
    _seat_answer_shapes(scored, candidates=candidates, question=question)
    if lift:
        _demote_restated(scored, candidates=candidates, flat_by_ci=flat_by_ci, q=q, cache=cache)
    if not scored:
        return []
    lexical = sorted(scored, key=lambda ci: (-scored[ci], -candidates[ci].position))
    if question_vector is not None and vectors:
        dense = [
            ci
            for ci in range(len(candidates))
            if candidates[ci].message.id in vectors and not is_low_information(candidates[ci].message.content)
        ]
        dense.sort(
            key=lambda ci: (
                -cosine(question_vector, vectors[candidates[ci].message.id]),
                -candidates[ci].position,
            )
        )
        fused = reciprocal_rank_fusion([lexical[: MAX_HITS * 2], dense[: MAX_HITS * 2]])
        order = sorted(fused, key=lambda ci: (-fused[ci], -candidates[ci].position))
        top = fused[order[0]] if order else 1.0
        result = []
        for ci in order[:MAX_HITS]:
            result.append((ci, fused[ci] / top, _hit_order(ci, per_turn, candidates, lift=lift)))
        return result
    top = scored[lexical[0]]
    result = []
    for ci in lexical[:MAX_HITS]:
        if scored[ci] < MIN_RELATIVE_SCORE * top:
            break
        result.append((ci, scored[ci] / top, _hit_order(ci, per_turn, candidates, lift=lift)))
    return result


def _seat_answer_shapes(
    scored: dict[int, float], *, candidates: Sequence[RecallCandidate], question: str
) -> None:
    shape = answer_shape(question)
    if shape is None:
        return
    holders = [ci for ci, c in enumerate(candidates) if shape.search(c.text)]
    if not holders or len(holders) > SHAPE_MAX_HOLDERS:
        return  # none, or too common in this chat to tell the answer apart
    floor = SHAPE_FLOOR * max(scored.values(), default=1.0)
    for ci in holders:
        scored[ci] = max(scored.get(ci, 0.0) * (1.0 + SHAPE_LIFT), floor)


def _hit_order(
    ci: int,
    per_turn: Mapping[int, tuple[float, list[tuple[float, int]]]],
    candidates: Sequence[RecallCandidate],
    *,
    lift: float = 0.0,
) -> list[int]:
    """Sentence indexes of a ranked turn, best first: by match, and for a question that asks for a
    value (`lift` > 0) by match x (1 + lift x value_score), so a long message is quoted from the
    sentence that gives the figure rather than the one that only names the subject; a turn ranked
    only through its context (an answer to a matching question) leads with the sentence that states
    a value."""
    hits = per_turn.get(ci, (0.0, []))[1]
    sents = turn_sentences(candidates[ci].text)
    if hits and lift:
        weighted = [
            (s * (1.0 + lift * value_score(sents[si])) if si < len(sents) else s, si) for s, si in hits
        ]
        return [si for _, si in sorted(weighted, reverse=True)]
    if hits or not VALUE_FIRST_EXCERPT:
        return [si for _, si in sorted(hits, reverse=True)]
    if len(sents) < 2:
        return []
    return sorted(range(len(sents)), key=lambda si: (-value_score(sents[si]), si))
