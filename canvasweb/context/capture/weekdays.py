"""Weekdays as values: Wed = Wednesday = 周三 = 星期三 = 礼拜三, a value only another weekday corrects.

The patterns take part in `values.find_values` (type "weekday", key "mon" … "sun"); the
guards here keep names ("Black Friday", "Sunday Times") and ordinary words ("sat down",
"the sun") out, and leave a weekday said with a date to the date.
"""

from __future__ import annotations

import re

# Month names and their three-letter forms: a capitalised month after a weekday is a date, not a name.
MONTH_WORDS = frozenset(
    w
    for m in "january february march april may june july august september october november december".split()
    for w in (m, m[:3])
) | {"sept"}
WEEKDAYS_EN = "monday tuesday wednesday thursday friday saturday sunday".split()
WEEKDAYS_ZH = "一二三四五六日"
# A weekday: the full English name in any case, singular or plural ("Tuesday", "fridays"); a
# capitalised abbreviation (Mon, Tue, Tues, Wed, Thu, Thur, Thurs, Fri, Sat, Sun; "sat", "wed",
# "sun" are ordinary words); 周X / 星期X / 礼拜X with X in 一…六, 日 (and 天 after 星期 / 礼拜).
_WD_FULL = r"(?i:(?:mon|tues|wednes|thurs|fri|satur|sun)day)"
_WD_ABBR = r"(?-i:Mon|Tues?|Wed|Thu(?:rs?)?|Fri|Sat|Sun)"
_WD_EN = rf"(?:{_WD_FULL}|{_WD_ABBR})"
_WD_ZH = r"(?:周[一二三四五六日]|(?:星期|礼拜)[一二三四五六日天])"
# A weekday said with a date is part of the date phrase, not a value of its own: after a Chinese
# date ("3月4日周三", "3月4日（星期三）") and in brackets after an English one ("March 4 (Wed)") it is
# inside the date's span; before an English date ("Wednesday, March 4", "Wed 4 March") the date's
# span starts at the month or day as it always did (fact capture reads values from there) and the
# weekday is skipped (WEEKDAY_BEFORE_DATE_RE; value_mentions/ widens the mention over it).
# A weekday spelled any of those ways, for the words around a value (value_mentions/words.py).
WEEKDAY_WORD_RE = re.compile(rf"{_WD_FULL}s?|\b{_WD_ABBR}\b|{_WD_ZH}")
WEEKDAY_BEFORE_DATE_RE = re.compile(rf"(?<![A-Za-z]){_WD_EN}\.?,?\s+(?:the\s+)?$")
WD_AFTER_DATE_EN = rf"(?:\s*\({_WD_EN}\.?\))?"
WD_AFTER_DATE_ZH = rf"(?:\s*[（(]{_WD_ZH}[)）]|\s*{_WD_ZH})?"

WEEKDAY_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    # "Tuesdays", "Wed", "周三", "星期天"; 下周三 / 这个星期五 / next Friday are relative dates (values.py).
    (
        "weekday",
        re.compile(rf"(?<![A-Za-z])(?:(?P<wd>{_WD_FULL})s?|(?P<wda>{_WD_ABBR}))(?![A-Za-z])"),
    ),
    # not 周末 (weekend), 一周三次 / 周五天 (times a week, days a week), 两周, 老周 (a surname)
    (
        "weekday",
        re.compile(
            r"(?<![\d〇一二两三四五六七八九十几老小])(?:周|星期|礼拜)(?P<wdz>[一二三四五六日]|(?<=[期拜])天)(?![次回遍趟天个点])"
        ),
    ),
]


_WEEKDAY_KEYS = tuple(d[:3] for d in WEEKDAYS_EN)  # "wed": Wed = Wednesday = 周三 = 星期三 = 礼拜三
_WEEKDAY_INDEX = {k: i for i, k in enumerate(_WEEKDAY_KEYS)}
# A capitalised word before a weekday that makes it part of a name: "Black Friday", "Ash Wednesday".
_WD_NAME_BEFORE = frozenset(
    "black good easter ash cyber palm holy maundy super bloody giving shrove whit low mothering man girl "
    "pancake".split()
)
_WD_FOLLOWERS_OK = frozenset(WEEKDAYS_EN) | MONTH_WORDS | {"i"}
_SENTENCE_START_RE = re.compile(r"(?:^|[.!?。！？\n])[\s\"'“‘(*-]*$")


def weekday_here(text: str, start: int, end: int, *, abbreviated: bool) -> bool:
    """An English weekday name that is a day, not part of a proper name nor an ordinary word:
    not "Sunday Times" or "Sun Microsystems" (a capitalised word after it that is no month,
    weekday or "I"), not "Black Friday", not "the Sun", and an abbreviation at the start of a
    sentence only before punctuation, a digit or the end ("Sat down with…", "Sun is out")."""
    after = text[end : end + 30]
    nxt = re.match(r"(?:'s)? ([A-Z][a-z]+)", after)
    if nxt and nxt.group(1).lower() not in _WD_FOLLOWERS_OK:
        return False
    prev = re.search(r"([A-Za-z]+)\s+$", text[max(0, start - 30) : start])
    if prev and prev.group(1)[0].isupper() and prev.group(1).lower() in _WD_NAME_BEFORE:
        return False
    if abbreviated:
        if prev and prev.group(1).lower() == "the":
            return False
        if re.match(r"-?[a-z]", after) or (
            _SENTENCE_START_RE.search(text, max(0, start - 8), start) and re.match(r"\s+[a-z]", after)
        ):
            return False
    return True


# A day of the month said beside the weekday: "Friday 6th", "Monday the 12th", "周五6号", "6号周五".
_DAY_OF_MONTH_AFTER_RE = re.compile(
    r"\.?,?\s*(?:the\s+)?\d{1,2}(?:st|nd|rd|th)\b|\s*[（(]?\d{1,2}\s*[号日]", re.IGNORECASE
)
_DAY_OF_MONTH_BEFORE_RE = re.compile(
    r"(?:\b(?:the\s+)?\d{1,2}(?:st|nd|rd|th),?|(?<!月)\d{1,2}\s*[号日][（(]?)\s*$", re.IGNORECASE
)


def with_day_of_month(text: str, start: int, end: int) -> bool:
    """The weekday at text[start:end] is said with a day of the month and no month: the phrase is
    a date (one the date patterns do not read), so the weekday is no value of its own; "moved
    from the 4th to Friday 6th" must not make "Friday" a value that any later Friday replaces."""
    return bool(
        _DAY_OF_MONTH_AFTER_RE.match(text, end)
        or _DAY_OF_MONTH_BEFORE_RE.search(text[max(0, start - 12) : start])
    )


def weekday_key(groups: dict[str, str | None]) -> str:
    """The key of a weekday match from WEEKDAY_PATTERNS: "wed" for Wed, wednesdays, 周三, 礼拜三."""
    zh = groups.get("wdz")
    if zh:
        return _WEEKDAY_KEYS[WEEKDAYS_ZH.index("日" if zh == "天" else zh)]
    name = groups.get("wd") or groups.get("wda") or ""
    return _WEEKDAY_KEYS[_WEEKDAY_INDEX[name.lower()[:3]]]
