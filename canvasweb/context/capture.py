"""Suggest canvas facts from a user message (the UI offers them; nothing is written here).

Captured, per sentence:
  * config values: "key = value", "key: value", "port 5433", "端口 5433", "端口是 5433";
  * numbers with units: "expire after 2 hours", "timeout 30s", "过期时间 2 小时";
  * rules: "never ...", "don't ...", "不要 ...", "禁止 ...";
  * corrections: "change X to Y", "X 改成 Y", "use Y instead", "switched to Y", "Correction: ...";
  * tool choices: "use Memcached for the cache layer", "缓存层统一用 Redis".
`subject` is a normalized key (what the fact is about) and `value` what it
says, so `find_superseded_candidates` can spot an existing node with the same
subject and a different value: the node a new fact should supersede.

`sensitivity` is what the user said about who may see it ("this is internal",
"内部信息，查看者不能看", "机密"): the strictest marker anywhere in the message
applies to every fact in it, since people put the warning before or after the
fact, or in the next sentence. Negated markers ("not confidential", "可以公开")
do not count. Being too strict costs a click; too lax shows the fact to viewers.
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from .redaction import mask_credentials
from .text import extract_terms, split_sentences
from .types import NodeData


@dataclass(frozen=True, kw_only=True, slots=True)
class SuggestedFact:
    content: str
    kind: str  # config | number | rule | correction | decision
    subject: str  # sorted keywords of what the fact is about ("" if unknown)
    value: str | None
    reason: str
    previous_value: str | None = None  # "change X from A to B", "不是 A 而是 B", "B instead of A"
    sensitivity: str = "public"  # public | internal | secret, from markers in the message


_UNITS = (
    r"milliseconds?|ms|seconds?|secs?|s|minutes?|mins?|m|hours?|hrs?|h|days?|d|weeks?|months?|years?|"
    r"kb|mb|gb|tb|kib|mib|gib|bytes?|%|percent|px|rps|rpm|qps|req/s|users?|nodes?|tokens?|retries|times|"
    r"people|persons?|members?|seats?|employees?|customers?|requests?|recipes?|items?|pages?|"
    r"dollars?|usd|rmb|cny|eur|yuan|"
    r"毫秒|秒|分钟|小时|天|周|个月|月|年|次|个|人|字节|兆|条|万元|亿元|美元|欧元|元|万|亿|块"
)
_NUM_UNIT_RE = re.compile(rf"(?<![A-Za-z0-9_.])(?P<num>\d+(?:[.,]\d+)?)\s*(?P<unit>{_UNITS})(?![A-Za-z])", re.IGNORECASE)
_CONFIG_KEYS = (
    r"port|host|timeout|ttl|limit|max[_ ]?\w*|min[_ ]?\w*|version|retries|retry|region|replicas|workers|"
    r"threads|pool[_ ]size|batch[_ ]size|interval|expiry|expiration|quota|budget"
)
_KW_VALUE_RE = re.compile(
    rf"\b(?P<key>{_CONFIG_KEYS})\b\s*(?:is|=|:|of|to)?\s*(?P<val>\d[\w.:/\-]*)", re.IGNORECASE
)
_ASSIGN_RE = re.compile(r"(?P<key>\b[A-Za-z_][\w.\-]{1,40})\s*(?:=|:=)\s*(?P<val>[^\s,;]+)")
_ZH_KEYS = r"端口|超时|过期时间|有效期|版本|地址|上限|下限|重试次数|并发|线程数|副本数|区域|时区|配额"
_ZH_KV_RE = re.compile(rf"(?P<key>{_ZH_KEYS})\s*(?:是|为|為|=|:|：|设为|设置为|改成|改为)?\s*(?P<val>[0-9A-Za-z][\w.:/\-]*(?:\s*(?:{_UNITS}))?)")
_RULE_RE = re.compile(
    r"\b(?:never|don't|do not|must not|mustn't|cannot|can't|should not|shouldn't|avoid)\b|不要|不能|禁止|别|不得|严禁|切勿",
    re.IGNORECASE,
)
_CHANGE_RE = re.compile(
    r"\b(?:change|set|update|revise|adjust|move|raise|lower|increase|decrease|reduce|bump|cut)[sd]?\s+"
    r"(?:the\s+|our\s+)?(?P<subj>[^,;.:：]+?)\s+(?:from\s+(?P<old>\S+)\s+)?to\s+"
    r"(?P<val>[^\s,;]+(?:\s+(?:{u})\b)?)".format(u=_UNITS),
    re.IGNORECASE,
)
_BECOMES_RE = re.compile(
    r"\b(?P<subj>[A-Za-z][\w\-/ ]{{1,40}}?)\s+(?:becomes|is now|will now be)\s+(?P<val>[^\s,;]+(?:\s+(?:{u})\b)?)".format(u=_UNITS),
    re.IGNORECASE,
)
_SWITCH_RE = re.compile(
    r"\b(?:switch(?:ed)?|migrat(?:e|ed)|mov(?:e|ed))\s+(?:the\s+|our\s+)?(?P<subj>(?:[\w\-]+\s+){0,3}?)to\s+"
    r"(?P<val>[A-Za-z0-9][\w.\-]*)",
    re.IGNORECASE,
)
_INSTEAD_RE = re.compile(r"\buse\s+(?P<val>[A-Za-z0-9][\w.\-]*)\s+instead(?:\s+of\s+(?P<old>[\w.\-]+))?", re.IGNORECASE)
_ZH_CHANGE_RE = re.compile(
    rf"(?P<subj>[^，,。；;：:、]{{1,20}}?)(?:改成|改为|换成|改用|更改为|调整为|调整到|改到|变成|更新为|提高到|提升到|降到|降低到|下调到|上调到|延长到|缩短到|调成)"
    rf"\s*(?P<val>[^，,。；;\s]+(?:\s*(?:{_UNITS}))?)"
)
_ZH_NOT_BUT_RE = re.compile(r"不是\s*(?P<old>[^，,。；;]+?)\s*[，,]?\s*而是\s*(?P<val>[^，,。；;\s]+)")
_USE_FOR_RE = re.compile(r"\b[Uu]se\s+(?P<val>[A-Z][\w.\-]*)\s+for\s+(?:the\s+)?(?P<subj>[\w \-]{2,40}?)(?=[,.;]|\s+(?:not|and|but)\b|$)")
_ZH_USE_RE = re.compile(r"(?P<subj>[\u4e00-\u9fff]{2,12}?)(?:统一)?(?:用|使用|采用)\s*(?P<val>[A-Za-z][\w.\-]*)")
# Who may see it, as people say it. Plain "internal API" or "内部系统" describe a thing, not its
# audience, so "internal" needs a marker word around it.
_NEGATED_MARK_RE = re.compile(
    r"\b(?:not|no longer|isn't|is not|nothing)\s+(?:a\s+|an\s+)?(?:secret|confidential|internal|classified|sensitive)\b|"
    r"\bnot\s+(?:a\s+)?secret\b|\bcan be (?:shared|public)\b|"
    r"不是(?:机密|秘密|内部信息|内部资料|保密)|(?:无需|不用|不需要|不必)保密|可以公开|可公开|公开信息",
    re.IGNORECASE,
)
# Words such as "password" or "secrets" usually appear in rules about them ("never hard-code its
# password", "store secrets in Vault"), so only phrases that classify the statement itself count.
# Credential values are masked anyway (mask_credentials).
_SECRET_MARK_RE = re.compile(
    r"\b(?:top[ -]secret|classified|owners? only|keep (?:it|this|that|them) secret|(?:this|that|it) is (?:a )?secret)\b|"
    r"机密|绝密|只有(?:负责人|所有者|owner)(?:能|可以)看|仅(?:负责人|所有者|owner)可见",
    re.IGNORECASE,
)
_INTERNAL_MARK_RE = re.compile(
    r"\binternal(?:[ -]only| use only| use| information| info| data| figures?| numbers?| codename| code name)\b|"
    r"\b(?:is|are|keep (?:it|this|that|them))\s+internal\b|\bconfidential\b|\bunder NDA\b|"
    r"\b(?:do not|don't|never) (?:share|publish|disclose|tell)\b|\bnot (?:for|to be shared with) (?:viewers|the public|customers|clients|outsiders)\b|"
    r"\bviewers? (?:must not|mustn't|can't|cannot|should not|shouldn't|may not) (?:see|know)\b|\bnot public\b|\bcodename\b|"
    r"内部(?:信息|资料|数据|消息|代号|使用|可见|口径|文件|价格|数字|人员)|仅限?内部|对内(?:公开|使用|可见)|不对外|"
    r"(?:不要|不得|不能|禁止|别)(?:外传|泄露|公开|对外)|"
    # Not bare 保密 / 敏感: "保密期限 3 年" (a contract's term) and "大小写敏感" say nothing about the audience.
    r"(?:对外|注意|需要|要|请|务必)保密|保密(?:信息|资料|数据)|敏感(?:信息|数据|内容)|"
    r"查看者(?:不能|不可以|不要|不应|看不到|无权)|不(?:让|给)查看者|不公开|未公开|代号",
    re.IGNORECASE,
)
_SENSITIVITY_RANK = {"public": 0, "internal": 1, "secret": 2}


def sensitivity_marked(text: str) -> str:
    """The strictest sensitivity `text` asks for: "secret", "internal" or "public"."""
    text = _NEGATED_MARK_RE.sub(" ", text)
    if _SECRET_MARK_RE.search(text):
        return "secret"
    if _INTERNAL_MARK_RE.search(text):
        return "internal"
    return "public"


def stricter(a: str, b: str) -> str:
    return a if _SENSITIVITY_RANK.get(a, 0) >= _SENSITIVITY_RANK.get(b, 0) else b


_CORR_PREFIX_RE = re.compile(r"^\s*(?:correction|actually|update|更正|纠正|修正)\s*[:：,，]?\s*", re.IGNORECASE)


# Verbs and markers that say *that* something changed, not *what* it is about.
_SUBJECT_NOISE = frozenset(
    "chang switch migrat mov instead correction actual pleas set updat now going from to".split()
)
_CLAUSE_RE = re.compile(r"[;,，；、]")
_ZH_CHANGE_WORDS_RE = re.compile(r"改成|改为|换成|改用|更改为|设为|设置为")


def _subject_from(text: str, value: str) -> str:
    """Normalized 'what is this about': keywords of `text` minus those of `value`.

    Subjects are sorted keyword sets, so "the database port" and "database
    listens on port" can be compared by overlap.
    """
    text = _ZH_CHANGE_WORDS_RE.sub(" ", text.replace("_", " "))
    terms = extract_terms(text) - extract_terms(value)
    return " ".join(sorted(t for t in terms if not t.isdigit() and t not in _SUBJECT_NOISE))


def _clause(sentence: str, start: int, end: int) -> str:
    """The clause of `sentence` around a match (so the subject stays local)."""
    left = 0
    for m in _CLAUSE_RE.finditer(sentence, 0, start):
        left = m.end()
    m = _CLAUSE_RE.search(sentence, end)
    right = m.start() if m else len(sentence)
    return sentence[left:right]


_CJK_TAIL_RE = re.compile(r"([\u4e00-\u9fff]{1,4})\s*$")
_WORD_TAIL_RE = re.compile(r"([A-Za-z0-9_\-.]+\s*[\u4e00-\u9fff]{0,2})\s*$")


def _zh_subject_tail(text: str) -> str:
    text = text.strip().removesuffix("把").removesuffix("将")
    m = _CJK_TAIL_RE.search(text)
    if m and not _WORD_TAIL_RE.search(text):
        return m.group(1)
    m2 = _WORD_TAIL_RE.search(text)
    return m2.group(1) if m2 else (m.group(1) if m else text[-4:])


def _clean_value(value: str) -> str:
    return value.strip().rstrip(".,;:!?。，；：！？")


def capture_facts(*, text: str) -> list[SuggestedFact]:
    """Facts worth offering for the canvas from one user message (deterministic order)."""
    facts: list[SuggestedFact] = []
    seen: set[tuple[str, str, str | None]] = set()
    sensitivity = sensitivity_marked(text)  # of the whole message: the warning may sit in another sentence

    def add(content: str, kind: str, subject: str, value: str | None, reason: str, previous: str | None = None) -> None:
        value = _clean_value(value) if value else value
        if not subject and not (kind == "correction" and value):
            return  # about nothing we could match later
        key = (kind, subject, value)
        if key not in seen:
            seen.add(key)
            facts.append(
                SuggestedFact(content=content, kind=kind, subject=subject, value=value, reason=reason,
                              previous_value=_clean_value(previous) if previous else None, sensitivity=sensitivity)
            )

    for raw in split_sentences(text):
        if raw.rstrip().endswith(("?", "？")):
            continue  # "要不要做直播？", "Can we move the port to 5434?": asked, not decided
        sentence = mask_credentials(raw)  # never suggest a credential as a fact value
        core = _CORR_PREFIX_RE.sub("", sentence)
        is_correction = core != sentence
        kind_override = "correction" if is_correction else None

        def local(m: re.Match[str], value: str) -> str:
            return _subject_from(_clause(core, m.start(), m.end()), value)

        for m in _CHANGE_RE.finditer(core):
            add(core, "correction", _subject_from(m.group("subj"), ""), m.group("val"), "change X to Y", m.group("old"))
        for m in _BECOMES_RE.finditer(core):
            add(core, "correction", _subject_from(m.group("subj"), ""), m.group("val"), "X becomes Y")
        for m in _ZH_CHANGE_RE.finditer(core):
            # The subject is the short noun phrase right before 改成 ("账期改成 45 天",
            # "评审决定查询引擎改成 StarRocks" -> 查询引擎): the last <= 4 CJK characters.
            subj = _zh_subject_tail(m.group("subj"))
            add(core, "correction", _subject_from(subj, ""), m.group("val").replace(" ", ""), "改成/改为")
        for m in _ZH_NOT_BUT_RE.finditer(core):
            add(core, "correction", local(m, m.group("val") + " " + m.group("old")), m.group("val"), "不是…而是", m.group("old"))
        for m in _INSTEAD_RE.finditer(core):
            add(core, "correction", local(m, m.group("val") + " " + (m.group("old") or "")), m.group("val"), "instead", m.group("old"))
        for m in _SWITCH_RE.finditer(core):
            subject = _subject_from(m.group("subj"), "") or local(m, m.group("val"))
            add(core, "correction", subject, m.group("val"), "switched to")

        for m in _ASSIGN_RE.finditer(core):
            if "[REDACTED" in m.group("val"):
                continue
            add(core, kind_override or "config", _subject_from(m.group("key"), ""), m.group("val"), "key = value")
        for m in _KW_VALUE_RE.finditer(core):
            add(core, kind_override or "config", local(m, m.group("val")), m.group("val"), "config value")
        for m in _ZH_KV_RE.finditer(core):
            add(core, kind_override or "config", local(m, m.group("val")), m.group("val").replace(" ", ""), "配置值")
        for m in _USE_FOR_RE.finditer(core):
            add(core, kind_override or "decision", _subject_from(m.group("subj"), ""), m.group("val"), "use X for Y")
        for m in _ZH_USE_RE.finditer(core):
            add(core, kind_override or "decision", _subject_from(m.group("subj").removesuffix("统一"), ""), m.group("val"), "用 X")

        if not any(f.content == core for f in facts):
            for m in _NUM_UNIT_RE.finditer(core):
                value = f"{m.group('num')} {m.group('unit')}"
                add(core, kind_override or "number", local(m, value), value, "number with unit")
        if _RULE_RE.search(core) and not any(f.content == core for f in facts):
            add(core, "rule", _subject_from(core, ""), None, "negation rule")
        if is_correction and not any(f.content == core for f in facts):
            add(core, "correction", _subject_from(core, ""), None, "correction marker")
    return facts


def _fact_matches(fact: SuggestedFact, other: SuggestedFact) -> bool:
    """Same subject: equal, or keyword overlap >= 0.6 of the smaller subject."""
    if fact.subject == other.subject:
        return True
    a = set(fact.subject.split())
    b = set(other.subject.split())
    if not a or not b:
        return False
    return len(a & b) / min(len(a), len(b)) >= 0.6


def find_superseded_candidates(*, fact: SuggestedFact, nodes: Sequence[NodeData]) -> list[NodeData]:
    """Live nodes that state the same subject as `fact` with a different value."""
    if fact.value is None:
        return []
    value = fact.value.strip().lower()
    previous = (fact.previous_value or "").strip().lower()
    out: list[NodeData] = []
    for n in nodes:
        if n.superseded_by or n.archived or n.sensitivity == "secret":
            continue
        for other in capture_facts(text=n.content):
            if other.value is None or other.value.strip().lower() == value:
                continue
            if (previous and other.value.strip().lower() == previous) or (fact.subject and _fact_matches(fact, other)):
                out.append(n)
                break
    return sorted(out, key=lambda n: n.id)
