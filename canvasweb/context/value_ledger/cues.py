"""The words that say "this changed": correction cues, and the hedges that make a reply advice.

Shared by the events (which sentences carry a cue) and the scoring (cue words name no subject).
"""

from __future__ import annotations

import re

from ..sentences import CORRECTION_RE

_CUE_RE = re.compile(
    r"\b(?:now|no longer|final(?:ly)?|instead|changed?|moved?|switch(?:ed)?|push(?:ed)?|revised|updated?|new|"
    r"turns out|after all|anymore|any more|scratch|correct(?:ion)?|actually|can'?t|cannot|couldn'?t|won'?t|unavailable|"
    # a speaker taking back what was just said, or a value that went up or down
    r"wait|hang on|hold on|sorry|wrong|mistake|misread|typo|make (?:it|that)|(?:down|up) to|"
    r"rais(?:e|ed|ing)|lower(?:ed)?|drop(?:s|ped|ping)?\s+(?:to|by)|dropped|bump(?:ed)?|settled?|going with|in the end|"
    r"cut|slash(?:ed)?|reduc(?:e|ed)|increas(?:e|ed)|trimm?(?:ed)?|slipp(?:ed)?|slips?|delay(?:ed)?|"
    r"postpon(?:e|ed)|brought forward|veto(?:ed)?|replac(?:e|ed)|went (?:up|down)|goes (?:up|down)|"
    # an instruction that sets a value, or says from when it holds
    r"set\s+(?:[\w'-]+\s+){0,5}?to|from now on|going forward|"
    # taking back an earlier figure without repeating it
    r"not what (?:I|we|you) (?:told|said|wrote|gave)|the (?:real|actual|correct|right) (?:[\w'-]+\s+){1,3}?(?:is|are)(?=\s+(?:about\s+)?[$€£¥]?\d))\b"
    # 之前 takes a value back when it names what was said ("之前说的 3.2 万作废", "之前那个报价"); "十点
    # 开门之前" is only "before ten"
    r"|不能|没法|不了|最终|定了|之前(?=说|讲|定|报|给|提|写|那|的|是|算)|刚才|又|正式|换了|更新|变了|改|延|推迟|提前|调整|其实|现在|重新|最后|"
    # 以…为准, 不再, 最新, 说错/记错, 追加/涨到/降到, 按…来/准备/算: 说法不同, 都是改口
    r"以.{1,16}?为准|不再|最新|错|不对|作废|追加|涨|降|增加到|减少到|按.{1,12}?(?:来|准备|算|执行)|"
    r"砍|挪|换成|换到|只能|缩减|减到|提高到|延期|取消|推到|推后|往后推|往前提|"
    # a raise or a cut to a figure: "要做到600份", "扩到40人", "压到15天"
    r"(?:做|加|提|扩|增|升|压|缩)到(?=\s*[\d一二三四五六七八九十两百千万])",
    re.IGNORECASE,
)

# A change of a value that was changed before: "they have to move me again", "又推到周五", "再改一次".
AGAIN_RE = re.compile(
    r"\bagain\b|\bonce more\b|(?:又|再)(?:次|一次)?(?:要|得|被)?(?:改|推|挪|换|延|调|变|提前)", re.IGNORECASE
)

# Advice, conditions and questions: a reply that says them reports no change. A proposal is no
# decision, however it is phrased: "I'd move it to Thursday", "let's push it", "we'd better",
# "probably 19 June", "不如挪到周四", "倾向于改到周五", "改到周五吧".
_HEDGE_RE = re.compile(
    r"\b(?:could|would|should|might|maybe|perhaps|suggest(?:s|ed|ion)?|recommend(?:s|ed|ation)?|if|unless|"
    r"how about|what about|why not|options?|consider|propos(?:e|ed|al)|prefer(?:ably)?|probably|ideally|"
    r"let'?s|shall|want me to|do you want|worth|tempt(?:ed|ing)|i think)\b|\b\w+['’]d\b"
    r"|[?？]|建议|可以|如果|要不|或者|考虑|是否|吗|不如|或许|也许|可能|不妨|倾向|推荐|提议|觉得|最好|"
    r"要是|假如|的话|(?<!好)吧",
    re.IGNORECASE,
)


def _is_cue_word(w: str) -> bool:
    return bool(_CUE_RE.fullmatch(w) or CORRECTION_RE.fullmatch(w))


class _CueWords:
    """`w in _CUE_WORDS`: a subject word that is a correction cue on its own or says only when, memoized."""

    def __init__(self) -> None:
        self._seen: dict[str, bool] = {}

    def __contains__(self, w: object) -> bool:
        if not isinstance(w, str):
            return False
        got = self._seen.get(w)
        if got is None:
            got = self._seen[w] = _is_cue_word(w) or w in _CUE_STEMS or w in _WHEN_WORDS
        return got


# Stems of cue words as the tokenizer leaves them ("update" -> "updat", "moved" -> "mov").
_CUE_STEMS = frozenset(
    "updat now new actually final finally instead chang mov switch correct correction scratch turn wrong "
    "wait sorry still again revis latest "
    # words that say a value did not change ("service charge stays £90") name no subject either
    "stay remain unchang 不变 照旧 仍然 依旧 没变 维持".split()
)
# Words that say which year or round a value belongs to, not what it is ("去年那个数都快做到了，今年
# 定了6.5万" names no subject that last year's 3.8万 shares).
_WHEN_WORDS = frozenset("去年 今年 明年 前年 往年 上次 这次 上回 这回 下次 last year this".split())
_CUE_WORDS = _CueWords()

# Words that judge a value instead of naming what it is for ("4 May is tight", "5433 works",
# "5月9日太赶了"), as the mentions' subject words hold them (English stems, jieba words).
APPRAISAL_WORDS = frozenset(
    "tight rush feel work sound look seem lat early soon risky doabl possibl impossibl ambitiou "
    "aggressiv realistic tough hard easy optimistic perfect better wors awkward bad best worst "
    "enough plenty littl expensiv cheap pricey steep "
    "太赶 太紧 有点 不及 来不及 问题 够呛 太早 太晚 合适 不错 太贵 便宜 挺贵 不够".split()
)
