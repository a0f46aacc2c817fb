"""One conversation's past turns as the recall reads them, and their index kept across compiles.

A conversation's turns outside the recent window are indexed three ways (lexical.BM25Index):
each sentence, each whole turn, and each turn with its CONTEXT_SPAN neighbours (chat context
spreads over turns). The index lives across compiles (RecallIndex, kept in the TokenCache
under the conversation's first message id) and is brought up to date by diffing the turns:
a new turn is added, a turn whose prepared text changed (a value retired since) is replaced,
and only the neighbourhoods around changed turns are re-indexed.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass

from .bytecache import text_bytes
from .lexical import BM25Index, tokenize
from .text import split_sentences
from .tokens import TokenCache
from .types import MessageData

# Chat context spreads over neighbouring turns ("is Marta in?" / "she brought her dog" /
# "yes, Biscuit"): each turn is also indexed with the turns within CONTEXT_SPAN of it.
CONTEXT_SPAN = 2

_LOW_INFO_RE = re.compile(
    r"^\s*(?:(?:ok(?:ay)?|k|sure|thanks?(?: you)?|thx|ty|cool|great|nice|got it|sounds good|perfect|yes|yeah|yep|"
    r"no|nope|right|alright|all right|fine|agreed|noted|will do|lol|haha|hmm+|ah|oh|wow|awesome|good|"
    r"好的?|好吧|嗯+|哦+|收到|谢谢|多谢|明白了?|知道了|可以|行|没问题|好嘞|对|是的|了解|哈+|👍|🙏)"
    r"[\s,.!?~。！？，、…:)]*)+$",
    re.IGNORECASE,
)


def is_low_information(text: str) -> bool:
    """An acknowledgement or filler turn that says nothing a later question could need."""
    if not text or not text.strip():
        return True
    if len(text) > 80:
        return False
    return bool(_LOW_INFO_RE.match(text))


@dataclass(frozen=True, slots=True)
class RecallCandidate:
    """One past turn the recall may quote: its position in the conversation and its prepared text."""

    position: int  # 0-based turn number in the whole conversation
    message: MessageData
    text: str  # masked, retired statements already rewritten


# Chat often drops the question mark: "cookie banner, what are we using", "场地定了吗". The last
# clause asks when it opens with a question word (English) or ends on a question particle (Chinese;
# a question word alone is not enough: "哪个都行" answers).
_LAST_CLAUSE_RE = re.compile(r"[^,;:，；：.!。！\n]*$")
_EN_ASKING_RE = re.compile(
    r"^\s*(?:so\s+|and\s+|but\s+|ok\s+)?(?:what|which|who|whom|whose|where|when|how|why|"
    r"do|does|did|is|are|was|were|can|could|should|shall|will|would|have|has|any)\b(?!\s+(?:a|an)\b)",
    re.I,
)
_ZH_ASKING_RE = re.compile(r"(?:吗|么|呢|没有?)\s*$")


def turn_asks(cand: RecallCandidate) -> bool:
    """The turn asks something: it ends on a question mark, or its last clause reads as a question."""
    text = cand.text.rstrip()
    if text.endswith(("?", "？")):
        return True
    m = _LAST_CLAUSE_RE.search(text)
    clause = m.group(0) if m else ""
    if not clause.strip() or len(clause) > 120:
        return False
    return bool(_EN_ASKING_RE.search(clause) or _ZH_ASKING_RE.search(clause))


def turn_sentences(text: str) -> list[str]:
    return split_sentences(text) or ([text.strip()] if text.strip() else [])


def sentence_tokens(cand: RecallCandidate, cache: TokenCache | None) -> list[list[str]]:
    def compute() -> list[list[str]]:
        return [tokenize(s, chars=True) for s in turn_sentences(cand.text)]

    if cache is None:
        return compute()
    return cache.memo(key=("recall-tokens", cand.message.id), source=cand.text, compute=compute)


class RecallIndex:
    """BM25 over one conversation's past turns (sentences, whole turns, neighbourhoods), kept
    across compiles and brought up to date by sync(). Keys are message ids, so positions may move."""

    def __init__(self) -> None:
        self.sentences = BM25Index(k1=1.2, b=0.5)  # keys (message id, sentence index)
        self.turns = BM25Index(k1=1.2, b=0.75)  # keys message id
        self.contexts = BM25Index(k1=1.2, b=0.75)  # keys message id: the turn and its neighbours
        self.docs: dict[str, tuple[int, str]] = {}  # message id -> (position, indexed text)
        self.flat: dict[str, list[str]] = {}  # message id -> the turn's ranking tokens
        self.sentence_count: dict[str, int] = {}
        self.by_position: dict[int, str] = {}
        self.lock = threading.Lock()  # one compile at a time changes and reads it

    def sync(self, candidates: Sequence[RecallCandidate], cache: TokenCache | None) -> None:
        """Make the index hold exactly `candidates` (the indexable ones), re-indexing only what changed."""
        want: dict[str, RecallCandidate] = {
            c.message.id: c
            for c in candidates
            if c.message.role != "tool" and not is_low_information(c.message.content)
        }
        touched: set[int] = set()
        for mid in [
            m
            for m, (pos, text) in self.docs.items()
            if m not in want or want[m].text != text or want[m].position != pos
        ]:
            pos, _ = self.docs.pop(mid)
            touched.add(pos)
            if self.by_position.get(pos) == mid:
                del self.by_position[pos]
            for si in range(self.sentence_count.pop(mid, 0)):
                self.sentences.remove((mid, si))
            self.turns.remove(mid)
            self.contexts.remove(mid)
            self.flat.pop(mid, None)
        for mid, cand in want.items():
            if mid in self.docs:
                continue
            self.docs[mid] = (cand.position, cand.text)
            self.by_position[cand.position] = mid
            touched.add(cand.position)
            sent_tokens = sentence_tokens(cand, cache)
            self.sentence_count[mid] = len(sent_tokens)
            flat: list[str] = []
            for si, toks in enumerate(sent_tokens):
                if toks:
                    self.sentences.add((mid, si), tokens=toks)
                    flat.extend(toks)
            if flat:
                self.turns.add(mid, tokens=flat)
                self.flat[mid] = flat
        redo = {p + d for p in touched for d in range(-CONTEXT_SPAN, CONTEXT_SPAN + 1)}
        for pos in sorted(redo):
            at = self.by_position.get(pos)
            if at is None:
                continue
            if at not in self.flat:
                self.contexts.remove(at)
                continue
            ctx: list[str] = []
            for near in range(pos - CONTEXT_SPAN, pos + CONTEXT_SPAN + 1):
                other = self.by_position.get(near)
                if other is not None:
                    ctx.extend(self.flat.get(other, ()))
            self.contexts.add(at, tokens=ctx)

    def estimated_bytes(self) -> int:
        tokens = sum(len(t) for t in self.flat.values())
        return (
            self.sentences.estimated_bytes()
            + self.turns.estimated_bytes()
            + self.contexts.estimated_bytes()
            + 60 * tokens
            + sum(text_bytes(text) for _, text in self.docs.values())
        )


def _index_key(candidates: Sequence[RecallCandidate]) -> tuple[str, str]:
    return ("recall-index", candidates[0].message.id)


def recall_index_for(candidates: Sequence[RecallCandidate], cache: TokenCache | None) -> RecallIndex:
    """The conversation's cached index (a fresh one without a cache), not yet synced."""
    if cache is None or not candidates:
        return RecallIndex()
    # The first message id names the conversation; a different conversation under the same id
    # (ids reused by a test database) is still correct: sync() diffs by id, position and text.
    return cache.memo(key=_index_key(candidates), source="recall-index", compute=RecallIndex)
