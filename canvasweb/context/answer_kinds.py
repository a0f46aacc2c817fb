"""What kind of value a question asks for, and whether a note states one.

"What time does our plane take off?" is answered by a note with a time in it, "两台最后谈下来单价多少？"
by one with an amount, "要等多久？" by a duration. When a question shares only a word or two with
its answer, several notes match it about as well; the one that states a value of the asked kind is
far more often the answer than a note about the same subject with no such value. Question matching
lifts those notes by a bounded factor (selection.py). Pure text rules, English and Chinese, no
domain words; the value kinds are those of capture/values.py plus physical measures.
"""

from __future__ import annotations

import re

from .capture.values import find_values

# question pattern -> the value kinds that answer it. A question may ask for several ("when": a
# date, a weekday or a time).
_ASKED: tuple[tuple[re.Pattern[str], frozenset[str]], ...] = (
    (
        re.compile(
            r"\bwhat time\b|\bat what hour\b|\bhow (?:late|early)\b|\buntil when\b|"
            r"几点|什么时间|多晚|多早|几时",
            re.I,
        ),
        frozenset({"time"}),
    ),
    (
        re.compile(
            r"\bwhen\b|\b(?:which|what) (?:day|date|weekday|morning|evening|night|days|mornings|evenings|nights)\b|"
            r"\bwhat's the date\b|\bon what date\b|哪天|哪一天|哪几天|哪个日子|几号|几月几|什么时候|什么日子|日期|星期几|周几|礼拜几",
            re.I,
        ),
        frozenset({"date", "weekday", "time"}),
    ),
    (
        re.compile(
            r"\bhow much\b(?!\s+(?:time|longer|later|earlier|notice))|\b(?:price|prices|cost|costs|rate|fee|fees|"
            r"charge|charges|budget|spend|pay|paid|fare|rent|salary|deposit|bill|invoice|quote|afford)\b|"
            r"多少钱|几块钱|价格|价钱|单价|总价|费用|报价|预算|收多少|花多少|付多少|成交|押金|租金|工资|多少费",
            re.I,
        ),
        frozenset({"money"}),
    ),
    (
        re.compile(
            r"\bhow long\b(?!\s+is\s+the\s+(?:cable|pipe|wall|room|table|board))|\bfor how many (?:days|weeks|months|hours)\b|"
            r"\bhow many (?:days|weeks|months|hours|minutes|years)\b|\blead time\b|\bturnaround\b|"
            r"多久|多长时间|多少天|几天|几周|几个月|几个小时|多少个小时|周期|工期|交期",
            re.I,
        ),
        frozenset({"duration"}),
    ),
    (
        re.compile(
            r"\bpercent(?:age)?\b|\bwhat share\b|\bproportion\b|\bratio\b|百分之|百分比|比例|占比|比重|权重|几成",
            re.I,
        ),
        frozenset({"percent"}),
    ),
    (
        re.compile(
            r"\btemperature\b|\bhow (?:cold|hot|warm|cool)\b|\bdegrees\b|温度|多少度|几度|多冷|多热", re.I
        ),
        frozenset({"temperature"}),
    ),
    (
        re.compile(
            r"\bhow many (?:people|persons|staff|guests|members|seats|users)\b|\bheadcount\b|多少人|几个人|几位|几名",
            re.I,
        ),
        frozenset({"count"}),
    ),
    (
        re.compile(
            r"\bhow (?:big|large|heavy|thick|wide|deep|tall|high|far|powerful|strong)\b|\bwhat size\b|"
            r"\b(?:weight|weigh|thickness|width|depth|height|length|distance|power|capacity|voltage|wattage)\b|"
            r"多大|多重|多厚|多宽|多深|多高|多远|多长|多粗|尺寸|重量|厚度|宽度|深度|高度|长度|距离|功率|容量|电压|规格",
            re.I,
        ),
        frozenset({"measure", "size"}),
    ),
    (re.compile(r"\b(?:which|what) version\b|版本", re.I), frozenset({"version"})),
    (
        re.compile(
            r"\b(?:phone|telephone|mobile|landline|hotline|dial(?:l?ing)?|ring (?:us|them|her|him)|"
            r"call (?:us|them|her|him)|(?:what|which) number)\b|电话|号码|手机|热线|拨打|打给|打哪个",
            re.I,
        ),
        frozenset({"phone"}),
    ),
    (re.compile(r"\b(?:which|what) region\b|哪个区域|哪个可用区", re.I), frozenset({"region"})),
)

# A physical measure (the value kinds of capture/values.py leave them as bare numbers): 22kW, 350毫米,
# 1.2万吨, 200 L.
_MEASURE_RE = re.compile(
    r"\d(?:[\d,.]*\d)?\s*(?:万\s*)?(?:"
    r"(?:k|m|g)?w(?:h)?|v|mah|hp|mm|cm|km|m²|m2|m³|m3|sq\s?m|kg|g|t|tons?|tonnes?|l|ml|litres?|liters?|"
    r"inch(?:es)?|in|ft|feet|metres?|meters?|kn/m²|kpa|mpa|bar|psi|rpm"
    r")(?![A-Za-z])"
    r"|\d(?:[\d,.]*\d)?\s*(?:万\s*)?(?:千瓦|瓦|伏|毫米|厘米|公分|米|公里|千米|平方米|平米|平方|立方米?|方|公斤|千克|克|斤|吨|升|毫升|寸|英寸|英尺|转|马力|匹)",
    re.I,
)
_ANY_NUMBER_RE = re.compile(
    r"\d|[一二两三四五六七八九十百千万]+(?:元|块|万|天|个|号|月|日|点|岁|次|人|年|倍|成|台|套|张|件)"
)


def asked_kinds(question: str) -> frozenset[str]:
    """The value kinds that answer `question` (empty when it asks for none we can tell)."""
    if not question:
        return frozenset()
    out: set[str] = set()
    for pattern, kinds in _ASKED:
        if pattern.search(question):
            out |= kinds
    return frozenset(out)


def stated_kinds(text: str) -> frozenset[str]:
    """The value kinds a note's text states."""
    if not text or not _ANY_NUMBER_RE.search(text):
        return frozenset()
    kinds = {v.type for v in find_values(text)}
    if _MEASURE_RE.search(text):
        kinds.add("measure")
    return frozenset(kinds)
