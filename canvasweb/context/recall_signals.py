"""Cheap signals that a past sentence states a fact a question could ask for.

A question about the past ("which flight…", "多少钱") wants a value: a number,
a date or time, an identifier, a proper name. Among turns that match the
question equally well, the one that carries such a value is far more often
the answer than chit-chat about the same subject, so recall ranking gives it
a bounded lift (value_score ∈ [0, 1]). Pure text heuristics, English and
Chinese, no lists of domain words.
"""

from __future__ import annotations

import re

_DIGIT_RE = re.compile(r"\d")
# Identifiers: letters+digits mixed (TP1363, BUG-20931, v3.18), snake_case, @handles, domains.
_CODE_RE = re.compile(
    r"\b(?:[A-Za-z]+[-_]?\d[\w.-]*|\d+[A-Za-z]+\w*|[a-z]+_[a-z0-9_]+|@[\w.]+|[\w-]+\.(?:[a-z]{2,4}))\b"
)
# A capitalised word that does not open the sentence (a name: "Hotel Lumen", "Piranesi").
_NAME_RE = re.compile(r"(?<=[\w,;:] )[A-Z][a-z\u00c0-\u024f]+|(?<=[\w,;:] )[A-Z]{2,}\b")
_CJK_NUMBER_RE = re.compile(
    r"[一二两三四五六七八九十百千万亿]+(?:元|块|万|天|个|号|月|日|点|岁|次|人|年|倍|成)"
)
_CJK_RE = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")
_PRONOUN_I = frozenset({"I", "I'm", "I'll", "I've", "I'd", "OK", "OKAY"})


def value_score(sentence: str) -> float:
    """0..1: how much a sentence looks like it states a value (number, code, name)."""
    if not sentence:
        return 0.0
    score = 0.0
    if _CODE_RE.search(sentence):
        score = 1.0
    elif _DIGIT_RE.search(sentence) or _CJK_NUMBER_RE.search(sentence):
        score = 0.8
    if score < 1.0:
        names = [n for n in _NAME_RE.findall(sentence) if n not in _PRONOUN_I]
        if names:
            score = max(score, 0.6)
    return score


_ASKS_VALUE_RE = re.compile(
    r"^\s*(?:what|which|who|whom|whose|where|when|how (?:much|many|long|old|far|big|often))\b|"
    r"\b(?:what|which|who|where|when|how much|how many)\b.*\?\s*$|"
    r"多少|几[号点天个次岁月把位张件台年周份条种层楼]|哪[一个家条天里儿年位]|什么|谁|何时|多久|多大|多长",
    re.IGNORECASE,
)


def asks_for_value(question: str) -> bool:
    """True when the question wants a specific fact rather than an explanation or an opinion."""
    return bool(question and _ASKS_VALUE_RE.search(question))


# "who …", "whom", "whose", "谁", "哪位": the answer is a person, so a sentence that names one answers it
# and a date or a count next to the same words does not.
_ASKS_PERSON_RE = re.compile(
    r"^\s*(?:who|whom|whose)\b|\bwho(?:'s| is| was| will| does| did)?\b.*\?\s*$|谁|哪位", re.I
)
# A Latin name inside a sentence ("the Wool Hall", "Kevin" in Chinese text); all capitals (HR, PDF) and
# month and day names are no person.
_PERSON_LATIN_RE = re.compile(
    r"(?:(?<=[\w,;:] )|(?<=[\u3400-\u9fff]))[A-Z][a-z\u00c0-\u024f]+|^[A-Z][a-z\u00c0-\u024f]+(?= [A-Z][a-z])"
)
_NOT_PERSON_WORDS = frozenset(
    """I'm I'll I've I'd OK Okay Monday Tuesday Wednesday Thursday Friday Saturday Sunday January February
    March April May June July August September October November December Mon Tue Wed Thu Fri Sat Sun""".split()
)
# A Chinese name: a common surname that is rarely the first character of another word, then one or two
# characters ("张雯", "刘建国"; not "17 张表", where 张 counts sheets), or a familiar form ("阿飞").
_CJK_SURNAMES = "王李赵刘陈杨吴徐孙胡朱郭罗梁宋郑韩唐冯曹袁邓沈彭吕苏卢蒋蔡贾魏薛潘杜汪姜邱廖邹熊孟秦"
_CJK_PERSON_RE = re.compile(
    rf"(?<![\d一二两三四五六七八九十几每多半整这那哪])(?<![\d一二两三四五六七八九十几]\s)"
    rf"(?:[{_CJK_SURNAMES}]|(?<![\u4e00-\u9fff])张)[\u4e00-\u9fff]{{1,2}}"
    rf"|阿(?!姨)[\u4e00-\u9fff]|[老小](?:[{_CJK_SURNAMES}张])"
)


def asks_for_person(question: str) -> bool:
    """True when the question asks who: its answer names a person (or a team, a firm)."""
    return bool(question and _ASKS_PERSON_RE.search(question))


def person_score(sentence: str) -> float:
    """0..1: how much a sentence looks like it names a person; a bare number or date counts little."""
    if not sentence:
        return 0.0
    if _CJK_PERSON_RE.search(sentence):
        return 1.0
    if any(n not in _NOT_PERSON_WORDS for n in _PERSON_LATIN_RE.findall(sentence)):
        return 1.0
    return 0.2 if _DIGIT_RE.search(sentence) or _CJK_NUMBER_RE.search(sentence) else 0.0


# "how many prompts …", "how many of the scanner guns …", "多少人", "几个服", "多少钱": what the answer counts.
_HOW_MANY_RE = re.compile(
    r"\bhow many\s+(?:of\s+(?:the|our|their|those|these)\s+)?([a-z-]+)(?:\s+([a-z-]+))?", re.I
)
_CJK_HOW_MANY_RE = re.compile(r"(?:多少|几)\s*([\u4e00-\u9fff])")
# An amount: with its currency, or a bare 万/亿 amount ("提案费 2.8 万，…"; not "3 万人", "2 万步").
_MONEY_RE = (
    r"(?:[$€£¥]\s?\d|\d[\d,.]*\s*(?:万|千)?\s*(?:元|块|美元|欧元|英镑|dollars?|euros?|pounds?)"
    r"|\d[\d,.]*\s*[万亿](?![\u4e00-\u9fff])|\d[\d,.]*\s*[万亿](?=[了的吧啊呢呀左多]))"
)
_STEM_RE = re.compile(r"(?:ies|es|s)$")
_NOT_NOUNS = frozenset(
    "are is was were do does did have has had will would can could should the our their you they we "
    "there more".split()
)


# Measure words that count the same things: a question's "几台车" is answered by "6辆", "几位" by "12名".
_CJK_MEASURE_FAMILIES = ("台辆部架", "位名人", "次回趟遍", "间套")


def counted_answer(question: str) -> re.Pattern[str] | None:
    """A pattern for a sentence that states the count or sum a "how many / 多少" question asks
    for: a number next to the noun it counts ("1,318 prompts", "342 人"), or an amount of money
    ("多少钱" -> "2850 美元"). None when the question asks for no count."""
    m = _HOW_MANY_RE.search(question or "")
    if m:
        nouns = [
            _STEM_RE.sub("", w.lower())
            for w in m.groups()
            if w and len(w) > 2 and w.lower() not in _NOT_NOUNS
        ]
        if not nouns:
            return None
        noun = "|".join(re.escape(n) for n in nouns)
        return re.compile(rf"\d[\d,.]*\s+(?:[\w-]+\s+)?(?:{noun})\w*", re.I)
    m = _CJK_HOW_MANY_RE.search(question or "")
    if m:
        unit = m.group(1)
        if unit == "钱":
            return re.compile(_MONEY_RE, re.I)
        units = next((f for f in _CJK_MEASURE_FAMILIES if unit in f), unit)
        return re.compile(rf"(?:\d[\d,.]*|[一二两三四五六七八九十百千万]+)\s*(?:万\s*)?[{re.escape(units)}]")
    if re.search(
        r"\bhow much\b.*\b(?:cost|pay|paid|charge|spend|spent|price|budget|fee)"
        r"|\b(?:what|how much)\b.*\b(?:bill|invoice|cost|price|fee|charge|quote|rent|salary|deposit|fare)s?\b"
        r"|(?:花了|价格|费用|租金|报价|工资|押金)(?:是)?(?:多少|几)",
        question or "",
        re.I,
    ):
        return re.compile(_MONEY_RE, re.I)
    return None


# What a question asks for by the shape of its answer, not by its words: "what's the bakery's handle
# on the photo app?" is answered by "@hartmann.bakes", "their email?" by an address. The answer turn
# often shares no word with the question, so these shapes find it among the whole history.
_SHAPE_QUESTIONS: tuple[tuple[re.Pattern[str], re.Pattern[str]], ...] = (
    (
        re.compile(r"\b(?:handle|username|user ?name|insta(?:gram)?|twitter|tiktok)\b|账号|用户名", re.I),
        re.compile(r"(?<![\w.@])@[A-Za-z0-9_][\w.]{1,29}\b"),
    ),
    (
        re.compile(r"\b(?:e-?mail|mail address|inbox address)\b|邮箱|邮件地址", re.I),
        re.compile(r"\b[\w.+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b"),
    ),
    (
        re.compile(
            r"\b(?:website|web ?site|domain|url|web address|homepage|home page)\b|网址|网站|域名|官网", re.I
        ),
        re.compile(
            r"(?<![\w@.])(?:https?://)?(?:[A-Za-z0-9-]+\.)+(?:com|org|net|io|co|de|uk|fr|es|it|nl|eu|cn|jp|app|dev|"
            r"info|shop|store|ch|at|se|dk|no|pl|be|au|ca|us)\b(?![\w.-]*@)"
        ),
    ),
    (
        re.compile(r"\bhow old\b|\bwhat age\b|年龄|几岁|多大了|多大年纪", re.I),
        re.compile(
            r"\b(?:I'm|I am|he's|she's|he is|she is|they're|turn(?:s|ed|ing)?|aged?)\s+\d{1,3}"
            r"(?=\s*(?:$|[,.!;)]|now\b|today\b|years?\b|this\b|next\b|in\b|on\b|and\b))"
            r"|\b\d{1,3}(?:\s+|-)years?(?:\s+|-)old\b|\d{1,3}\s*(?:周)?岁",
            re.I,
        ),
    ),
    (
        re.compile(
            r"\b(?:phone|mobile number|cell number|phone number|number to call|contact (?:number|details))\b|"
            r"\bhow (?:do|can|should) (?:we|i|you) (?:reach|contact|call|get hold of)\b|"
            r"电话|手机号|联系方式|怎么联系|如何联系|联系谁|联系号码",
            re.I,
        ),
        re.compile(r"(?<![\w.])(?!\d{4}-\d\d-\d\d\b)\+?\d(?:[ -]?\d){7,14}(?![\w.])"),  # not 2026-04-01
    ),
)


def answer_shape(question: str) -> re.Pattern[str] | None:
    """The pattern of the answer a question asks for by its shape (an @handle, an email address, a
    web address, an age, a phone number), or None."""
    for asks, shape in _SHAPE_QUESTIONS:
        if question and asks.search(question):
            return shape
    return None
