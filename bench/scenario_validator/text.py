"""Text and value helpers: token estimate, question keywords, substring match, number and timestamp parsing."""

from __future__ import annotations

import math
import re
from datetime import datetime

STOPWORDS = set(
    """the and for are but not you all any can had her was one our out has have
    what when where which who whom why how does did this that these those with
    from into onto over under than then them they their there here been being
    about after again also just only very more most some such own same should
    would could will shall may might must let lets use used using now new old
    its it's we're were your yours ours his she him get got make made need like
    much many each other per via still yet ever never once both either neither
    again what's whats tell told say said know think keep kept go going""".split()
)

CJK = re.compile(r"[\u3400-\u9fff]")
CJK_RUN = re.compile(r"[\u3400-\u9fff]+")
WORD = re.compile(r"[a-z0-9][a-z0-9_.\-]*[a-z0-9]|[a-z0-9]")


def est_tokens(text: str) -> int:
    """Rough token estimate: one per CJK character, one per four other characters."""
    cjk = len(CJK.findall(text))
    return int(cjk + (len(text) - cjk) / 4)


def keywords(text: str) -> set[str]:
    """Keywords for question matching: English words (3+ chars, no stopwords) and Chinese bigrams."""
    low = text.lower()
    out = set()
    for w in WORD.findall(low):
        if len(w) >= 3 and w not in STOPWORDS and not w.isdigit():
            out.add(w[:-1] if w.endswith("s") and len(w) > 4 else w)
    for run in CJK_RUN.findall(text):
        if len(run) == 1:
            continue
        out.update(run[i : i + 2] for i in range(len(run) - 1))
    return out


def parse_at(v):
    """A turn's optional "at" as an aware datetime (naive means UTC), or None if it is not ISO-8601."""
    if not isinstance(v, str) or not v:
        return None
    try:
        t = datetime.fromisoformat(v.replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        return None
    return t if t.tzinfo else t.replace(tzinfo=__import__("datetime").timezone.utc)


def is_num(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def contains(haystack: str, needle: str) -> bool:
    return needle.lower() in haystack.lower()
