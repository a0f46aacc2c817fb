"""Which live node a new fact retires: same subject (in other words too), a value of the same type, a conflict.

A node is retired only for a value conflict: it must state a value of a type
the new one can replace (a port a port, a date a date) that differs from the
new value. Sharing a subject word is never enough (a later message about the
booking app must not retire the pinned goal "launch the booking app by May 30").

Subjects are compared on canonical terms: English stems and single Chinese
characters, with a small table of words that name the same thing ("expiry" /
"expire" / "有效期", "deadline" / "due" / "截止" / "交付"), so "截止日期" meets
"交付日期" and "JWT expiry" meets "JWT tokens expire".
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ..text import CJK_STOP_CHARS, extract_terms
from ..types import NodeData
from .extract import SuggestedFact, capture_facts, clean_label
from .sensitivity import more_sensitive
from .values import arabic_numerals, compatible, find_values, same_value, value_key

_SYNONYMS: dict[str, tuple[str, ...]] = {
    "expir": (
        "expiry",
        "expiration",
        "expires",
        "expire",
        "expired",
        "ttl",
        "lifetime",
        "过期",
        "有效期",
        "失效",
    ),
    "deadline": ("deadline", "due date", "due", "cutoff", "截止", "交付", "交期", "最晚", "期限", "ddl"),
    "budget": ("budget", "预算", "经费", "spend cap"),
    "headcount": ("headcount", "head count", "team size", "人数", "编制", "人手"),
    "port": ("port", "端口"),
    "phone": ("phone", "telephone", "phone number", "tel", "hotline", "电话", "号码", "手机", "热线"),
    "region": ("region", "区域", "地域", "机房"),
    "db": ("database", "db", "postgres", "postgresql", "数据库"),
    "launch": ("launch", "release", "ship", "go live", "go-live", "deploy", "上线", "发布", "发版", "部署"),
    "timeout": ("timeout", "time out", "超时"),
    "version": ("version", "版本"),
    "cost": ("cost", "price", "quote", "spend", "费用", "成本", "价格", "报价", "花费"),
    "meet": ("meeting", "sync", "standup", "会议", "例会", "开会"),
    "bus": ("event bus", "message bus", "message queue", "mq", "broker", "消息队列", "消息总线", "事件总线"),
    "cache": ("cache", "caching", "缓存"),
}
_SYN_RE = [
    (
        canon,
        re.compile(
            "|".join(
                re.escape(w) if not w.isascii() else rf"\b{re.escape(w)}(?:s|es|d|ed|ing)?\b"
                for w in sorted(words, key=len, reverse=True)
            ),
            re.IGNORECASE,
        ),
    )
    for canon, words in _SYNONYMS.items()
]
_CJK_RE = re.compile(r"[\u4e00-\u9fff]")
_GENERIC = frozenset("value number new old current set config setting 值 数".split())


def subject_terms(text: str) -> frozenset[str]:
    """Canonical subject terms of a label or sentence (EN stems, CJK single characters, synonym groups)."""
    out: set[str] = set()
    for canon, pattern in _SYN_RE:
        if pattern.search(text):
            out.add("@" + canon)
            text = pattern.sub(" ", text)
    out |= {t for t in extract_terms(_CJK_RE.sub(" ", text)) if not t.isdigit()}
    out |= {c for c in _CJK_RE.findall(text) if c not in CJK_STOP_CHARS}
    return frozenset(t for t in out if t not in _GENERIC)


def coverage(a: frozenset[str], b: frozenset[str]) -> float:
    """Share of `a`'s terms found in `b` (0 when `a` is empty)."""
    return len(a & b) / len(a) if a else 0.0


@dataclass(frozen=True, slots=True)
class NodeValue:
    raw: str
    key: str
    type: str
    terms: frozenset[str]  # subject terms of the clause around it
    label: str


def node_values(node: NodeData) -> list[NodeValue]:
    """The values a node states, each with the subject around it."""
    text = arabic_numerals(node.content)
    out: list[NodeValue] = []
    for fact in capture_facts(text=node.content):
        if fact.value:
            out.append(
                NodeValue(
                    raw=fact.value,
                    key=value_key(fact.value),
                    type=fact.value_type,
                    terms=subject_terms(fact.label or fact.sentence),
                    label=fact.label,
                )
            )
    known = {v.key for v in out}
    whole = subject_terms(text)
    for v in find_values(text):
        key = value_key(v.raw)
        if key not in known:
            out.append(NodeValue(raw=v.raw, key=key, type=v.type, terms=whole, label=""))
    return out


NAMED_OLD_ONLY = 1.9  # a correction names the node's value as the old one, no shared subject word


@dataclass(frozen=True, slots=True)
class Match:
    node: NodeData
    old_value: str
    label: str  # the node's own label for the subject, when it has one
    score: float
    warnings: tuple[str, ...]  # "pinned", "more_sensitive"


def match_supersede(
    *, fact: SuggestedFact, nodes: Sequence[NodeData], context: str = "", include_pinned: bool = True
) -> list[Match]:
    """Live nodes `fact` corrects, best first.

    `context` is the recent conversation, used only for a correction that names
    no subject ("刚才说错了，是4月1日"): it refers to what was being discussed.
    """
    if fact.value is None or fact.tentative:
        return []
    new_key = value_key(fact.value)
    new_type = fact.value_type or "text"
    fact_terms = subject_terms(fact.label) if fact.label else frozenset()
    context_terms = subject_terms(context) if context else frozenset()
    correction = fact.kind == "correction"
    # A correction's own sentence names its subject even when the extracted label does not
    # ("scratch that build number, we pushed 0.9.417": label "Pushed", subject "build").
    sentence_terms = (
        subject_terms(fact.sentence.replace(fact.value, " ")) if correction and fact.sentence else frozenset()
    )
    named_old = _named_identifiers(fact.sentence, fact.value) if correction and fact.sentence else []
    if fact_terms and any(_already_states(n, fact, fact_terms) for n in nodes):
        return []  # the canvas already holds the new value for this subject: nothing left to retire
    out: list[Match] = []
    for n in nodes:
        if n.superseded_by or n.archived or (n.pinned and not (include_pinned and correction)):
            continue  # a plain statement never retires a pinned node; a correction may, with a warning
        best: tuple[float, NodeValue] | None = None
        low = n.content.lower()
        for ident in named_old:
            # The correction names the node's value as the old one ("a100-pool-east is going away,
            # we move the jobs to h100-spot-2") and shares its subject.
            if ident.lower() in low and coverage(sentence_terms, subject_terms(n.content)) > 0:
                best = (
                    1.5,
                    NodeValue(raw=ident, key=value_key(ident), type=new_type, terms=frozenset(), label=""),
                )
                break
        for v in node_values(n):
            if (
                v.key == new_key
                or same_value(v.raw, fact.value)
                or not compatible(new_type, v.type or "text")
            ):
                continue
            if new_type == "money" and v.key.split(":")[0] != new_key.split(":")[0]:
                continue  # yuan do not replace dollars
            cover = coverage(fact_terms, v.terms)
            said_before = bool(fact.previous_value) and same_value(v.raw, fact.previous_value or "")
            if said_before and (cover > 0 or not fact_terms):
                score = 2.0 + cover
            elif said_before and correction and new_type != "number":
                # The correction names this node's value as the old one under other words ("装修款从180万
                # 追加到210万" for "装修预算：180万"): the value says which node, when no other node holds it.
                score = NAMED_OLD_ONLY
            elif fact_terms and correction and cover >= 0.6:
                score = 1.0 + cover
            elif fact_terms and cover >= 0.99 and coverage(v.terms, fact_terms) >= 0.5 and new_type != "text":
                score = 1.0 + cover  # a plain statement retires a node only on the very same subject
            elif (
                correction
                and v.type == new_type
                and new_type not in ("number", "text", "name")
                and coverage(v.terms, sentence_terms) > 0
            ):
                score = 0.8 + coverage(v.terms, sentence_terms)  # same kind of value, subject in the sentence
            elif correction and not fact_terms and (context_terms or sentence_terms):
                cover_ctx = coverage(v.terms, context_terms | sentence_terms)
                if cover_ctx >= 0.5:
                    score = 0.5 + cover_ctx
                elif _same_shape(v.raw, fact.value) and v.terms & sentence_terms:
                    # "actually they moved us to 5434, a port conflict": a number of the same shape
                    # on a node whose subject the sentence names.
                    # (a word of the synonym table, "@port", names a subject: it counts twice)
                    shared = v.terms & sentence_terms
                    score = 0.4 + 0.05 * (len(shared) + sum(t.startswith("@") for t in shared))
                else:
                    continue
            else:
                continue
            if correction and score != NAMED_OLD_ONLY and len(v.raw) >= 3 and _names(fact.sentence, v.raw):
                score += 1.0  # the correction names this node's value as the old one ("5433 那个端口")
            if best is None or score > best[0]:
                best = (score, v)
        if best is not None:
            warnings = tuple(
                w
                for w, on in (
                    ("pinned", n.pinned),
                    ("more_sensitive", more_sensitive(n.sensitivity, fact.sensitivity)),
                )
                if on
            )
            out.append(
                Match(
                    node=n,
                    old_value=best[1].raw,
                    label=best[1].label or clean_label(""),
                    score=best[0],
                    warnings=warnings,
                )
            )
    out.sort(key=lambda m: (-m.score, m.node.id))
    if len(out) > 1 and out[0].score == NAMED_OLD_ONLY == out[1].score:
        return []  # two nodes hold the old value and neither shares the subject: do not guess
    if len(out) > 1 and not fact_terms and out[0].score == out[1].score:
        return []  # no subject and two equally likely nodes: do not guess
    return out


def _names(sentence: str, value: str) -> bool:
    """`sentence` says `value` itself, not as the tail of a longer number ("120人" does not say "20人")."""
    return re.search(rf"(?<![\d.,]){re.escape(value)}", sentence) is not None


def _already_states(node: NodeData, fact: SuggestedFact, fact_terms: frozenset[str]) -> bool:
    """A live node says the fact's value about the fact's subject ("半马报名费150元" for "半马调整为150元")."""
    if node.superseded_by or node.archived or not fact.value:
        return False
    return any(
        same_value(v.raw, fact.value) and coverage(fact_terms, v.terms | subject_terms(node.content)) >= 0.5
        for v in node_values(node)
    )


_IDENT_RE = re.compile(
    r"(?<![\w.-])(?=[\w.-]*\d)(?=[\w.-]*[a-zA-Z])[a-zA-Z0-9][\w.-]{3,}[a-zA-Z0-9](?![\w-])"
)


def _named_identifiers(sentence: str, new_value: str) -> list[str]:
    """Identifiers with letters and digits in a correction other than its new value (the old one)."""
    return [m.group(0) for m in _IDENT_RE.finditer(sentence) if m.group(0).lower() != new_value.lower()]


def _same_shape(old: str, new: str) -> bool:
    a, b = old.strip(), new.strip()
    return a.isdigit() and b.isdigit() and len(a) == len(b)


def find_superseded_candidates(*, fact: SuggestedFact, nodes: Sequence[NodeData]) -> list[NodeData]:
    """Live nodes (not secret) that state the same subject as `fact` with a different value, best first."""
    return [m.node for m in match_supersede(fact=fact, nodes=[n for n in nodes if n.sensitivity != "secret"])]
