"""How the text frames a value: named as the replaced one, the object of a change, a share of another quantity.

A mention is *negated* when the text names it as the value being replaced:
"not 4840", "instead of 5433", "from 140 to …", "8443 停用了", "不是 22%",
"99.2 is too loose", "4月9日走不了".
"""

from __future__ import annotations

import re

# Text right before a value that names it as the replaced one.
_OLD_BEFORE_RE = re.compile(
    r"(?:\bnot|\bno longer|\binstead of|\brather than|\bold|\bprevious(?:ly)?|\bformer|\b(?:down|up) from|"
    r"不是|而不是|并非|原来的?|原先的?|之前的?|以前的?|旧的?|不再[按用是要]?)\s*(?:the\s+|是\s*)?[$€£¥]?\s*$",
    re.IGNORECASE,
)
# Text right after a value that names it as the replaced one.
_OLD_AFTER_RE = re.compile(
    # "周二的档期没了", "3号的场地取消了": the slot of that value is gone
    r"^\s*的[\u4e00-\u9fff]{1,3}?(?:没了|没有了|取消了|被占了|黄了)|"
    r"^\s*(?:[A-Za-z%]+\s+|[\u4e00-\u9fff]{1,2}(?=太|也|已|都|不|停|作|走|赶|来|取|错|撤|失|废|过|那))?(?:已经?|都|被|也)?(?:is gone|is getting (?:decommissioned|retired|shut down|turned off)|is being (?:decommissioned|retired)|is deprecated|was gone|is dead|is too\b|was too\b|are too\b|too (?:few|many|low|high|late|early|"
    r"loose|tight|much|little)|is out\b|was used|is no longer|no longer|won'?t work|doesn'?t work|is off|was wrong|"
    r"is wrong|was a mistake|got cancell?ed|is cancell?ed|"
    # "4.2 was the old opening", "the 5433 is our old port", "800元是去年的"
    r"(?:was|is|were|are) (?:the |our |their |an? )?(?:old|previous|earlier|original|outdated|superseded|draft)\b|"
    r"是(?:之前|原来|以前|去年|旧|老)的|"
    r"那个|那个[\u4e00-\u9fff]{0,4}(?:跟|和|不|冲突)|停用|作废|不行|不用了|不对|走不了|赶不上|来不及|太多|太少|太高|太低|"
    r"太保守|太松|太紧|取消|也不行|不够|错了|撤了|失效|废了|过期)",
    re.IGNORECASE,
)

# A change verb whose object is the value: "moved us to 5434", "bumped it up to 12", "改成 7点".
_CHANGED_TO_RE = re.compile(
    r"\b(?:mov|chang|switch|push|bump|rais|lower|increas|reduc|updat|adjust|shift|knock|cut|drop|slash|hik|"
    r"negotiat|haggl)\w*(?:\s+[\w'-]+){0,3}?\s+to\s+(?:the\s+)?[$€£¥]?\s*$"
    r"|\b(?:brought|bring|put|went|gone|go|goes|come|came|comes)\s+(?:it\s+|the\s+\w+\s+)?(?:up|down)\s+to\s+"
    r"(?:the\s+)?[$€£¥]?\s*$"
    r"|(?:改成|改为|改到|调整为|调整到|换成|提高到|降到|延到|推迟到|提前到|变成|更新为|涨到|降为|降至|减到|减至|加到|"
    r"砍到|压到|谈到|调到|调至|增加到|减少到|上调到|上调至|下调到|下调至|涨至|增至)\s*$",
    re.IGNORECASE,
)
# A share or multiple of another quantity: "€7,600, half of the new total", "the deposit is a third
# of the fee: £900", "定金是总价的一半，1.5 万". Such a value belongs to its own subject (the deposit),
# never to the quantity it is a share of.
_SHARE_WORDS = (
    r"(?:half|a third|one third|two thirds|a quarter|one quarter|three quarters|a fifth|a tenth|"
    r"twice|double|triple|\d+(?:\.\d+)?\s*%|\d+ per ?cent)"
)
_SHARE_OF = r"\s+(?:of\s+(?!it\b|that\b|this\b|which\b|them\b)|the\b|our\b|their\b|what\b)"
_CJK_SHARE = r"的(?:一半|三分之[一二]|四分之[一三]|[两二三]倍|[一二三四五六七八九]成)"
_SHARE_AFTER_RE = re.compile(
    r"^\s*(?:then\s*)?[,:(\u2013\u2014-]\s*(?:(?:that's|that is|which is|i\.e\.|so|about|roughly|exactly|just)\s+)?"
    + _SHARE_WORDS
    + _SHARE_OF
    + r"|^\s*[，,]?\s*(?:是|为|占|即|相当于)[^。！？；，,\n]{0,8}"
    + _CJK_SHARE,
    re.IGNORECASE,
)
_SHARE_BEFORE_RE = re.compile(
    r"\b" + _SHARE_WORDS + _SHARE_OF + r"[^.,;!?\n]{0,24}$" + r"|" + _CJK_SHARE + r"[^。！？；\n]{0,6}$",
    re.IGNORECASE,
)


# "was" before a value names it as the old one only when the message goes on to a value of the
# same kind ("it was Wednesday 08:30 and now it's Thursday 15:40"); alone it is a plain statement
# in the past tense ("the bill was £240").
_WAS_BEFORE_RE = re.compile(r"\bwas\s*(?:the\s+)?[$€£¥]?\s*$", re.IGNORECASE)
# "from 140 to 160", "从180万追加到210万" name the old value; alone, "from" states it ("a
# starter from 1962", "从2019年起").
_FROM_BEFORE_RE = re.compile(r"(?:\bfrom|从)\s*(?:the\s+)?[$€£¥]?\s*$", re.IGNORECASE)
_FROM_TO_AFTER_RE = re.compile(r"^[^。！？!?；;\n]{0,40}?(?:\bto\b|→|->|到|成|为)\s*(?:the\s+)?[$€£¥]?\s*\d")
# Between dates or times "from … to …" is a span ("from 9:00 to 17:00", "从9月20日到10月1日") unless a
# word of change (or an arrow) says otherwise; between amounts it is a change ("from £40 to £45").
_SPAN_KINDS = frozenset({"date", "time", "weekday"})
_CHANGE_WORD_RE = re.compile(
    r"\b(?:mov|chang|switch|push|bump|rais|lower|increas|reduc|updat|adjust|shift|cut|drop|slash|hik|jump|"
    r"rose|rise|risen|fell|fall|grew|grow|climb|went|gone|goes|extend|expand|shrank|shrunk|revis)\w*|→|->|"
    r"改|调|涨|降|延|推|提前|换|追加|增|减|砍|压|扩|缩|变|升|上浮|下浮",
    re.IGNORECASE,
)
_CLAUSE_START_RE = re.compile(r"[。！？!?；;，,\n]")


def _named_old(text: str, start: int, end: int, *, replaced_later: bool = True, kind: str = "") -> bool:
    """The value at start:end is named as the replaced one ("not 7442", "800人作废"); with
    `replaced_later`, a value of its kind follows it in the message."""
    before = text[max(0, start - 16) : start]
    return bool(
        _OLD_BEFORE_RE.search(before)
        or (replaced_later and _WAS_BEFORE_RE.search(before))
        or _changed_from(text, start, end, span_kind=kind in _SPAN_KINDS)
        or _OLD_AFTER_RE.match(text[end : end + 24])
    )


def _changed_from(text: str, start: int, end: int, *, span_kind: bool) -> bool:
    """ "raised from 140 to 160", "从180万追加到210万", "moved from 3 May to 5 May": the value a change
    starts from."""
    if not _FROM_BEFORE_RE.search(text[max(0, start - 16) : start]):
        return False
    to = _FROM_TO_AFTER_RE.match(text[end : end + 48])
    if not to:
        return False
    if not span_kind:
        return True
    clause = text[max(0, start - 40) : start]
    cut = [m.end() for m in _CLAUSE_START_RE.finditer(clause)]
    lead = clause[cut[-1] :] if cut else clause
    return bool(_CHANGE_WORD_RE.search(lead) or _CHANGE_WORD_RE.search(to.group(0)))
