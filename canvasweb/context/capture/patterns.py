"""The regular expressions of the deterministic extractor (EN and ZH), by what they catch.

Kept apart from extract.py so the extraction logic stays readable; every name is used there.
"""

from __future__ import annotations

import re

_UNIT_WORDS = (
    r"milliseconds?|ms|seconds?|secs?|s|minutes?|mins?|m|hours?|hrs?|h|days?|d|weeks?|months?|years?|"
    r"kb|mb|gb|tb|%|percent|px|rps|qps|users?|nodes?|tokens?|retries|times|people|persons?|members?|"
    r"engineers?|seats?|employees?|customers?|requests?|items?|pages?|dollars?|usd|rmb|cny|eur|yuan|"
    r"毫秒|秒|分钟|小时|天|周|个月|年|次|个人|个[\u4e00-\u9fff]{1,2}|人|名|位|字节|兆|条|万元|亿元|美元|欧元|元|万|亿|块"
)
_NUM_UNIT_RE = re.compile(
    rf"(?<![A-Za-z0-9_.])(?P<num>\d+(?:[.,]\d+)?)\s*(?P<unit>{_UNIT_WORDS})(?![A-Za-z])", re.IGNORECASE
)

# Corrections
_CHANGE_RE = re.compile(
    r"\b(?:change|set|update|revise|adjust|move|raise|lower|increase|decrease|reduce|bump|cut|push|pull|extend|"
    r"shorten|correct)(?:s|d|ed)?\s+(?P<subj>[^,;:：]+?)\s+(?:from\s+(?P<old>[^,;]+?)\s+)?to\s+(?P<rest>.+)",
    re.IGNORECASE,
)
_MAKE_RE = re.compile(
    r"\b(?:make|makes|made|set|keep)\s+(?P<subj>[^,;:：]+?)\s+(?P<rest>(?:\d|\$|€|¥|£|v\d).+)", re.IGNORECASE
)
_BECOMES_RE = re.compile(
    r"\b(?P<subj>[A-Za-z][\w\-/ ]{1,40}?)\s+(?:becomes|is now|are now|will now be|is actually|"
    r"should be|has to be|needs to be|moved to|moves to|changed to|slipped to)\s+(?P<rest>.+)",
    re.IGNORECASE,
)
_SWITCH_RE = re.compile(
    r"\b(?:switch(?:ed)?|migrat(?:e|ed)|mov(?:e|ed)|bump(?:ed)?|upgrad(?:e|ed))\s+"
    r"(?P<subj>(?:[\w\-]+\s+){0,4}?)to\s+(?P<rest>.+)",
    re.IGNORECASE,
)
_INSTEAD_RE = re.compile(
    r"\b(?:use|using|go with|pick|choose)?\s*(?P<val>[A-Za-z0-9][\w.\-]*(?:\s+\d[\w.]*)?)\s+"
    r"instead(?:\s+of\s+(?P<old>[\w.\- ]+?))?(?=[,.;]|$)",
    re.IGNORECASE,
)
_NOT_BUT_RE = re.compile(r"\bnot\s+(?P<old>[^,;]+?)\s*,?\s+but\s+(?P<rest>.+)", re.IGNORECASE)
_COMMA_NOT_RE = re.compile(
    r"(?P<lead>.*?)(?:\bis|\bit's|\bit is|'s|\bare)\s+(?P<rest>[^,;]+?)\s*,\s*(?:not|rather than)\s+"
    r"(?P<old>[^,;.]+)",
    re.IGNORECASE,
)
_ZH_FROM_TO_RE = re.compile(
    r"(?P<subj>[^，,。；;：:]{1,24}?)从\s*(?P<old>[^，,。；;]+?)\s*(?:改成|改为|改到|调整为|调整到|"
    r"调到|变成|变为|换成|换为|换到|推迟到|延期到|提前到|延长到|缩短到|降到|降至|提高到|涨到|追加到|增加到|增至|"
    r"加到|减少到|减到|减至|压到)\s*(?P<rest>.+)"
)
_ZH_CHANGE_RE = re.compile(
    r"(?P<subj>[^，,。；;：:、]{1,24}?)(?:改成|改为|换成|改用|更改为|调整为|调整到|改到|变成|更新为|"
    r"提高到|提升到|降到|降低到|下调到|上调到|延长到|缩短到|调成|调到|推迟到|延期到|提前到)\s*(?P<rest>.+)"
)
_ZH_NOT_BUT_RE = re.compile(
    r"(?P<lead>[^，,。；;]*?)不是\s*(?P<old>[^，,。；;]+?)\s*[，,]?\s*(?:而是|是)\s*(?P<rest>.+)"
)
# "刚才护工人数说错了，是22名": the subject precedes 说错了, the new value follows.
_ZH_MISSPOKE_RE = re.compile(
    r"(?P<subj>[^，,。；;：:]{1,16}?)(?:说错了|记错了|写错了|搞错了|弄错了)[，,：:]?\s*(?:应该是|是|为|改成|改为)?\s*"
    r"(?P<rest>.+)"
)
# "之前说的800人作废，按950人准备": the value before 作废 is the old one, the next value the new one.
_ZH_VOID_RE = re.compile(
    r"(?P<subj>[^，,。；;：:]{0,16}?)(?:之前|原来|刚才|上次)?(?:说|定|报|写)?的?\s*(?P<old>\d[^，,。；;]{0,8}?)\s*"
    r"(?:作废|不算了?|不算数|取消了?|不对)[，,]?\s*(?:改|就|先|要)?(?:按照|按|是|为|定为|改成|改为)?\s*(?P<rest>.+)"
)
_CORR_PREFIX_RE = re.compile(
    r"^\s*(?:no(?:\s*,)?\s+wait|no\s*,|nope|correction|actually|update|oops|sorry|scratch that|my bad|i meant|wait|更正一下|更正|纠正一下|纠正|修正|"
    r"刚才说错了|我说错了|说错了|我记错了|记错了|不对|抱歉|其实|应该是)\s*[:：,，!！.。]?\s*",
    re.IGNORECASE,
)
_CORR_MARK_RE = re.compile(
    r"\b(?:actually|correction|i meant|scratch that|my mistake|instead)\b|说错了|记错了|更正|纠正|应该是|其实是|"
    r"实际上?是",
    re.IGNORECASE,
)
# Decisions
_GOING_WITH_RE = re.compile(
    r"\b(?:we(?:'re| are|'ll| will)?\s+)?(?:going|go|gone|went|settled|landed)\s+(?:to go\s+)?(?:with|on)\s+"
    r"(?P<val>[A-Za-z0-9][\w.+#\-]*(?:\s+\d[\w.]*)?)(?:\s+for\s+(?:the\s+|our\s+)?(?P<subj>[\w \-/]{2,40}?))?(?=[,.;!]|\s+(?:and|but|because|since|as)\b|$)",
    re.IGNORECASE,
)
_DECIDED_RE = re.compile(
    r"\b(?:we\s+)?(?:decided|chose|picked|agreed|settled)\s+(?:to use|on|to go with|for)?\s*(?P<val>[A-Z0-9][\w.+#\-]*(?:\s+\d[\w.]*)?)"
    r"(?:\s+(?:for|as)\s+(?:the\s+|our\s+)?(?P<subj>[\w \-/]{2,40}?))?(?=[,.;!]|\s+(?:and|but|because|since)\b|$)",
    re.IGNORECASE,
)
_USE_FOR_RE = re.compile(
    r"\b(?:[Uu]ses?|[Uu]sing|[Ll]et's use|[Ww]e(?:'ll| will) use)\s+(?P<val>[A-Z][\w.+#\-]*(?:\s+\d[\w.]*)?)\s+"
    r"(?:for|as)\s+(?:the\s+|our\s+)?(?P<subj>[\w \-/]{2,40}?)(?=[,.;]|\s+(?:not|and|but)\b|$)"
)
_ZH_DECIDED_RE = re.compile(
    r"(?:(?P<subj1>[\u4e00-\u9fff]{2,10}?)(?:这块|方面|部分)?[，,]?\s*)?(?:我们|大家)?(?:最终|最后)?(?:决定|定了|确定|选定|拍板)[了，,：:]?\s*"
    r"(?:就|还是)?(?:用|采用|使用|选|选用|上)\s*(?P<val>[A-Za-z0-9][\w.+#\-]*|[\u4e00-\u9fff]{2,8}?)"
    r"(?:\s*(?:来|作为|做|当)(?P<subj2>[\u4e00-\u9fffA-Za-z ]{2,12}))?(?=[，,。；;！!]|$)"
)
_ZH_USE_RE = re.compile(
    r"(?P<subj>[\u4e00-\u9fff]{2,12}?)(?:统一|就|还是)?(?:用|使用|采用)\s*(?P<val>[A-Za-z][\w.+#\-]*)"
)
# Values
_KV_LINE_RE = re.compile(r"^(?P<key>[^:：=\n]{1,40}?)\s*[:：]\s*(?P<val>[^\n]{1,80})$")
_IS_VALUE_RE = re.compile(
    r"(?:^|\b)(?P<key>[A-Za-z][\w\-/' ]{1,48}?)\s+(?:is|are|will be|stays at|is set to|=|of|"
    r"runs on|runs in|is in|lives in|deploys to|is deployed to|is deployed in|starts at|comes? to|came to|"
    r"works? out (?:at|to)|adds? up to|totals?)\s+"
    r"(?P<rest>.+)",
    re.IGNORECASE,
)
_ZH_IS_VALUE_RE = re.compile(
    r"(?P<key>[\u4e00-\u9fffA-Za-z0-9 ]{1,14}?)\s*(?:是|为|為|定在|定为|定于|设为|设置为|在|：|:)\s*(?P<rest>.+)"
)
_DATE_ACTION_RE = re.compile(
    r"(?P<when>(?:\d{4}年)?\d{1,2}月\d{1,2}[日号]?|(?:下|这|本)?(?:周|星期|礼拜)[一二三四五六日天]|明天|后天|月底|年底)\s*(?:前|之前)?\s*"
    r"(?:正式|要|必须|就)?(?P<act>上线|发布|交付|截止|到期|完成|启动|开会|评审|演示|发版|开工|结项)"
)
_EN_DATE_ACTION_RE = re.compile(
    r"\b(?P<act>launch(?:es|ing)?|ship(?:s|ping)?|release|go(?:es)? live|demo|kick ?off|deliver|freeze|cut ?over|due)\s+"
    r"(?:is\s+|will be\s+)?(?:on|by|at)\s+(?P<rest>.+)",
    re.IGNORECASE,
)
_ZH_COUNT_RE = re.compile(
    r"(?P<key>[\u4e00-\u9fff]{2,8}?)\s*(?:目前统计是|目前是|统计是|共有|一共|总共|目前|共|有|是|为)?\s*"
    r"(?P<val>\d+\s*(?:个人|人|名|位))"
)
_CONFIG_KEYS = (
    r"port|host|timeout|ttl|limit|max[_ ]?\w*|min[_ ]?\w*|version|retries|retry|region|replicas|workers|"
    r"threads|pool[_ ]size|batch[_ ]size|interval|expiry|expiration|quota|budget|headcount"
)
_KW_VALUE_RE = re.compile(
    rf"\b(?P<key>{_CONFIG_KEYS})\b\s*(?:is|=|:|of|to)?\s*(?P<val>\d[\w.:/\-]*)", re.IGNORECASE
)
_ASSIGN_RE = re.compile(r"(?P<key>\b[A-Za-z_][\w.\-]{1,40})\s*(?:=|:=)\s*(?P<val>[^\s,;]+)")
_ZH_KEYS = (
    r"端口|超时|过期时间|有效期|版本|地址|上限|下限|重试次数|并发|线程数|副本数|区域|时区|配额|预算|人数"
)
_ZH_KV_RE = re.compile(
    rf"(?P<key>{_ZH_KEYS})\s*(?:是|为|為|=|:|：|设为|设置为|改成|改为)?\s*(?P<val>[0-9A-Za-z][\w.:/\-]*(?:\s*(?:{_UNIT_WORDS}))?)"
)
_RULE_RE = re.compile(
    r"\b(?:never|don't|do not|must not|mustn't|cannot|can't|should not|shouldn't|avoid|no)\b|"
    r"不要|不能|禁止|别|不得|严禁|切勿|不准|不许",
    re.IGNORECASE,
)
# Not facts
_HYPOTHETICAL_RE = re.compile(
    r"\b(?:what if|suppose|supposing|imagine|hypothetically|in case|if we|if you|if the|if it|"
    r"would it|should we|could we|shall we|do we|wondering)\b|如果|假如|假设|要是|万一|是否|要不要|能不能|可不可以",
    re.IGNORECASE,
)
_HEDGE_RE = re.compile(
    r"\b(?:maybe|perhaps|probably|possibly|might|could be|not sure|i guess|i think|i believe|i feel|tbd|"
    r"roughly|tentatively|considering)\b|可能|也许|或许|大概|说不定|待定|考虑|暂定",
    re.IGNORECASE,
)
_HOLD_RE = re.compile(
    r"\b(?:not (?:yet )?(?:confirmed|final|official|settled)|unconfirmed|until (?:they|we|it'?s|he|she) confirms?|"
    r"(?:don'?t|do not) (?:put|add|change|touch|update) (?:it |this |that |anything )?(?:on |to )?(?:the )?"
    r"(?:canvas|board)|(?:leave|keep) (?:it |this )?(?:off )?the (?:canvas|board)(?: as is| alone)?|"
    r"(?:don'?t|do not) (?:card|pin|note|write|put|add) (?:it|this|that|them)(?: down| up| in)? yet|"
    r"(?:leave|keep) (?:it|this|that|them) in (?:the )?chat)\b|"
    r"画布(?:上)?先?(?:别|不要|不)动|先别(?:动|放|上)|先不(?:放|上|动)|(?:还|尚)?没(?:有)?(?:确认|定下来|正式)|未确认|"
    r"还没(?:跟|和)[^，。,]{1,8}(?:对|确认)|先(?:在你这|帮我)?记一下",
    re.IGNORECASE,
)
_NOT_A_KEY_RE = re.compile(
    r"^(?:note|fyi|update|correction|actually|question|todo|re|ps|nb|example|e\.g|i\.e|"
    r"reason|why|because|remember|reminder|heads up|important|decision|答|问|注意|备注|更正|补充|"
    r"记住|提醒|重要|决定)$|https?$",
    re.IGNORECASE,
)
