"""Typed values in English and Chinese text: what kind of value a fact states, and a key to compare by.

A correction may only replace a value of the same kind (a port replaces a
port, a date a date), and "四十万元" must equal "40万元" and "400,000 yuan",
so every value found gets a type and a canonical `key`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .weekdays import (
    WD_AFTER_DATE_EN,
    WD_AFTER_DATE_ZH,
    WEEKDAY_BEFORE_DATE_RE,
    WEEKDAY_PATTERNS,
    weekday_here,
    weekday_key,
    with_day_of_month,
)

_CN_DIGITS = {
    "零": 0,
    "〇": 0,
    "一": 1,
    "二": 2,
    "两": 2,
    "俩": 2,
    "三": 3,
    "四": 4,
    "五": 5,
    "六": 6,
    "七": 7,
    "八": 8,
    "九": 9,
}
_CN_SMALL = {"十": 10, "百": 100, "千": 1000}
_CN_BIG = {"万": 10_000, "亿": 100_000_000}
# What may follow an amount in 万/亿 ("28万了", "四万二就算成功", "3.8万高一点"); a counted noun may not
# ("3万人", "2万步").
_AFTER_WAN = "了的吧啊呢呀哦左上多算就还也都不太以到至和加与或一每出封起便贵划成含高低"
CN_NUM = "零〇一二两俩三四五六七八九十百千万亿"
_CN_NUM_RE = re.compile(rf"[{CN_NUM}]+")


def cn_to_int(text: str) -> int | None:
    """'四十万' -> 400000, '十二' -> 12, '一百零五' -> 105, '二〇二六' -> 2026; None if not a numeral."""
    if not text or any(c not in _CN_DIGITS and c not in _CN_SMALL and c not in _CN_BIG for c in text):
        return None
    if all(c in _CN_DIGITS for c in text) and len(text) > 1:  # digit by digit: 二〇二六
        return int("".join(str(_CN_DIGITS[c]) for c in text))
    total, section, digit = 0, 0, None
    # Spoken short forms: "三万二" is 32,000, "两千五" 2,500, "一百五" 150 (a last digit right after
    # 百/千/万/亿 counts in the next lower unit; "一百零五" keeps its 零 and is 105).
    if len(text) >= 3 and text[-1] in _CN_DIGITS and text[-2] in "百千万亿" and text[-3] in _CN_DIGITS:
        unit = {"百": 100, "千": 1000, "万": 10_000, "亿": 100_000_000}[text[-2]]
        head = cn_to_int(text[:-1])
        return None if head is None else head + _CN_DIGITS[text[-1]] * unit // 10
    for c in text:
        if c in _CN_DIGITS:
            digit = _CN_DIGITS[c]
        elif c in _CN_SMALL:
            section += (1 if digit is None else digit) * _CN_SMALL[c]
            digit = None
        else:
            section += digit or 0
            total += (section or 1) * _CN_BIG[c]
            section, digit = 0, None
    return total + section + (digit or 0)


def arabic_numerals(text: str) -> str:
    """Chinese numerals become digits ("四十万元" -> "40万元", "十五分钟" -> "15分钟") so one set of
    patterns reads both. A lone 一/两/三 not followed by a unit stays (一起, 统一, 周三)."""

    def repl(m: re.Match[str]) -> str:
        run = m.group(0)
        after = text[m.end() : m.end() + 1]
        head = run.rstrip("万亿")
        if not head or (len(run) == 1 and (not after or after not in _UNIT_STARTS)):
            return run
        value = cn_to_int(head)
        return run if value is None else f"{value}{run[len(head) :]}"

    return _CN_NUM_RE.sub(repl, text)


_UNIT_STARTS = "个人名位天周月日号年小分秒点次万亿元块%台条岁倍项"


@dataclass(frozen=True, slots=True)
class TypedValue:
    type: str  # date | time | money | duration | percent | port | region | version | count | size | number
    raw: str
    key: str
    start: int
    end: int


_MONTHS = {
    m: i + 1
    for i, m in enumerate(
        "january february march april may june july august september october november december".split()
    )
}
_MONTHS.update({m[:3]: i for m, i in list(_MONTHS.items())})
_MONTHS["sept"] = 9
_MONTH_RE = r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
_CLOCK_HOURS = {
    w: i + 1 for i, w in enumerate("one two three four five six seven eight nine ten eleven twelve".split())
}
_CLOCK_WORDS = "|".join(_CLOCK_HOURS)
_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    # A phone number is one value, not three numbers: "01632 960 418", "+44 20 7946 0958",
    # "021-6485 2210", "(555) 123-4567"; at least 9 digits in all (the key checks).
    (
        "phone",
        re.compile(
            r"(?<![A-Za-z0-9_.,:/-])(?P<tel>(?:\+\d{1,3}[ -]?)?(?:\(\d{2,5}\)[ -]?|\d{2,5}[ -])\d{3,4}[ -]\d{3,4}|"
            r"0\d{2,3}-\d{7,8})(?![\w.,:/-]*\d)"
        ),
    ),
    ("date", re.compile(r"(?<!\d)(?P<y>\d{4})[-/.](?P<m>\d{1,2})[-/.](?P<d>\d{1,2})(?!\d)")),
    (
        "date",
        re.compile(
            rf"\b(?P<mon>{_MONTH_RE})\.?\s+(?P<d>\d{{1,2}})(?:st|nd|rd|th)?\b(?:,?\s+(?P<y>\d{{4}}))?"
            + WD_AFTER_DATE_EN,
            re.IGNORECASE,
        ),
    ),
    (
        "date",
        re.compile(
            rf"\b(?P<d>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<mon>{_MONTH_RE})\b(?:,?\s+(?P<y>\d{{4}}))?"
            + WD_AFTER_DATE_EN,
            re.IGNORECASE,
        ),
    ),
    (
        "date",
        re.compile(
            r"(?:(?P<y>\d{4})\s*年\s*)?(?P<m>\d{1,2})\s*月\s*(?P<d>\d{1,2})\s*[日号]?" + WD_AFTER_DATE_ZH
        ),
    ),
    (
        "date",
        re.compile(
            r"(?P<rel>(?:下|这|本|上)个?(?:周|星期|礼拜)[一二三四五六日天]|今天|明天|后天|下个?月初?|月底|年底)"
        ),
    ),
    # A day of the month without its month ("改到25号", "so not the 23rd", "on the 17th"): a date whose
    # key names only the day (dom:25); "3号馆", "5号楼", "1号线", "the 2nd floor" are no dates.
    (
        "date",
        re.compile(
            r"(?<![\d月.第])(?P<dom>[12]?\d|3[01])\s*[号日](?![\d馆楼线厅室门车床位台机库仓区栋层场窗口排座桌间])"
        ),
    ),
    # "Monday 3rd", "Tues the 6th", "Thurs 12th": a weekday with its day of the month.
    (
        "date",
        re.compile(
            r"\b(?:mon|tues?|wed(?:nes)?|thu(?:rs?)?|fri|sat(?:ur)?|sun)(?:day)?\.?\s+(?:the\s+)?"
            r"(?P<dom>[12]?\d|3[01])(?:st|nd|rd|th)\b(?!\s+(?:of\s+)?(?:" + _MONTH_RE + r")\b)",
            re.IGNORECASE,
        ),
    ),
    (
        "date",
        re.compile(
            r"(?<=\bthe )(?P<dom>[12]?\d|3[01])(?:st|nd|rd|th)\b(?!\s+(?:floor|round|place|time|century|edition|"
            r"year|week|day|batch|version|draft|row|item|option|party|person|grade|stage|gen\w*|lap|pick|seed|"
            r"anniversary|birthday|largest|biggest|best|most|highest|lowest)\b)",
            re.IGNORECASE,
        ),
    ),
    (
        "date",
        re.compile(
            r"\b(?P<rel>(?:next|this)\s+(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|week|month)|"
            r"last\s+(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)|"
            r"tomorrow|end of (?:the )?(?:month|quarter|year))\b",
            re.IGNORECASE,
        ),
    ),
    *WEEKDAY_PATTERNS,
    (
        "time",
        re.compile(r"(?<![\d:])(?P<h>\d{1,2}):(?P<mi>\d{2})(?:\s*(?P<ap>am|pm))?(?![\d:])", re.IGNORECASE),
    ),
    ("time", re.compile(r"(?<![\d.])(?P<h>\d{1,2})\s*(?P<ap>am|pm)\b", re.IGNORECASE)),
    # British clock times: "7.45pm", "by 8.30", "half eight", "half past 6", "quarter to nine",
    # "9 o'clock". A dotted time without am/pm needs a word that sets a time before it: "8.30" alone
    # may be a price or a version.
    ("time", re.compile(r"(?<![\d.£$€])(?P<h>\d{1,2})\.(?P<mi>[0-5]\d)\s*(?P<ap>am|pm)\b", re.IGNORECASE)),
    (
        "time",
        re.compile(
            r"(?:(?<=\bat )|(?<=\bby )|(?<=\bfrom )|(?<=\buntil )|(?<=\btill )|(?<=\bbefore )|(?<=\bafter )|"
            r"(?<=\baround )|(?<=\bbetween )|(?<=\bfor )|(?<=\bat about )|(?<=\bstarts )|(?<=\bopens )|(?<=\bdoors )|"
            r"(?<=\bkick-off )|(?<=\bkickoff ))(?P<h>[01]?\d|2[0-3])\.(?P<mi>[0-5]\d)(?![\d.]|\s*(?:%|percent|per\b|x\b|[kmg]\b))",
            re.IGNORECASE,
        ),
    ),
    (
        "time",
        re.compile(
            rf"\b(?:(?P<half>half)(?:\s+past)?|(?:a\s+)?(?P<qrel>quarter)\s+(?P<qdir>past|to))\s+(?P<hw>{_CLOCK_WORDS}|1[0-2]|0?[1-9])\b"
            r"(?!\s*(?:hours?|days?|weeks?|months?|years?|minutes?|of\b|percent|%|million|thousand|[kmg]\b|people|pounds|quid))",
            re.IGNORECASE,
        ),
    ),
    (
        "time",
        re.compile(rf"\b(?P<hw>{_CLOCK_WORDS}|1[0-2]|0?[1-9])\s*o['’]clock\b", re.IGNORECASE),
    ),
    (
        "time",
        re.compile(
            r"(?P<ap>上午|下午|晚上|早上|凌晨|中午)?\s*(?P<h>\d{1,2})\s*点(?:(?P<mi>\d{1,2})分?|(?P<half>半)|(?P<q>[一三])刻)?"
        ),
    ),
    # A clock time in Chinese numerals ("六点四十", "八点半", "早上七点", "七点才开门"). 点 also counts
    # points ("两点建议", "快一点"): without a part of the day, a bare hour needs its minutes, 半/刻,
    # or a word that goes with a time right after it.
    (
        "time",
        re.compile(
            r"(?:(?P<ap>上午|下午|晚上|早上|凌晨|中午|傍晚)(?P<hcn>[一二两三四五六七八九十]{1,3})点|"
            r"(?<![一二两三四五六七八九十])(?P<hcnb>[一二两三四五六七八九十]{1,3})点(?=[一二三四五十零半整钟才前后以之到左准开出集见]))"
            r"(?:(?P<q>[一三])刻|(?P<half>半)|(?P<micn>[一二三四五]?十[一二三四五六七八九]?|零[一二三四五六七八九])分?)?"
        ),
    ),
    (
        "money",
        re.compile(
            r"(?P<cur>[$€£¥])\s?(?P<n>\d+(?:[.,]\d+)*)\s*(?P<mul>k|m|million|thousand|万|亿)?\b",
            re.IGNORECASE,
        ),
    ),
    (
        "money",
        re.compile(
            r"(?<![A-Za-z0-9_.])(?P<n>\d+(?:[.,]\d+)*)\s*(?P<mul>k|m|million|thousand)?\s*(?P<cur>usd|dollars?|eur|euros?|rmb|cny|yuan)\b",
            re.IGNORECASE,
        ),
    ),
    (
        "money",
        re.compile(
            r"(?<![A-Za-z0-9_.])(?<!\d,)(?P<n>\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)\s*(?P<mul>万|亿|千)?\s*(?P<cur>元|块|美元|欧元|人民币)"
        ),
    ),
    # "四万", "三万二", "一百五十元", "十二万块": amounts in Chinese numerals (not "一块去", "千万别")
    (
        "money",
        re.compile(
            rf"(?P<cn>[一二两三四五六七八九十][{CN_NUM}]*)\s*(?P<cur>元|块|美元|欧元|人民币)"
            rf"|(?P<cnb>[一二两三四五六七八九十][一二两三四五六七八九十百千]*[万亿][一二两三四五六七八九]?)"
            rf"(?:(?![\u4e00-\u9fff])|(?=[{_AFTER_WAN}]))"
        ),
    ),
    # "40k", "1.2k", "3bn": an amount with a thousand/billion suffix and no currency
    (
        "number",
        re.compile(r"(?<![A-Za-z0-9_.\-:])(?P<n>\d+(?:\.\d+)?)\s?(?P<mul>k|K|bn)(?!\w|\.\d)"),
    ),
    # "28 万", "31 万了", "40 万左右", "按 36.8 万算", "36.8 万一台": a bare 万/亿 amount, not "3 万人"
    # or "2 万步" (a counted noun follows)
    (
        "money",
        re.compile(
            r"(?<![A-Za-z0-9_.])(?P<n>\d+(?:\.\d+)?)\s*(?P<mul>万|亿)"
            rf"(?:(?![\u4e00-\u9fff])|(?=[{_AFTER_WAN}]))"
        ),
    ),
    # "80°C", "-18 ℃", "176 °F", "1240 degrees", "65 degrees Celsius", "设在80度" (not "100度电")
    (
        "temperature",
        re.compile(
            r"(?<![A-Za-z0-9_.])(?P<neg>零下\s*)?(?P<n>[-−]?\d+(?:\.\d+)?)\s*(?:°\s*(?P<u>[CF])?(?![A-Za-z])|(?P<zc>℃|摄氏度)|(?P<zf>℉|华氏度)"
            r"|degrees?(?:\s+(?P<w>celsius|fahrenheit|c|f)\b)?|度(?![电数]))",
            re.IGNORECASE,
        ),
    ),
    ("percent", re.compile(r"(?<![A-Za-z0-9_.])(?P<n>\d+(?:\.\d+)?)\s*(?:%|percent\b)", re.IGNORECASE)),
    ("percent", re.compile(r"百分之\s*(?P<n>\d+(?:\.\d+)?)")),
    (
        "duration",
        re.compile(
            # A one-letter unit only right after the digits ("30s", "15m", "1.5h"); "2.4 m long" is a
            # length, and "m" after a decimal ("2.4m") is metres or millions, not minutes.
            r"(?<![A-Za-z0-9_.])(?<!\d,)(?P<n>\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)(?:\s*(?P<u>milliseconds?|ms|seconds?|secs?|"
            r"minutes?|mins?|hours?|hrs?|days?|weeks?|months?|years?|毫秒|秒钟?|分钟|小时|个?钟头|天|周|个?星期|个月|年)|"
            r"(?<!\.\d)(?<!\.\d\d)(?P<u1>m)|(?P<u2>[shd]))(?![A-Za-z])",
            re.IGNORECASE,
        ),
    ),
    (
        "port",
        re.compile(
            r"(?:\bports?\b|端口(?:号)?)\s*(?:is|=|:|：|是|为|of|to|改成|改为)?\s*(?P<n>\d{2,5})\b",
            re.IGNORECASE,
        ),
    ),
    ("port", re.compile(r"(?<=[A-Za-z0-9\]]):(?P<n>\d{2,5})\b")),
    (
        "region",
        re.compile(
            r"\b(?P<r>(?:us|eu|ap|sa|ca|me|af|cn|il)-(?:north|south|east|west|central|northeast|northwest|southeast|southwest)-\d)\b",
            re.IGNORECASE,
        ),
    ),
    (
        "version",
        # a full stop may end the sentence after it ("pin v78.12.0."), not continue it ("1.2.3.4")
        re.compile(r"(?<![A-Za-z0-9_.])(?P<v>v?\d+\.\d+(?:\.\d+)+|v\d+(?:\.\d+)?)(?!\w|\.\w)", re.IGNORECASE),
    ),
    (
        "count",
        re.compile(
            r"(?<![A-Za-z0-9_.])(?<!\d,)(?P<n>\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?(?=\s*[万千])|\d+)\s*(?P<mul>万|千)?\s*"
            r"(?P<u>people|persons?|members?|engineers?|developers?|seats?|employees?|staff|"
            r"users?|customers?|人|名|位|个人)(?![A-Za-z])",
            re.IGNORECASE,
        ),
    ),
    # "三十人", "两名", "十二位": a head count in Chinese numerals (not the lone "一位老师")
    (
        "count",
        re.compile(rf"(?P<cn>[一二两三四五六七八九十][{CN_NUM}]*)\s*(?P<u>人|名|位)(?!置|于|数)"),
    ),
    (
        "size",
        re.compile(
            r"(?<![A-Za-z0-9_.])(?P<n>\d+(?:\.\d+)?)\s*(?P<u>kb|mb|gb|tb|kib|mib|gib|bytes?|字节|兆)\b",
            re.IGNORECASE,
        ),
    ),
    ("number", re.compile(r"(?<![A-Za-z0-9_.\-:])(?P<n>\d+(?:[.,]\d+)*)(?![\w.]*[A-Za-z])")),
]

_DURATION_SECONDS = {
    "ms": 0.001,
    "millisecond": 0.001,
    "毫秒": 0.001,
    "s": 1,
    "sec": 1,
    "second": 1,
    "秒": 1,
    "秒钟": 1,
    "m": 60,
    "min": 60,
    "minute": 60,
    "分钟": 60,
    "h": 3600,
    "hr": 3600,
    "hour": 3600,
    "小时": 3600,
    "钟头": 3600,
    "个钟头": 3600,
    "d": 86400,
    "day": 86400,
    "天": 86400,
    "week": 604800,
    "周": 604800,
    "星期": 604800,
    "个星期": 604800,
    "month": 2592000,
    "个月": 2592000,
    "year": 31536000,
    "年": 31536000,
}
_MULTIPLIER = {
    "k": 1_000,
    "thousand": 1_000,
    "千": 1_000,
    "m": 1_000_000,
    "million": 1_000_000,
    "万": 10_000,
    "亿": 100_000_000,
    "bn": 1_000_000_000,
}
_CURRENCY = {
    "$": "usd",
    "usd": "usd",
    "dollar": "usd",
    "dollars": "usd",
    "美元": "usd",
    "€": "eur",
    "eur": "eur",
    "euro": "eur",
    "euros": "eur",
    "欧元": "eur",
    "£": "gbp",
    "¥": "cny",
    "rmb": "cny",
    "cny": "cny",
    "yuan": "cny",
    "元": "cny",
    "块": "cny",
    "人民币": "cny",
    "": "cny",
}
COMPATIBLE = {
    "count": {"count", "number"},
    "number": {"number", "count", "port", "percent"},
    "port": {"port", "number"},
    "percent": {"percent", "number"},
}


def compatible(a: str, b: str) -> bool:
    """A value of type `a` can replace one of type `b` (a port a port, a date a date)."""
    return a == b or b in COMPATIBLE.get(a, ())


def _num(text: str) -> float:
    return float(text.replace(",", ""))


def _fmt(x: float) -> str:
    return str(int(x)) if x == int(x) else f"{x:g}"


def _group(g: dict[str, str | None], name: str, missing: type[Exception] = TypeError) -> str:
    """``g[name]`` narrowed to ``str``; an absent group raises ``missing``, the error the caller's
    ``int()`` (TypeError) or ``.lower()``/``_num()`` (AttributeError) would have raised on ``None``."""
    value = g[name]
    if value is None:
        raise missing(f"group {name!r} did not match")
    return value


def _key(kind: str, g: dict[str, str | None]) -> str:
    cn = g.get("cn") or g.get("cnb")
    if cn:  # a Chinese numeral: its digits, then the usual rules
        value = cn_to_int(cn)
        if value is None or (value == 1 and g.get("cur") in ("块", None)):
            raise ValueError(f"not an amount: {cn!r}")  # "一块去", "一位老师"
        g = {**g, "n": str(value), "mul": None}
    if kind == "date" and g.get("dom"):
        day = int(_group(g, "dom"))
        if not 1 <= day <= 31:
            raise ValueError("no day of a month")
        return f"dom:{day:02d}"
    if kind == "date":
        rel = g.get("rel")
        if rel:
            return "rel:" + " ".join(rel.lower().split())
        month = (
            int(_group(g, "m"))
            if g.get("m")
            else _MONTHS.get(
                (g.get("mon") or "").lower()[:4].rstrip("."), _MONTHS.get((g.get("mon") or "").lower()[:3], 0)
            )
        )
        year = f"{g['y']}-" if g.get("y") else ""
        return f"{year}{month:02d}-{int(_group(g, 'd')):02d}"
    if kind == "time" and (g.get("hcn") or g.get("hcnb")):
        hour_cn = cn_to_int(g.get("hcn") or g.get("hcnb") or "")
        minute_cn = cn_to_int(g.get("micn") or "")
        if hour_cn is None or hour_cn > 24 or (g.get("micn") and (minute_cn is None or minute_cn > 59)):
            raise ValueError("not a clock time")
        if g.get("hcnb") and hour_cn == 1 and not (g.get("micn") or g.get("half") or g.get("q")):
            raise ValueError("早一点 / 快一点: a little, not one o'clock")
        g = {**g, "h": str(hour_cn), "mi": str(minute_cn) if g.get("micn") else None}
    if kind == "time" and g.get("hw"):
        word = _group(g, "hw").lower()
        hour = _CLOCK_HOURS.get(word) or int(word)
        minute = 30 if g.get("half") else 0
        if g.get("qrel"):
            minute = 15 if (g.get("qdir") or "").lower() == "past" else 45
            hour = hour if minute == 15 else (hour - 1 or 12)
        return f"{hour:02d}:{minute:02d}"
    if kind == "time":
        hour = int(_group(g, "h"))
        ap = (g.get("ap") or "").lower()
        if ap in ("pm", "下午", "晚上") and hour < 12:
            hour += 12
        minute = int(_group(g, "mi")) if g.get("mi") else 0
        if g.get("half"):  # 7点半 = 07:30, not 07:00
            minute = 30
        elif g.get("q"):  # 一刻 / 三刻 = a quarter / three quarters past
            minute = 15 if g["q"] == "一" else 45
        return f"{hour:02d}:{minute:02d}"
    if kind == "money":
        mul = _MULTIPLIER.get((g.get("mul") or "").lower(), 1)
        return f"{_CURRENCY.get((g.get('cur') or '').lower(), 'cny')}:{_fmt(_num(_group(g, 'n', AttributeError)) * mul)}"
    if kind == "duration":
        unit = (g.get("u") or g.get("u1") or g.get("u2") or "").lower()
        unit = (
            unit
            if unit in _DURATION_SECONDS
            else unit.rstrip("s")
            if unit.rstrip("s") in _DURATION_SECONDS
            else unit[:3]
        )
        return f"s:{_fmt(_num(_group(g, 'n', AttributeError)) * _DURATION_SECONDS.get(unit, 1))}"
    if kind == "temperature":
        unit = (g.get("u") or g.get("w") or "").lower()[:1] or ("f" if g.get("zf") else "c")
        degrees = _num(_group(g, "n", AttributeError).replace("−", "-"))
        return f"{unit}:{_fmt(-abs(degrees) if g.get('neg') else degrees)}"
    if kind == "weekday":
        return weekday_key(g)
    if kind == "phone":
        tel = _group(g, "tel", AttributeError)
        digits = re.sub(r"\D", "", tel)
        # A trunk 0, a country code or an area code in brackets, or the 3-3-4 of North America: not
        # "2024 2025 2026" nor "ports 5432 5433 6379".
        if len(digits) < 9 or not (tel[0] in "0+(" or re.fullmatch(r"\d{3}[ -]\d{3}[ -]\d{4}", tel)):
            raise ValueError("not a phone number")
        return digits
    if kind == "region":
        return _group(g, "r", AttributeError).lower()
    if kind == "version":
        return _group(g, "v", AttributeError).lower().lstrip("v")
    mul = _MULTIPLIER.get((g.get("mul") or "").lower(), 1)
    return _fmt(_num(_group(g, "n", AttributeError)) * mul)


def find_values(text: str) -> list[TypedValue]:
    """Typed values in `text`, left to right, the most specific type winning where spans overlap."""
    found: list[TypedValue] = []
    taken: list[tuple[int, int]] = []
    for kind, pattern in _PATTERNS:  # ordered from specific to generic
        for m in pattern.finditer(text):
            start, end = m.span()
            raw = m.group(0).strip()
            if not raw or any(start < e and s < end for s, e in taken):
                continue
            # The span is the stripped value's: "£780 for" matched "£780 " (the optional multiplier
            # after \s*), and a span one character longer than `raw` could not be rewritten in place.
            lead = len(m.group(0)) - len(m.group(0).lstrip())
            start, end = start + lead, start + lead + len(raw)
            if kind == "port":
                start, end = m.span("n")
                raw = m.group("n")
            if kind == "weekday" and with_day_of_month(text, start, end):
                continue  # "Friday 6th", "周五6号": a date without its month, not a weekday of its own
            if kind == "weekday" and not m.groupdict().get("wdz"):
                if not weekday_here(text, start, end, abbreviated=bool(m.groupdict().get("wda"))):
                    continue
                if any(
                    f.type == "date" and WEEKDAY_BEFORE_DATE_RE.match(text, start, f.start) for f in found
                ):
                    continue  # "Wednesday, March 4": the date phrase's day
            groups = dict(m.groupdict().items())
            try:
                key = _key(kind, groups)
            except (ValueError, TypeError, KeyError):
                continue
            taken.append(m.span())
            found.append(TypedValue(type=kind, raw=raw, key=key, start=start, end=end))
    return sorted(found, key=lambda v: v.start)


def value_type(value: str) -> str:
    """The type of a value on its own ("30 minutes" -> duration, "Kafka" -> name, "eu-west-1" -> region)."""
    values = find_values(arabic_numerals(value))
    if values and values[0].end - values[0].start >= len(value.strip()) * 0.6:
        return values[0].type
    if values and values[0].type == "port":
        return "port"
    return (
        "name"
        if re.fullmatch(r"[A-Za-z][\w.+#\-]*(?:\s+[A-Za-z0-9][\w.+#\-]*){0,3}", value.strip())
        else "text"
    )


def value_key(value: str) -> str:
    """Canonical comparison key of a value ("四十万元" and "400000元" share one)."""
    values = find_values(arabic_numerals(value))
    if values and (values[0].type == "port" or values[0].end - values[0].start >= len(value.strip()) * 0.6):
        kind = "n" if values[0].type in ("port", "number", "count") else values[0].type
        return f"{kind}={values[0].key}"
    return "text=" + " ".join(value.lower().split())


def same_value(a: str, b: str) -> bool:
    return value_key(a) == value_key(b) or " ".join(a.lower().split()) == " ".join(b.lower().split())
