"""Query expansion with everyday synonyms, so a question asked in other words still meets the turn.

People ask "which font do the headings use?" about "titles set in Garamond", or "牙医" about "看牙".
BM25 only sees shared words; these groups add the other words of a group to the question at
SYNONYM_WEIGHT (below a word the question really uses). A group is general vocabulary, English
or Chinese, never a phrase from one conversation; a phrase of several words fires only when the
question holds all of them ("web address" → domain, not every "address").
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

from .lexical import CHAR_PREFIX, query_terms, tokenize
from .text import stem

SYNONYM_WEIGHT = 0.5

# The groups, one a line (" / " between phrases): see the file's header.
_GROUPS_FILE = Path(__file__).with_name("synonym_groups.txt")


def _is_cjk(text: str) -> bool:
    return any("\u3400" <= c <= "\u9fff" for c in text)


@dataclass(frozen=True)
class _Phrase:
    text: str  # a Chinese phrase fires when the question contains it (segmentation varies)
    tokens: tuple[str, ...]  # any other when the question has all its tokens
    cjk: bool


def _phrase(text: str) -> _Phrase:
    tokens = tuple(t for t in tokenize(text) if not t.startswith(CHAR_PREFIX))
    return _Phrase(text, tokens, _is_cjk(text))


def _parse(lines: str) -> list[list[_Phrase]]:
    """Groups of two or more phrases. A Chinese phrase of function words only (什么时候) still
    fires, adding nothing itself; another phrase without a word could never fire and is dropped."""
    out = []
    for line in lines.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        phrases = [_phrase(p.strip()) for p in line.split(" / ") if p.strip()]
        phrases = [p for p in phrases if p.tokens or (p.cjk and p.text)]
        if len(phrases) > 1:
            out.append(phrases)
    return out


@functools.cache
def _groups() -> tuple[list[list[_Phrase]], list[list[_Phrase]]]:
    """(groups with a phrase that fires on words, groups with a Chinese phrase), loaded once.
    A group of both kinds (VLAN / 网段) is in both lists."""
    groups = _parse(_GROUPS_FILE.read_text(encoding="utf-8"))
    by_words = [g for g in groups if any(not p.cjk for p in g)]
    by_text = [g for g in groups if any(p.cjk for p in g)]
    return by_words, by_text


@functools.lru_cache(maxsize=64)  # one compile asks twice (nodes, then turns) for the same question
def expansion(question: str) -> dict[str, float]:
    """Words to add to the question's own terms, with their weights (never one of its own). The dict
    is cached and shared: read it, do not change it."""
    # The question's own words, "how tall" included ("tall" fires height, and is not added again).
    have = set(query_terms(question)) | set(tokenize(question))
    by_words, by_text = _groups()
    fired = [g for g in by_words if any(not p.cjk and have.issuperset(p.tokens) for p in g)]
    if _is_cjk(question):
        seen = {id(g) for g in fired}
        fired += [g for g in by_text if id(g) not in seen and any(p.cjk and p.text in question for p in g)]
    extra: dict[str, float] = {}
    for group in fired:
        for phrase in group:
            for token in phrase.tokens:
                if token not in have:
                    extra[token] = SYNONYM_WEIGHT
    return extra


@functools.cache
def _noun_families() -> dict[str, str]:
    """Each one-word English phrase of a group, stemmed, -> the group's first one-word phrase: "actors",
    "performers" and "cast" count the same people. A word of several groups keeps its first."""
    out: dict[str, str] = {}
    for group in _parse(_GROUPS_FILE.read_text(encoding="utf-8")):
        words = [p.text.lower() for p in group if not p.cjk and " " not in p.text and "-" not in p.text]
        if len(words) < 2:
            continue
        head = stem(words[0])
        for w in words:
            out.setdefault(stem(w), head)
    return out


def noun_family(noun: str) -> str:
    """The word that stands for `noun` (an English stem) and its everyday synonyms, or `noun` itself."""
    return _noun_families().get(noun, noun)
