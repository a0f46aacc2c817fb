"""Lexical ranking: word tokens (English + Chinese) and an incremental BM25 index.

Tokens: English words lowercased, stop words removed, a light suffix stemmer
(text.stem); numbers kept whole ("5433", "15"); Chinese segmented into words
by jieba (search mode, so "数据库" also yields "数据"), with Chinese function
words and question words removed. jieba and its dictionary load lazily, once
per process (~1.5 s); if it cannot be imported, Chinese runs fall back to
character bigrams, so the ranker still works, only less precisely.

BM25Index keeps term -> {doc: tf} postings and document lengths and supports
add(doc_id, text) / remove(doc_id), so a cached index can follow committed
canvas changes without a rebuild. Scoring walks only the query terms'
posting lists.
"""

from __future__ import annotations

import logging
import math
import re
import threading
from collections.abc import Hashable, Iterable, Sequence
from types import ModuleType
from typing import TypeVar

from .text import CJK_STOP_CHARS, STOPWORDS, stem

_CJK = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_RUN_RE = re.compile(rf"[{_CJK}]+|[A-Za-z]+(?:['’][A-Za-z]+)?|\d+(?:[.,:]\d+)*[A-Za-z%]*")

# Chinese words that carry no topic: pronouns, question words, particles,
# auxiliaries. Kept small on purpose; idf takes care of the rest.
ZH_STOPWORDS = frozenset(
    """我们 你们 他们 她们 咱们 大家 自己 什么 怎么 怎样 怎么样 哪个 哪些 哪里 哪儿 为什么 多少 几个 是否 是不是
    有没有 能不能 可不可以 可以 一下 一个 这个 那个 这些 那些 这样 那样 这里 那里 就是 还是 但是 而且 因为 所以
    如果 然后 已经 现在 时候 一些 一点 没有 不是 还有 以及 或者 关于 对于 的话 吧 吗 呢 啊 呀 嘛 哦 嗯 哈 了 的
    地 得 着 过 是 在 有 和 与 及 或 也 都 就 还 又 把 被 让 给 我 你 他 她 它 说 要 会 能 想 请 问 下 个 之 其 此
    这 那 么 好 对 吗？""".split()
)
# English words too common in chat to say what a turn is about.
EN_EXTRA_STOPWORDS = frozenset(
    """yes yeah yep no nope hey hi hello oh ah um uh hmm great cool nice good fine right well really know
    think get got go going gonna want like just one thing something anything everything much many
    tell said say says remind us again what's whats plus minus""".split()
)

H = TypeVar("H", bound=Hashable)

_jieba: ModuleType | None = None
_jieba_lock = threading.Lock()
_jieba_failed = False


def _segmenter() -> ModuleType | None:
    """jieba, initialised once; None if unavailable."""
    global _jieba, _jieba_failed
    if _jieba is not None or _jieba_failed:
        return _jieba
    with _jieba_lock:
        if _jieba is None and not _jieba_failed:
            try:
                import jieba

                jieba.setLogLevel(logging.WARNING)
                jieba.initialize()
                _jieba = jieba
            except Exception:  # pragma: no cover - jieba is a pinned dependency
                _jieba_failed = True
    return _jieba


CHAR_PREFIX = "字:"  # single-character sub-tokens of Chinese words (see tokenize(chars=True))
CHAR_WEIGHT = 0.3


def warm_up() -> None:
    """Load the segmenter's dictionary now (servers call this at start, off any request)."""
    _segmenter()


# 星期六, 礼拜六 and 周六 are one day (as Sat and Saturday are, text.stem); 星期天 is 周日.
_ZH_WEEKDAYS = {
    p + d: "周" + ("日" if d in "日天" else d) for p in ("周", "星期", "礼拜") for d in "一二三四五六日天"
}


def _cjk_tokens(run: str, out: list[str], chars: bool = False) -> None:
    if chars:
        out.extend(CHAR_PREFIX + c for c in run if c not in CJK_STOP_CHARS and c not in ZH_STOPWORDS)
    seg = _segmenter()
    if seg is None:
        if len(run) == 1:
            if run not in CJK_STOP_CHARS:
                out.append(run)
            return
        out.extend(
            run[i : i + 2]
            for i in range(len(run) - 1)
            if run[i] not in CJK_STOP_CHARS and run[i + 1] not in CJK_STOP_CHARS
        )
        return
    for w in seg.cut_for_search(run):
        if w in ZH_STOPWORDS or (len(w) == 1 and w in CJK_STOP_CHARS):
            continue
        out.append(_ZH_WEEKDAYS.get(w, w))


def tokenize(text: str, *, chars: bool = False) -> list[str]:
    """Ranking tokens of a text, in order, with repeats (BM25 needs term frequency).

    chars=True adds every Chinese character as a sub-token (prefixed CHAR_PREFIX),
    so "酒水" still meets "白酒" when the words differ; give them CHAR_WEIGHT.
    """
    out: list[str] = []
    if not text:
        return out
    for m in _RUN_RE.finditer(text):
        tok = m.group(0)
        c = tok[0]
        if "\u3400" <= c <= "\u9fff" or "\uf900" <= c <= "\ufaff":
            _cjk_tokens(tok, out, chars)
            continue
        if c.isdigit():
            out.append(tok.lower().rstrip(".,:"))
            continue
        tok = tok.lower().replace("’", "'")
        if "'" in tok:
            tok = tok.split("'", 1)[0]
        if not tok or tok in STOPWORDS or tok in EN_EXTRA_STOPWORDS:
            continue
        out.append(stem(tok))
    return out


# "how far", "how big", "how often", 多远, 多大: the adjective asks for a kind of value (a distance, a
# size, a frequency) and is not what the answer is about: "4.8 m" never says "far", while "as far as
# I know" and "a big renovation" do. The canvas side reads the asked kind (answer_kinds.py). "how
# long" and "how old" stay: "long" and "old" also name the thing asked about ("the long table", "the
# old quote"), and so do the dimensions an answer names ("how thick" -> "350 mm thick", 多厚 -> 厚).
_HOW_DEGREE_RE = re.compile(
    r"\bhow\s+(?:far|big|large|often|early|late|soon|fast|quickly|strong|tight|wet|dry)\b|多远|多大",
    re.IGNORECASE,
)


def query_terms(text: str, *, chars: bool = False) -> list[str]:
    """Distinct tokens of a query, in first-seen order ("how far", "多大" … count as question words)."""
    text = _ZH_DIMENSION_RE.sub(_dimension, _HOW_DEGREE_RE.sub(_how, text))
    return list(dict.fromkeys(tokenize(text, chars=chars)))


def _how(m: re.Match[str]) -> str:
    return "how" if m.group(0)[0] in "Hh" else "，"


# 多厚, 多宽 … ask for a dimension that the answer often names ("350毫米厚", "宽度 2.4 米"); the
# segmenter would glue 多 to the words around it ("做多厚"), so the dimension is set apart.
_ZH_DIMENSION_RE = re.compile(r"多([厚宽深高重粗长])")
_ZH_DIMENSION_NOUN = {
    "厚": "厚度",
    "宽": "宽度",
    "深": "深度",
    "高": "高度",
    "重": "重量",
    "粗": "粗细",
    "长": "长度",
}


def _dimension(m: re.Match[str]) -> str:
    return f"，{m.group(1)} {_ZH_DIMENSION_NOUN[m.group(1)]}，"


def term_weights(terms: Iterable[str]) -> dict[str, float]:
    """Query weights: character sub-tokens count CHAR_WEIGHT, words 1."""
    return {t: CHAR_WEIGHT for t in terms if t.startswith(CHAR_PREFIX)}


POSTING_BYTES = 100
DOC_BYTES = 200


class BM25Index:
    """Okapi BM25 over documents that can be added and removed one at a time."""

    __slots__ = ("_shared_terms", "b", "doc_terms", "k1", "lengths", "postings", "total_length")

    def __init__(self, *, k1: float = 1.2, b: float = 0.75) -> None:
        self.k1 = k1
        self.b = b
        self.postings: dict[str, dict[Hashable, int]] = {}
        self.lengths: dict[Hashable, int] = {}
        self.doc_terms: dict[Hashable, tuple[str, ...]] = {}
        self.total_length = 0
        # Terms whose posting dict is still shared with the index this one was forked from.
        self._shared_terms: set[str] | None = None

    def fork(self) -> BM25Index:
        """A copy to change without touching this one: posting dicts are copied on first write."""
        other = BM25Index.__new__(BM25Index)
        other.k1, other.b = self.k1, self.b
        other.postings = dict(self.postings)
        other.lengths = dict(self.lengths)
        other.doc_terms = dict(self.doc_terms)
        other.total_length = self.total_length
        other._shared_terms = set(self.postings)
        return other

    def _plist_for_write(self, term: str) -> dict[Hashable, int] | None:
        plist = self.postings.get(term)
        if plist is not None and self._shared_terms is not None and term in self._shared_terms:
            plist = self.postings[term] = dict(plist)
            self._shared_terms.discard(term)
        return plist

    def __len__(self) -> int:
        return len(self.lengths)

    def __contains__(self, doc_id: Hashable) -> bool:
        return doc_id in self.lengths

    def estimated_bytes(self) -> int:
        """Heap held, measured with tracemalloc: ~100 bytes per (document, term) posting."""
        return POSTING_BYTES * sum(len(terms) for terms in self.doc_terms.values()) + DOC_BYTES * len(
            self.lengths
        )

    def add(self, doc_id: Hashable, text: str | None = None, *, tokens: Sequence[str] | None = None) -> None:
        """Index a document (replacing an earlier version with the same id)."""
        if doc_id in self.lengths:
            self.remove(doc_id)
        toks = list(tokens) if tokens is not None else tokenize(text or "")
        tf: dict[str, int] = {}
        for t in toks:
            tf[t] = tf.get(t, 0) + 1
        for t, n in tf.items():
            plist = self._plist_for_write(t)
            if plist is None:
                plist = self.postings[t] = {}
            plist[doc_id] = n
        self.lengths[doc_id] = len(toks)
        self.doc_terms[doc_id] = tuple(tf)
        self.total_length += len(toks)

    def remove(self, doc_id: Hashable) -> None:
        length = self.lengths.pop(doc_id, None)
        if length is None:
            return
        self.total_length -= length
        for t in self.doc_terms.pop(doc_id, ()):
            plist = self._plist_for_write(t)
            if plist is not None:
                plist.pop(doc_id, None)
                if not plist:
                    del self.postings[t]

    def idf(self, term: str) -> float:
        n = len(self.lengths)
        df = len(self.postings.get(term, ()))
        if not df:
            return 0.0
        return math.log(1.0 + (n - df + 0.5) / (df + 0.5))

    def scores(
        self, terms: Iterable[str], *, weights: dict[str, float] | None = None
    ) -> dict[Hashable, float]:
        """BM25 score of every document that contains at least one query term."""
        n = len(self.lengths)
        if not n:
            return {}
        avg = self.total_length / n or 1.0
        k1, b = self.k1, self.b
        acc: dict[Hashable, float] = {}
        lengths = self.lengths
        for t in dict.fromkeys(terms):
            plist = self.postings.get(t)
            if not plist:
                continue
            w = self.idf(t) * (weights.get(t, 1.0) if weights else 1.0)
            for d, tf in plist.items():
                norm = tf * (k1 + 1.0) / (tf + k1 * (1.0 - b + b * lengths[d] / avg))
                acc[d] = acc.get(d, 0.0) + w * norm
        return acc

    def max_score(self, terms: Iterable[str]) -> float:
        """An upper bound of any document's score (every term, tf saturated): for normalising to 0..1."""
        return sum(self.idf(t) * (self.k1 + 1.0) for t in dict.fromkeys(terms)) or 1.0


def reciprocal_rank_fusion(rankings: Sequence[Sequence[H]], *, k: float = 60.0) -> dict[H, float]:
    """Fuse several rankings (best first) into one score per item (RRF, Cormack et al. 2009)."""
    fused: dict[H, float] = {}
    for ranking in rankings:
        for rank, item in enumerate(ranking):
            fused[item] = fused.get(item, 0.0) + 1.0 / (k + rank + 1)
    return fused


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    # Vectors come from an upstream model: a short one scores low rather than failing the turn.
    dot = sum(x * y for x, y in zip(a, b, strict=False))
    na = math.sqrt(sum(x * x for x in a))
    nb = math.sqrt(sum(y * y for y in b))
    return dot / (na * nb) if na and nb else 0.0
