"""Ranking parts of node selection: the incremental node text index (BM25), question-match
scores (BM25 + bigram share, fused with embeddings), and priority decay by age.

`index` arguments are selection.CanvasIndex instances (not imported here: selection imports us).
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator, Sequence
from datetime import UTC
from typing import TYPE_CHECKING, Protocol, cast

from .lexical import (
    CHAR_PREFIX,
    BM25Index,
    cosine,
    query_terms,
    reciprocal_rank_fusion,
    term_weights,
    tokenize,
)
from .synonyms import expansion
from .types import NodeData

if TYPE_CHECKING:
    from .selection import CanvasIndex

_OK = 0  # selection's status code of a current node


class NodeFactors(Protocol):
    """Per node index a factor (a list, or the lazy _Decay)."""

    def __getitem__(self, i: int, /) -> float: ...


# Question matches kept for ageing, feedback and selection: per match wanted, and at least.
QUESTION_CANDIDATES_PER_MATCH = 25
QUESTION_CANDIDATES_MIN = 500


def hybrid_scores(
    index: CanvasIndex,
    question: str,
    term_share: dict[int, float],
    *,
    decay: NodeFactors | None,
    question_vector: Sequence[float] | None,
    node_vectors: dict[str, Sequence[float]] | None,
    limit: int,
) -> dict[int, float]:
    """Question match per node in 0..1: BM25 over words (jieba for Chinese) and, at CHAR_WEIGHT, the
    question's less common Chinese characters, blended with the character-bigram term share (robust
    to segmentation differences), fused with embedding similarity when vectors are given, and aged
    like the viewport ranking."""
    ti = index.text_index
    q = query_terms(question, chars=True)
    bm25: dict[str, float] = {}
    if q:
        if ti is None:
            raise TypeError("hybrid_scores needs index.text_index (callers check it)")
        synonyms = expansion(question)
        q = _without_common_characters(ti, q)
        weights = {**term_weights(q), **synonyms}
        bm25 = _bm25_bounded(ti, q + list(synonyms), weights)
    top = max(bm25.values(), default=0.0) or 1.0
    out: dict[int, float] = {}
    for node_id, s in bm25.items():
        i = index.pos.get(node_id)
        if i is not None and index.status[i] == _OK and nodes_visible_text(index, i):
            out[i] = 0.7 * s / top
    for i, s in term_share.items():
        out[i] = out.get(i, 0.0) + 0.3 * s
    cap = max(QUESTION_CANDIDATES_PER_MATCH * limit, QUESTION_CANDIDATES_MIN)
    if len(out) > cap:
        # A word common on a large canvas matches thousands of nodes; only the best can be chosen,
        # and ageing (at most halving a score) cannot lift one from far below them.
        out = dict(heapq.nlargest(cap, out.items(), key=lambda kv: (kv[1], -kv[0])))
    if question_vector is not None and node_vectors:
        lexical = sorted(out, key=lambda i: (-out[i], i))[: limit * 3]
        dense_ids = [
            i
            for i, n in enumerate(index.nodes)
            if n.id in node_vectors and index.status[i] == _OK and nodes_visible_text(index, i)
        ]
        dense_ids.sort(key=lambda i: (-cosine(question_vector, node_vectors[index.nodes[i].id]), i))
        fused = reciprocal_rank_fusion([lexical, dense_ids[: limit * 3]])
        best = max(fused.values(), default=0.0) or 1.0
        out = {i: s / best for i, s in fused.items()}
    if decay is not None:
        out = {i: s * (0.5 + 0.5 * decay[i]) for i, s in out.items()}
    return {i: round(s, 6) for i, s in out.items() if s > 0}


# A Chinese character shared with a note bridges paraphrases that share no word ("拍肺的片子" and
# "肺部 CT"); one found in many notes ("放", "开") only adds weak matches that take the canvas
# block's budget from the chat layers, so the question drops it.
CHAR_MAX_DF_SHARE = 0.15


def _without_common_characters(ti: NodeTextIndex, q: list[str]) -> list[str]:
    """The question's terms without the character sub-tokens found in more than CHAR_MAX_DF_SHARE of
    the indexed notes (and more than two)."""
    postings = ti.bm25.postings
    cap = max(2, int(CHAR_MAX_DF_SHARE * len(ti.bm25)))
    return [t for t in q if not t.startswith(CHAR_PREFIX) or len(postings.get(t, ())) <= cap]


def nodes_visible_text(index: CanvasIndex, i: int) -> bool:
    """Secret text is never matched: whether its placeholder shows up would leak the value."""
    return index.nodes[i].sensitivity != "secret"


# Terms in more than this share of a large canvas's indexed nodes (and at least COMMON_MIN nodes) only
# add to nodes that rarer terms found (the rarest term of the question always scores): scoring them
# everywhere made every compile O(canvas) for words like "the" or "的", whose BM25 weight (idf) is
# small; only the best `limit` matches are kept anyway.
COMMON_SHARE = 0.02
COMMON_MIN = 500
COMMON_FROM_NODES = 1000


def _bm25_bounded(
    ti: NodeTextIndex, terms: Sequence[str], weights: dict[str, float] | None = None
) -> dict[str, float]:
    bm25 = ti.bm25
    n = len(bm25)
    if n < COMMON_FROM_NODES:
        return ti.scores(terms, weights)
    cut = max(COMMON_MIN, int(COMMON_SHARE * n))
    postings = bm25.postings
    present = sorted((t for t in dict.fromkeys(terms) if t in postings), key=lambda t: (len(postings[t]), t))
    rare = [t for t in present if len(postings[t]) <= cut] or present[:1]  # the rarest term always counts
    common = present[len(rare) :]
    acc = cast(dict[str, float], bm25.scores(rare, weights=weights)) if rare else {}  # keys are node ids
    if common and acc:
        avg = bm25.total_length / n or 1.0
        k1, b, lengths = bm25.k1, bm25.b, bm25.lengths
        for t in common:
            plist, w = postings[t], bm25.idf(t) * (weights or {}).get(t, 1.0)
            for d in acc:
                tf = plist.get(d)
                if tf:
                    acc[d] += w * tf * (k1 + 1.0) / (tf + k1 * (1.0 - b + b * lengths[d] / avg))
    return acc


class _Decay:
    """Per node a factor in [floor, 1], computed when asked: selection reads it only for the nodes it
    scans near the viewport and the ones a question matched, so a compile stays independent of canvas
    size (a list for every node cost O(canvas) on each compile, since `now` moves every time)."""

    __slots__ = ("_floor", "_half", "_pinned", "_ref", "_ts")

    def __init__(
        self, ts: Sequence[float | None], pinned: Sequence[bool], ref: float, half: float, floor: float
    ) -> None:
        self._ts, self._pinned, self._ref, self._half, self._floor = ts, pinned, ref, half, floor

    def __len__(self) -> int:
        return len(self._ts)

    def __getitem__(self, i: int) -> float:
        ts = self._ts[i]
        if ts is None or self._pinned[i] or ts >= self._ref:
            return 1.0
        factor: float = 0.5 ** ((self._ref - ts) / self._half)  # float ** float is Any in typeshed
        return max(self._floor, factor)

    def __iter__(self) -> Iterator[float]:
        return (self[i] for i in range(len(self._ts)))


def node_decay(index: CanvasIndex, *, now: str | None, half_life_days: float, floor: float) -> _Decay | None:
    """Per node a factor in [floor, 1] that divides its effective distance's weight; None = no aging.

    Pinned nodes never age; nodes without a timestamp count as current.
    """
    if half_life_days <= 0 or not index.nodes:
        return None
    ref = parse_timestamp(now) if now else max((t for t in index.updated_ts if t is not None), default=None)
    if ref is None:
        return None
    ts_list, pinned = index.updated_ts, index.pinned
    # None when no node ages; the scan stops at the first one that does (usually the first node).
    if not any(ts is not None and ts < ref and not pinned[i] and floor < 1.0 for i, ts in enumerate(ts_list)):
        return None
    return _Decay(ts_list, pinned, ref, half_life_days * 86400.0, floor)


def parse_timestamp(value: str | None) -> float | None:
    if not value:
        return None
    from datetime import datetime

    try:
        dt = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=UTC)
    return dt.timestamp()


class NodeTextIndex:
    """BM25 over node texts (content + tags), keyed by node id, kept incrementally.

    Only current (not superseded/archived), non-secret nodes are indexed.
    `add(node)` replaces the node's previous version; `remove(node_id)` drops it.
    """

    def __init__(self) -> None:
        self.bm25 = BM25Index()
        self.versions: dict[str, int] = {}

    def __len__(self) -> int:
        return len(self.bm25)

    def add(self, node: NodeData) -> None:
        if node.superseded_by or node.archived or node.sensitivity == "secret":
            self.remove(node.id)
            return
        if self.versions.get(node.id) == node.version and node.id in self.bm25:
            return
        self.bm25.add(node.id, tokens=tokenize(node.content + " " + " ".join(node.tags), chars=True))
        self.versions[node.id] = node.version

    def add_text(self, node_id: str, text: str) -> None:
        """Index text the caller already filtered (the incremental canvas index: live, non-secret nodes)."""
        self.bm25.add(node_id, tokens=tokenize(text, chars=True))
        self.versions.pop(node_id, None)

    def remove(self, node_id: str) -> None:
        self.bm25.remove(node_id)
        self.versions.pop(node_id, None)

    def fork(self) -> NodeTextIndex:
        other = NodeTextIndex.__new__(NodeTextIndex)
        other.bm25 = self.bm25.fork()
        other.versions = dict(self.versions)
        return other

    def scores(self, terms: Sequence[str], weights: dict[str, float] | None = None) -> dict[str, float]:
        return cast(dict[str, float], self.bm25.scores(terms, weights=weights))
