"""Corrections that say how far a date moved: "pushed the move a week … Saturday 21 June now",
"推迟两天，改到4月5日". The old date is the new one minus the shift, so the shift names it even
when the correction shares no word with the message that stated it.
"""

from __future__ import annotations

import datetime as dt
import re

from ..capture.values import cn_to_int
from ..value_mentions.words import sentence_spans

_EN_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7}
_UNIT_DAYS = {
    "day": 1,
    "week": 7,
    "fortnight": 14,
    "天": 1,
    "日": 1,
    "周": 7,
    "星期": 7,
    "个星期": 7,
    "礼拜": 7,
}

_EN_SHIFT_RE = re.compile(
    r"\b(?P<verb>push(?:ed|ing)?|mov(?:e|ed|ing)|delay(?:ed|ing)?|postpon(?:e|ed|ing)|slip(?:ped|s)?|"
    r"shift(?:ed)?|bump(?:ed)?|put\s+(?:it\s+)?back|extend(?:ed)?|brought|bring|pull(?:ed)?)\b[^.;!?]{0,40}?\b(?P<n>a|an|one|two|three|four|five|six|seven|\d{1,2})\s+"
    r"(?P<unit>day|week|fortnight)s?\b(?P<dir>\s+(?:earlier|sooner|later|back|forward))?",
    re.IGNORECASE,
)
_ZH_SHIFT_RE = re.compile(
    r"(?P<verb>往后推|往后挪|往前挪|往前提|推迟|延后|延期|提前|提早|推|延|挪)了?"
    r"(?P<n>[一两二三四五六七八九十\d]{1,3})(?P<unit>个星期|星期|礼拜|天|日|周)"
)
_EARLIER_RE = re.compile(r"forward|earlier|sooner|提前|提早|往前", re.IGNORECASE)


def _shift_days(sentence: str) -> int:
    """Signed days a sentence says a date moved by (later > 0), or 0."""
    for rx in (_EN_SHIFT_RE, _ZH_SHIFT_RE):
        m = rx.search(sentence)
        if m is None:
            continue
        raw_n = m.group("n").lower()
        n = _EN_NUMBERS.get(raw_n) or (int(raw_n) if raw_n.isdigit() else cn_to_int(raw_n))
        unit = m.group("unit").lower()
        days = (n or 0) * _UNIT_DAYS.get(unit, 0)
        if not days:
            continue
        if m.group("verb").lower() in ("brought", "bring", "pull", "pulled") and not _EARLIER_RE.search(
            m.group(0)
        ):
            continue  # "brought two days of samples": no move
        return -days if _EARLIER_RE.search(m.group(0)) else days
    return 0


def shift_sentences(text: str) -> tuple[tuple[int, int], ...]:
    """(sentence index as value_mentions numbers them, signed days) for each sentence that says a
    date moved by a stated amount."""
    out = []
    for i, (a, b) in enumerate(sentence_spans(text)):
        days = _shift_days(text[a:b])
        if days:
            out.append((i, days))
    return tuple(out)


def shifted_key(key: str, days: int) -> str | None:
    """A date key ("06-21", "2026-06-21") moved by `days`, in the same form; None for other keys."""
    m = re.fullmatch(r"(?:(\d{4})-)?(\d{2})-(\d{2})", key)
    if m is None:
        return None
    year = int(m.group(1)) if m.group(1) else 2024  # a leap year, so 02-29 stays a date
    try:
        day = dt.date(year, int(m.group(2)), int(m.group(3))) + dt.timedelta(days=days)
    except ValueError:
        return None
    return day.isoformat() if m.group(1) else day.strftime("%m-%d")
