"""Clause excerpts of a long recalled sentence that does not fit whole.

People pack several facts into one long sentence, especially in Chinese, where a whole paragraph
is often one sentence of comma-separated clauses ("晚上是重点，…，晚上九点四十带队老师挨个房间查一遍，
查完在年级群里报平安，…。") and in long typed messages ("First, the night-time arrangements: the
quiet hours start at 23:00, but …, so we've agreed lights out at 22:30 every night, with …").
When such a sentence is a turn's best hit but does not fit in what the recall layer has left,
quoting nothing loses the answer; the clauses that share a word with the question (and, for a
question that asks for a value, the clause after one that names the subject without the value)
usually carry it in a fraction of the tokens. history_recall quotes them with "…" for the cuts and
gives the sentence back whole when the budget allows later.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from .lexical import CHAR_PREFIX, tokenize
from .recall_signals import value_score

# A sentence of at least this many tokens may be cut to its clauses when it does not fit whole.
LONG_SENTENCE_TOKENS = 40
# The excerpt is used only when it saves at least this share of the sentence.
MIN_SAVING = 0.25
ELLIPSIS = "…"

# Clause boundaries: Chinese commas, semicolons and colons (not 、, which lists items); English ones followed by a space (so
# "£30,000" and "8:30" stay whole).
_CLAUSE_RE = re.compile(r"(?<=[，；：])|(?<=[,;:])(?=\s)")


def split_clauses(sentence: str) -> list[str]:
    return [c for c in _CLAUSE_RE.split(sentence) if c.strip()]


def clause_excerpt(sentence: str, terms: Mapping[str, float], *, wants_value: bool) -> str | None:
    """The clauses of `sentence` that share a word with the question (`terms`: query word ->
    weight), joined with "…" where clauses were left out; None when no clause matches, when the
    sentence has a single clause, or when the question asks for a value and no kept clause (nor
    the one after a kept clause) states one."""
    clauses = split_clauses(sentence)
    if len(clauses) < 2:
        return None
    words = {t: w for t, w in terms.items() if not t.startswith(CHAR_PREFIX)}
    scores = [sum(words.get(t, 0.0) for t in set(tokenize(c))) for c in clauses]
    keep = {i for i, s in enumerate(scores) if s > 0}
    if not keep:
        return None
    if wants_value and not any(value_score(clauses[i]) > 0 for i in keep):
        # The subject is named in one clause and its value given in the next ("the room check is
        # at night, 9:40 by the teachers").
        for i in sorted(keep):
            if i + 1 < len(clauses) and value_score(clauses[i + 1]) > 0:
                keep.add(i + 1)
                break
        else:
            return None  # no value near the question's words: these clauses do not answer it
    if len(keep) == len(clauses):
        return None
    parts: list[str] = []
    prev = -1
    for i in sorted(keep):
        if i != prev + 1:
            parts.append(ELLIPSIS)
        parts.append(clauses[i].strip())
        prev = i
    if prev != len(clauses) - 1:
        parts.append(ELLIPSIS)
    return " ".join(parts)
