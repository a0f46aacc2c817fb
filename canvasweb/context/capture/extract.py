"""The deterministic fact extractor: ordinary statements, decisions and corrections, EN and ZH.

Per sentence (questions and hypotheticals skipped, hedged ones marked tentative):
  * corrections: "change X from A to B", "X is now B", "not A but B", "B instead of A",
    "switched/moved us to B", "actually …", "刚才说错了，是…", "把X改成B", "不是A而是B";
  * decisions: "we're going with X for Y", "let's use X for Y", "我们决定用 X", "定了，用 X";
  * values: "Key: value", "the deadline is Apr 1", "截止日期定在3月15日", "预算是四十万元",
    "团队 12 人", "port 5433", "timeout = 30s", numbers with units;
  * rules: "never …", "不要 …".
Each fact is a clean statement ("JWT expiry: 30 minutes", "截止日期：4月1日"),
with `label` (the subject as said), `subject` (sorted keywords of it, for
matching), `value`, its `value_type` and, for corrections, `previous_value`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace

from ..redaction import mask_credentials
from ..text import extract_terms, split_sentences
from .patterns import (
    _ASSIGN_RE,
    _BECOMES_RE,
    _CHANGE_RE,
    _COMMA_NOT_RE,
    _CORR_MARK_RE,
    _CORR_PREFIX_RE,
    _DATE_ACTION_RE,
    _DECIDED_RE,
    _EN_DATE_ACTION_RE,
    _GOING_WITH_RE,
    _HEDGE_RE,
    _HOLD_RE,
    _HYPOTHETICAL_RE,
    _INSTEAD_RE,
    _IS_VALUE_RE,
    _KV_LINE_RE,
    _KW_VALUE_RE,
    _MAKE_RE,
    _NOT_A_KEY_RE,
    _NOT_BUT_RE,
    _NUM_UNIT_RE,
    _RULE_RE,
    _SWITCH_RE,
    _USE_FOR_RE,
    _ZH_CHANGE_RE,
    _ZH_COUNT_RE,
    _ZH_DECIDED_RE,
    _ZH_FROM_TO_RE,
    _ZH_IS_VALUE_RE,
    _ZH_KV_RE,
    _ZH_MISSPOKE_RE,
    _ZH_NOT_BUT_RE,
    _ZH_USE_RE,
    _ZH_VOID_RE,
)
from .sensitivity import sensitivity_marked
from .values import TypedValue, arabic_numerals, find_values, value_key, value_type


@dataclass(frozen=True, kw_only=True, slots=True)
class SuggestedFact:
    content: str  # the clean statement offered for the canvas
    kind: str  # config | number | rule | correction | decision
    subject: str  # sorted keywords of what the fact is about ("" if unknown)
    value: str | None
    reason: str
    previous_value: str | None = None  # "change X from A to B", "不是 A 而是 B", "B instead of A"
    sensitivity: str = "public"  # public | internal | secret, from markers in the message
    label: str = ""  # the subject as the user said it ("JWT expiry", "截止日期")
    value_type: str = ""  # date | money | duration | port | … | name | text (see values.py)
    tentative: bool = False  # hedged ("maybe", "可能"): never offered as a settled fact
    sentence: str = ""  # the (masked) sentence it came from


def statement(label: str, value: str) -> str:
    """'JWT expiry: 30 minutes', '截止日期：4月1日'."""
    label = label.strip()
    if not label:
        return value
    sep = "：" if re.search(r"[\u4e00-\u9fff]", label + value[:1]) else ": "
    return f"{label}{sep}{value}"


def with_label(fact: SuggestedFact, label: str) -> SuggestedFact:
    """The fact about a subject it did not name (a correction that refers to the last subject)."""
    if fact.kind == "rule" or fact.value is None:
        return fact
    return replace(
        fact, label=label, subject=subject_key(label) or fact.subject, content=statement(label, fact.value)
    )


# --- labels and subjects -------------------------------------------------------------------------------

_SUBJECT_NOISE = frozenset(
    "chang switch migrat mov instead correction actual pleas set updat now going from to "
    "decid decision go goe went lets let we our vendor us".split()
)
_LEADING_RE = re.compile(
    r"^(?:(?:so|ok|okay|and|but|also|then|well|please|hey|note|fyi|actually|correction|update|oh|sorry|the|our|"
    r"we'll|we will|we're|we are|we've|i'll|we|i|they|he|she|you|"
    r"(?:approved|confirmed|agreed|decided|said|set|want(?:s|ed)?|need(?:s|ed)?|got|have|has)(?:\s+on)?|"
    r"let's|lets|let us|that|this|its|it's)\b[\s,:]*)+|^(?:把|将|我们的?|咱们的?|他们|她们|大家|那|就|请|另外|还有|然后|所以|其实|这个|那个|批准了|确认了|通过了|定了)+",
    re.IGNORECASE,
)
_TRAILING_RE = re.compile(
    r"(?:\s+(?:is|are|was|will be|be|to|at|on|in|of|for|after|from|by|set|should|must|=|listens?(?: on)?|runs?(?: on)?|"
    r"stays?(?: at)?|sits?(?: at)?|goes|the|now|currently|will|has|have|had|with))+$|(?:是|为|為|定在|定为|设为|设置为|在|要|将|就|共|有|一共|总共|目前|统计|其实|实际上|最后|最终|按)+$",
    re.IGNORECASE,
)
_VERB_PHRASE_RE = re.compile(
    r"\b(?:listens on|runs on|lives on|sits on|is on|is set to|is at)\b", re.IGNORECASE
)


def clean_label(text: str) -> str:
    text = " ".join(text.replace("_", " ").split()).strip(" ,;:：，；.。-–—\"'“”")
    for _ in range(3):
        text = _LEADING_RE.sub("", text).strip(" ,;:：，；.。")
        text = _TRAILING_RE.sub("", text).strip(" ,;:：，；.。")
    text = _VERB_PHRASE_RE.sub(" ", text)
    text = " ".join(text.split())
    if len(text) > 60:
        text = text[-60:].split(" ", 1)[-1]
    return text[:1].upper() + text[1:] if text[:1].isascii() else text


_ZH_CHANGE_WORDS_RE = re.compile(r"改成|改为|换成|改用|更改为|设为|设置为")


def subject_key(text: str, value: str = "") -> str:
    """Normalized 'what is this about': sorted keywords of `text` minus those of `value`."""
    text = _ZH_CHANGE_WORDS_RE.sub(" ", text.replace("_", " "))
    terms = extract_terms(text) - extract_terms(value)
    return " ".join(sorted(t for t in terms if not t.isdigit() and t not in _SUBJECT_NOISE))


# --- patterns ----------------------------------------------------------------------------------------

_VALUE_STOP_RE = re.compile(
    r"\s+(?:instead|because|since|as|so that|for now|and|but|which|from now on|starting|"
    r"effective|going forward|then|please|thanks)\b|[,;，；。!！(（]|$",
    re.IGNORECASE,
)


_ZH_CLASSIFIERS = frozenset("个张台辆套间座处条块家")
_COUNT_NOUN_RE = re.compile(r"\s*([A-Za-z]{2,20})\b")
_NOT_UNITS = frozenset(
    "and or to from for by in on at of as if is are was the a an instead because since so but then "
    "now please per each this that with without until before after when".split()
)


def value_at(rest: str) -> tuple[str, str] | None:
    """(value, type) at the start of `rest`: a typed value if one starts there, else words up to a stop."""
    rest = rest.strip().lstrip("：:")
    rest = rest.strip()
    rest = re.sub(
        r"^(?:(?:the|a|an|us|be|on|at|by|in|around|about|set to|now|probably|maybe|likely|roughly|approximately)\s+)+"
        r"|^(?:是|为|到|成|在)",
        "",
        rest,
        flags=re.IGNORECASE,
    ).strip()
    for v in find_values(rest):
        if v.start <= 1:
            end = v.end
            unit = _COUNT_NOUN_RE.match(rest, end) if v.type == "number" else None
            if unit and unit.group(1).lower() not in _NOT_UNITS:
                end = unit.end()  # "800 rows", "3 replicas"
            elif v.type == "number" and rest[end : end + 1] in _ZH_CLASSIFIERS:
                end += 1  # "15个", "72张": the measure word belongs to the count
            elif v.type == "time" and rest[end : end + 1] == "整":
                end += 1  # "7点整": on the hour
            return rest[:end].strip(), v.type
        break
    m = _VALUE_STOP_RE.search(rest)
    words = rest[: m.start() if m else len(rest)].strip().rstrip(".。!！?？")
    if re.search(r"[\u4e00-\u9fff]了$", words):
        words = words[:-1]  # "换成远航能源了": the particle is no part of the name
    if not words or len(words) > 60 or len(words.split()) > 6 or _CLAUSE_VALUE_RE.search(words):
        return None
    return words, value_type(words)


# Words with a subject of their own describe, they do not name ("Japanese is actually the one I'm
# least worried about", "the venue is actually what we booked last year"): no value.
_CLAUSE_VALUE_RE = re.compile(
    r"^(?:one|what|whatever|how|why|something|anything)\b|\b(?:i|i'm|i've|i'd|we|we're|we've|you|you're|"
    r"he|she|they|they're|it's)\b",
    re.IGNORECASE,
)


@dataclass(slots=True)
class _Collector:
    sensitivity: str
    facts: list[SuggestedFact]
    seen: set[tuple[str, str]]

    def add(
        self,
        *,
        kind: str,
        label: str,
        value: str | None,
        reason: str,
        sentence: str,
        previous: str | None = None,
        vtype: str = "",
        tentative: bool = False,
        content: str | None = None,
    ) -> bool:
        label = clean_label(label)
        if kind != "rule" and (re.search(r"\d", label) or re.fullmatch(r"[\u4e00-\u9fff]", label)):
            return False  # "… 8 attempts over: 24 hours", "补：2 个": the subject holds another value, or is no subject
        if (
            kind != "rule"
            and value
            and re.search(r"[\u4e00-\u9fff]", value)
            and len(value) > 24
            and not vtype
        ):
            return False  # a long Chinese clause is no value
        if value is not None:
            value = value.strip().strip("\"'“”").rstrip(".,;:!?。，；：！？")
            if not value or "[REDACTED" in value:
                return False
        subject = subject_key(label, value or "")
        if (
            not subject
            and kind != "rule"
            and not (kind == "correction" and re.fullmatch(r"[\u4e00-\u9fff]{2,10}", label))
        ):
            label = ""  # "moved us to 5434": "us" is no subject; the caller resolves it from the canvas
        same_sentence = [f for f in self.facts if f.sentence == sentence]
        if (
            kind != "correction"
            and value
            and any(
                f.value
                and (
                    value in f.value or (f.previous_value and value_key(f.previous_value) == value_key(value))
                )
                for f in same_sentence
            )
        ):
            return False  # "30" inside "30 minutes"; the old value of "不是A而是B" is no fact of its own
        if kind != "rule" and not subject and not (kind == "correction" and value):
            return False  # about nothing we could match later
        key = (value_key(value) if value else "rule:" + sentence, subject if kind != "correction" else "")
        if key in self.seen or (value and (value_key(value), "") in self.seen):
            return False
        self.seen.add(key)
        if kind == "correction" and value:
            self.seen.add((value_key(value), ""))
        previous = previous.strip().rstrip(".,;:!?。，；：！？") if previous else None
        if previous and value and value_key(previous) == value_key(value):
            previous = None
        self.facts.append(
            SuggestedFact(
                content=content or (statement(label, value) if value else sentence),
                kind=kind,
                subject=subject,
                value=value,
                reason=reason,
                previous_value=previous or None,
                sensitivity=self.sensitivity,
                label=label,
                value_type=vtype or (value_type(value) if value else ""),
                tentative=tentative,
                sentence=sentence,
            )
        )
        return True


def _change_old(m: re.Match[str], core: str) -> str | None:
    old = m.group("old")
    return old_got[0] if old and (old_got := value_at(old)) else old


def _group(name: str) -> Callable[[re.Match[str], str], str | None]:
    return lambda m, core: m.group(name)


def _words(name: str) -> Callable[[re.Match[str], str], str]:
    return lambda m, core: m.group(name) or ""


def _switch_subject(m: re.Match[str], core: str) -> str:
    return m.group("subj") if subject_key(m.group("subj")) else ""


@dataclass(frozen=True)
class _CorrectionForm:
    """One way of saying "it is B now": where the subject and the old value are, and whether the new
    value must be a value (a number, a date…), not a name or free text."""

    pattern: re.Pattern[str]
    reason: str
    label: Callable[[re.Match[str], str], str]
    previous: Callable[[re.Match[str], str], str | None] | None = None
    values_only: bool = False
    old_is_a_value: bool = False  # the old part must hold a value ("800人作废")


# In the order they are tried (_Collector.add keeps the first fact of a value per sentence).
_CORRECTION_FORMS = (
    _CorrectionForm(_CHANGE_RE, "change X to Y", _words("subj"), previous=_change_old),
    _CorrectionForm(_MAKE_RE, "make X Y", _words("subj"), values_only=True),
    _CorrectionForm(
        _ZH_FROM_TO_RE, "从A改成B", lambda m, core: _zh_subject_tail(m.group("subj")), previous=_group("old")
    ),
    _CorrectionForm(_ZH_CHANGE_RE, "改成/改为", lambda m, core: _zh_subject_tail(m.group("subj"))),
    _CorrectionForm(
        _ZH_MISSPOKE_RE, "X说错了，是B", lambda m, core: _zh_named_subject(m.group("subj")), values_only=True
    ),
    _CorrectionForm(
        _ZH_VOID_RE,
        "A作废，按B",
        lambda m, core: _zh_named_subject(m.group("subj")),
        previous=_group("old"),
        values_only=True,
        old_is_a_value=True,
    ),
    _CorrectionForm(
        _ZH_NOT_BUT_RE,
        "不是…而是",
        lambda m, core: _zh_subject_tail(m.group("lead")) if m.group("lead") else "",
        previous=_group("old"),
    ),
    _CorrectionForm(_NOT_BUT_RE, "not A but B", lambda m, core: core[: m.start()], previous=_group("old")),
    # "the risk is the migration, not the UI" is an opinion: values only
    _CorrectionForm(_COMMA_NOT_RE, "B, not A", _words("lead"), previous=_group("old"), values_only=True),
)
_CORRECTION_FORMS_AFTER_INSTEAD = (
    _CorrectionForm(_BECOMES_RE, "X becomes Y", _words("subj")),
    _CorrectionForm(_SWITCH_RE, "switched to", _switch_subject),
)


def _corrections(c: _Collector, core: str, sentence: str, tentative: bool) -> None:
    def apply(forms: tuple[_CorrectionForm, ...]) -> None:
        for form in forms:
            for m in form.pattern.finditer(core):
                got = value_at(m.group("rest"))
                if not got or (form.values_only and got[1] in ("name", "text")):
                    continue
                if form.old_is_a_value and not find_values(m.group("old")):
                    continue
                c.add(
                    kind="correction",
                    label=form.label(m, core),
                    value=got[0],
                    vtype=got[1],
                    previous=form.previous(m, core) if form.previous else None,
                    reason=form.reason,
                    sentence=sentence,
                    tentative=tentative,
                )

    apply(_CORRECTION_FORMS)
    for m in _INSTEAD_RE.finditer(core):
        c.add(
            kind="correction",
            label=_clause(core, m.start(), m.end()).replace(m.group(0), " "),
            value=m.group("val"),
            previous=m.group("old"),
            reason="instead",
            sentence=sentence,
            tentative=tentative,
        )
    apply(_CORRECTION_FORMS_AFTER_INSTEAD)


def _decisions(c: _Collector, core: str, sentence: str, kind: str, tentative: bool) -> None:
    for pattern, reason in (
        (_GOING_WITH_RE, "going with X"),
        (_DECIDED_RE, "decided on X"),
        (_USE_FOR_RE, "use X for Y"),
    ):
        for m in pattern.finditer(core):
            value = m.group("val")
            if value.lower() in ("it", "that", "this", "the", "a", "an", "them", "one"):
                continue
            c.add(
                kind=kind,
                label=m.group("subj") or "Decision",
                value=value,
                vtype="name",
                reason=reason,
                sentence=sentence,
                tentative=tentative,
            )
    for m in _ZH_DECIDED_RE.finditer(core):
        label = m.group("subj2") or m.group("subj1") or "决定"
        c.add(
            kind=kind,
            label=label,
            value=m.group("val"),
            vtype="name",
            reason="决定用 X",
            sentence=sentence,
            tentative=tentative,
        )
    for m in _ZH_USE_RE.finditer(core):
        c.add(
            kind=kind,
            label=m.group("subj").removesuffix("统一"),
            value=m.group("val"),
            vtype="name",
            reason="用 X",
            sentence=sentence,
            tentative=tentative,
        )


def _values(c: _Collector, core: str, sentence: str, kind_override: str | None, tentative: bool) -> None:
    m = _KV_LINE_RE.match(core)
    if m and not _NOT_A_KEY_RE.match(m.group("key").strip()) and len(m.group("key").split()) <= 5:
        value = m.group("val").strip().rstrip(".。")
        typed = find_values(value)
        if typed and typed[0].start == 0:
            c.add(
                kind=kind_override or "config",
                label=m.group("key"),
                value=value[: typed[0].end],
                vtype=typed[0].type,
                reason="key: value",
                sentence=sentence,
                tentative=tentative,
            )
        elif not typed and len(value.split()) <= 6 and len(value) <= 48 and not re.search(r"[，,；;]", value):
            c.add(
                kind=kind_override or "config",
                label=m.group("key"),
                value=value,
                reason="key: value",
                sentence=sentence,
                tentative=tentative,
            )
    for m in _DATE_ACTION_RE.finditer(core):
        c.add(
            kind=kind_override or "config",
            label=m.group("act"),
            value=m.group("when"),
            vtype="date",
            reason="日期 + 动作",
            sentence=sentence,
            tentative=tentative,
        )
    for m in _EN_DATE_ACTION_RE.finditer(core):
        got = value_at(m.group("rest"))
        if got and got[1] in ("date", "time"):
            c.add(
                kind=kind_override or "config",
                label=m.group("act"),
                value=got[0],
                vtype=got[1],
                reason="action on date",
                sentence=sentence,
                tentative=tentative,
            )
    for m in _ZH_COUNT_RE.finditer(core):
        c.add(
            kind=kind_override or "number",
            label=m.group("key"),
            value=m.group("val"),
            vtype="count",
            reason="团队 N 人",
            sentence=sentence,
            tentative=tentative,
        )
    for pattern in (_ZH_IS_VALUE_RE, _IS_VALUE_RE):
        for m in pattern.finditer(core):
            got = value_at(m.group("rest"))
            if got and got[1] not in ("name", "text", "number"):
                key = m.group("key")
                key = _zh_subject_tail(key, limit=8) if pattern is _ZH_IS_VALUE_RE else key
                c.add(
                    kind=kind_override or "config",
                    label=key,
                    value=got[0],
                    vtype=got[1],
                    reason="X is value",
                    sentence=sentence,
                    tentative=tentative,
                )
    for m in _ASSIGN_RE.finditer(core):
        c.add(
            kind=kind_override or "config",
            label=m.group("key"),
            value=m.group("val"),
            reason="key = value",
            sentence=sentence,
            tentative=tentative,
        )
    for m in _KW_VALUE_RE.finditer(core):
        c.add(
            kind=kind_override or "config",
            label=_label_around(core, m, m.group("val"), start=m.start("val")),
            value=m.group("val"),
            reason="config value",
            sentence=sentence,
            tentative=tentative,
        )
    for m in _ZH_KV_RE.finditer(core):
        c.add(
            kind=kind_override or "config",
            label=_label_around(core, m, m.group("val"), start=m.start("val")),
            value=m.group("val"),
            reason="配置值",
            sentence=sentence,
            tentative=tentative,
        )


_CONJ_RE = re.compile(r"\b(?:and|but|while|whereas|so)\b|[和且而但]", re.IGNORECASE)


def _label_around(core: str, m: re.Match[str] | TypedValue, value: str, *, start: int | None = None) -> str:
    """The words before the value in its clause ("the backoff starts at" for "200 ms")."""
    end = m.end if isinstance(m, TypedValue) else m.end()
    start = start if start is not None else (m.start if isinstance(m, TypedValue) else m.start())
    left = 0
    for c in _CLAUSE_RE.finditer(core, 0, start):
        left = c.end()
    before = core[left:start]
    cut = list(_CONJ_RE.finditer(before))
    if cut and len(extract_terms(before[cut[-1].end() :])) >= 2:
        before = before[cut[-1].end() :]  # "… and the backoff starts at", not "… and expire after"
    if subject_key(before):
        return before.strip()
    return _clause(core, start, end).replace(value, " ").strip()


def on_hold(text: str) -> bool:
    """The person says the message's values are not settled or must stay off the canvas for now."""
    return bool(_HOLD_RE.search(text))


def capture_facts(*, text: str) -> list[SuggestedFact]:
    """Facts worth offering for the canvas from one user message (deterministic order)."""
    c = _Collector(sensitivity=sensitivity_marked(text), facts=[], seen=set())
    # "don't touch the board yet", "not confirmed", "画布先别动", "我还没跟运维对": the person says the
    # value is not settled or must stay off the canvas; every fact of the message is then tentative.
    held = on_hold(text)
    carried: list[TypedValue] = []  # old values a correction named in the sentence before
    for raw in split_sentences(text):
        if raw.rstrip().endswith(("?", "？")) or _HYPOTHETICAL_RE.search(raw):
            continue  # "Can we move the port to 5434?", "如果预算超了怎么办": asked or imagined, not decided
        sentence = arabic_numerals(mask_credentials(raw))  # never suggest a credential as a fact value
        if "[REDACTED" in sentence:
            continue  # "门禁密码换成 [REDACTED] 了" states nothing a card could hold
        core = _CORR_PREFIX_RE.sub("", sentence)
        is_correction = core != sentence or bool(_CORR_MARK_RE.search(sentence))
        lead = _KV_LINE_RE.match(core)
        if lead and (
            sensitivity_marked(lead.group("key")) != "public"
            or _NOT_A_KEY_RE.match(lead.group("key").strip())
        ):
            core = lead.group(
                "val"
            ).strip()  # "这个是内部信息：GMV 目标 3.2 亿元", "Note: …": the marker is no subject
        tentative = held or bool(_HEDGE_RE.search(sentence))
        kind_override = "correction" if is_correction else None
        before = len(c.facts)
        _corrections(c, core, sentence, tentative)
        _decisions(c, core, sentence, kind_override or "decision", tentative)
        _values(c, core, sentence, kind_override, tentative)
        if len(c.facts) == before and is_correction:
            # "刚才说错了，是4月1日", "Actually it's 30 minutes": a value with no subject; it refers to the
            # last subject discussed, which the caller resolves.
            typed = find_values(core)
            typed = [v for v in typed if v.type != "number"] or typed
            if typed:
                v = typed[-1]
                c.add(
                    kind="correction",
                    label=_label_around(core, v, v.raw) if v.start > 0 else "",
                    value=v.raw,
                    vtype=v.type,
                    reason="correction marker",
                    sentence=sentence,
                    tentative=tentative,
                )
        if True:  # numbers with units the patterns above did not take ("… and the backoff starts at 200 ms")
            dates = [(v.start, v.end) for v in find_values(core) if v.type in ("date", "time")]
            for m in _NUM_UNIT_RE.finditer(core):
                if any(s <= m.start() < e for s, e in dates) or re.match(r"\s*\d", core[m.end() :]):
                    continue  # inside a date, or a qualifier of the next value ("一年 300 万")
                value = f"{m.group('num')} {m.group('unit')}"
                c.add(
                    kind=kind_override or "number",
                    label=_label_around(core, m, m.group(0)),
                    value=value,
                    reason="number with unit",
                    sentence=sentence,
                    tentative=tentative,
                )
        named = _old_values(core) if is_correction else []
        carried = _retire_old_values(c, before, named=named, carried=carried) if named or carried else []
        if len(c.facts) == before and _RULE_RE.search(core) and not _HOLD_RE.search(core):
            c.add(
                kind="rule",
                label=core,
                value=None,
                reason="negation rule",
                sentence=sentence,
                content=core,
                tentative=tentative,
            )
    return c.facts


_CLAUSE_RE = re.compile(r"[;,，；、]")
# A value the sentence says is the old one: "£1,450 was their one-week price", "0.32是去年的".
_OLD_AFTER_RE = re.compile(
    r"\s*(?:was|were|had been|used to be)\b|\s*(?:是|为)?(?:去年|之前|以前|原来|旧|老)的", re.IGNORECASE
)


def _old_values(core: str) -> list[TypedValue]:
    return [v for v in find_values(core) if v.type != "number" and _OLD_AFTER_RE.match(core, v.end)]


def _retire_old_values(
    c: _Collector, before: int, *, named: list[TypedValue], carried: list[TypedValue]
) -> list[TypedValue]:
    """A correction that names a value as the old one ("no wait, £1,450 was their one-week price. For the
    full run it comes to £2,150"): that value is no fact of its own, and the new value of the same type in
    the same sentence or the next one corrects it. Returns the old values still waiting for their new one."""
    waiting = [*named, *carried]
    old_keys = {value_key(v.raw) for v in waiting}
    kept = [f for f in c.facts[before:] if not (f.value and value_key(f.value) in old_keys)]
    for i, f in enumerate(kept):
        if f.kind == "rule" or not f.value or f.previous_value:
            continue
        old = next((v for v in waiting if v.type == f.value_type), None)
        if old is not None:
            kept[i] = replace(f, kind="correction", previous_value=old.raw)
            waiting.remove(old)
    c.facts[before:] = kept
    return [v for v in waiting if v in named]  # one sentence on at most


def _clause(sentence: str, start: int, end: int) -> str:
    """The clause of `sentence` around a match (so the subject stays local)."""
    left = 0
    for m in _CLAUSE_RE.finditer(sentence, 0, start):
        left = m.end()
    after = _CLAUSE_RE.search(sentence, end)
    right = after.start() if after else len(sentence)
    return sentence[left:right]


_CJK_TAIL_RE = re.compile(r"([\u4e00-\u9fff]{1,10})\s*$")
_WORD_TAIL_RE = re.compile(r"([A-Za-z0-9_\-.]+\s*[\u4e00-\u9fff]{0,4})\s*$")
_ZH_LEAD_NOISE_RE = re.compile(
    r"^.*(?:决定|评审|会上|大家|我们|咱们|那就|所以|然后|另外|现在|已经|刚才|还是|要|把|将)"
)


def _zh_named_subject(text: str) -> str:
    """The subject a ZH correction names before its marker, or "" ("刚才说错了": none)."""
    text = text.strip(" ，,")
    return _zh_subject_tail(text) if _ZH_LEAD_NOISE_RE.sub("", text).strip() else ""


def _zh_subject_tail(text: str, limit: int = 10) -> str:
    """The short noun phrase right before 改成/是 ("评审决定把截止日期" -> 截止日期)."""
    text = text.strip().removesuffix("把").removesuffix("将").strip(" ，,")
    if re.search(r"[A-Za-z]", text) and not re.search(r"[\u4e00-\u9fff]", text):
        return text
    text = _ZH_LEAD_NOISE_RE.sub("", text) or text
    m2 = _WORD_TAIL_RE.search(text)
    if m2 and re.search(r"[A-Za-z]", m2.group(1)):
        return m2.group(1)
    m = _CJK_TAIL_RE.search(text)
    return m.group(1)[-limit:] if m else text[-limit:]
