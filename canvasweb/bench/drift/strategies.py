"""The two reference strategies that are not the product's compiler: the naive canvas and BM25 over history.

Product strategies (`full`, `window`, `summary`, `canvas`) are compiled by
`chat.services.compile_for`, the function a chat turn uses, with the product's
defaults; see `run.py`. The references here use no product ranking code.
"""

from __future__ import annotations

import math
import re
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from canvasweb.chat.context_inputs import TOKEN_CACHE, viewport_from
from canvasweb.chat.prompts import SYSTEM_PROMPT
from canvasweb.context.selection import naive_linear_select
from canvasweb.context.tokens import count_tokens, truncate_to_tokens
from canvasweb.context.types import MESSAGE_OVERHEAD_TOKENS, REPLY_PRIMING_TOKENS, NodeData

from .scoring import NAIVE_BLOCK_OPEN

# Product strategies come first, references after, in every table and plot.
PRODUCT_STRATEGIES = ("full", "window", "summary", "canvas", "canvas+capture")
REFERENCE_STRATEGIES = ("naive-canvas", "bm25-history")
STRATEGIES = PRODUCT_STRATEGIES + REFERENCE_STRATEGIES
COMPILER_STRATEGIES = ("full", "window", "summary", "canvas")
NAIVE_K = 15
NAIVE_CANVAS_SHARE = 0.6  # at most this share of what is left after system + question
BM25_K1 = 1.2
BM25_B = 0.75


@dataclass
class Compiled:
    """What a reference strategy sends: messages, total prompt tokens and its own compile time."""

    messages: list[dict]
    total_tokens: int
    compile_ms: float
    layer_tokens: dict


def _cost(text: str) -> int:
    return count_tokens(text, encoding=TOKEN_CACHE.encoding) + MESSAGE_OVERHEAD_TOKENS


def _fixed_cost(question: str) -> int:
    return _cost(SYSTEM_PROMPT) + _cost(question) + REPLY_PRIMING_TOKENS


# --------------------------------------------------------------------------- naive canvas
def naive_canvas_compile(
    *, nodes: Sequence[NodeData], history: Sequence, question: str, viewport: dict, budget: int
) -> Compiled:
    """The articles' naive canvas: nearest 15 by distance / weight, no filtering, no masking, then recent turns."""
    t0 = time.perf_counter()
    picked = naive_linear_select(nodes=list(nodes), viewport=viewport_from(viewport), k=NAIVE_K)
    avail = max(0, budget - _fixed_cost(question))
    block = NAIVE_BLOCK_OPEN + ": the nearest nodes):\n" + "\n".join(f"- {n.content}" for n in picked)
    cap = int(avail * NAIVE_CANVAS_SHARE)
    if _cost(block) > cap:
        block = truncate_to_tokens(
            block, max_tokens=max(0, cap - MESSAGE_OVERHEAD_TOKENS), encoding=TOKEN_CACHE.encoding
        )
    block_cost = _cost(block) if block else 0
    left = avail - block_cost
    window: list = []
    for m in reversed(list(history)):
        c = _cost(m.content)
        if c > left:
            break
        window.append(m)
        left -= c
    window.reverse()
    messages = [{"role": "system", "content": SYSTEM_PROMPT}]
    if block:
        messages.append({"role": "user", "content": block})
    messages += [{"role": "user" if m.role == "tool" else m.role, "content": m.content} for m in window]
    messages.append({"role": "user", "content": question})
    total = sum(_cost(m["content"]) for m in messages) + REPLY_PRIMING_TOKENS
    layers = {
        "system": _cost(SYSTEM_PROMPT),
        "canvas": block_cost,
        "history": sum(_cost(m.content) for m in window),
        "question": _cost(question),
    }
    return Compiled(
        messages=messages,
        total_tokens=total,
        compile_ms=(time.perf_counter() - t0) * 1000,
        layer_tokens=layers,
    )


# --------------------------------------------------------------------------- BM25 over history
_WORD = re.compile(r"[0-9a-z]+")
_CJK_RUN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")


def bm25_terms(text: str) -> list[str]:
    """Lower-case words and digit runs, plus every CJK character and CJK bigram (no stemming, no stopwords)."""
    low = text.lower()
    terms = _WORD.findall(_CJK_RUN.sub(" ", low))
    for run in _CJK_RUN.findall(low):
        terms.extend(run)
        terms.extend(run[i : i + 2] for i in range(len(run) - 1))
    return terms


class HistoryIndex:
    """BM25 (Okapi, k1 1.2, b 0.75) over the turns played so far; each turn is one document, indexed once."""

    def __init__(self) -> None:
        self.turns: list[tuple[str, str]] = []  # (role, content)
        self.lengths: list[int] = []
        self.postings: dict[str, list[tuple[int, int]]] = {}  # term -> [(turn, tf)]
        self.total_length = 0

    def add(self, *, role: str, content: str) -> None:
        doc = len(self.turns)
        counts = Counter(bm25_terms(content))
        self.turns.append((role, content))
        length = sum(counts.values())
        self.lengths.append(length)
        self.total_length += length
        for term, tf in counts.items():
            self.postings.setdefault(term, []).append((doc, tf))

    def rank(self, query: str) -> list[tuple[float, int]]:
        """(score, turn) of every turn sharing a term with the query, best first; ties: the later turn first."""
        n = len(self.turns)
        if not n:
            return []
        avg = self.total_length / n or 1.0
        scores: dict[int, float] = {}
        for term in sorted(set(bm25_terms(query))):
            plist = self.postings.get(term)
            if not plist:
                continue
            idf = math.log(1.0 + (n - len(plist) + 0.5) / (len(plist) + 0.5))
            for doc, tf in plist:
                norm = tf * (BM25_K1 + 1) / (tf + BM25_K1 * (1 - BM25_B + BM25_B * self.lengths[doc] / avg))
                scores[doc] = scores.get(doc, 0.0) + idf * norm
        return sorted(((s, d) for d, s in scores.items()), key=lambda t: (-t[0], -t[1]))


def bm25_history_compile(*, index: HistoryIndex, question: str, budget: int) -> Compiled:
    """Best-scoring past turns that fit the budget (greedy, best first), in conversation order; question last."""
    t0 = time.perf_counter()
    left = max(0, budget - _fixed_cost(question))
    picked: list[int] = []
    for _, doc in index.rank(question):
        c = _cost(index.turns[doc][1])
        if c <= left:
            picked.append(doc)
            left -= c
    picked.sort()
    messages = [{"role": "system", "content": SYSTEM_PROMPT}]
    messages += [{"role": index.turns[d][0], "content": index.turns[d][1]} for d in picked]
    messages.append({"role": "user", "content": question})
    history = sum(_cost(index.turns[d][1]) for d in picked)
    total = _fixed_cost(question) + history
    layers = {"system": _cost(SYSTEM_PROMPT), "history": history, "question": _cost(question)}
    return Compiled(
        messages=messages,
        total_tokens=total,
        compile_ms=(time.perf_counter() - t0) * 1000,
        layer_tokens=layers,
    )
