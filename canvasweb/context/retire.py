"""Retiring outdated statements in the history, sentence by sentence.

A statement is retired when a later user correction replaces it (sentences.py
finds what a correction changes) or when it restates a superseded or archived
canvas node (`is_stale`, from the CanvasIndex). The sentence is replaced by a
marker that says why; a long sentence loses only its retired clauses; a
correction no longer names the value it replaces. Values retired by subject
across the whole history are handled by value_ledger/.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from .sentences import (
    SentenceInfo,
    _loose_hit,
    analyze_message,
    classify_sentence,
    norm_sentence,
    replace_info,
)
from .text import extract_terms, jaccard
from .tokens import TokenCache
from .types import MessageData

SUPERSEDE_SIMILARITY = 0.5


def is_corrected_by(info: SentenceInfo, corrections: Sequence[SentenceInfo]) -> bool:
    return corrected_by(info, corrections) is not None


def corrected_by(info: SentenceInfo, corrections: Sequence[SentenceInfo]) -> SentenceInfo | None:
    """True if a (later) correction replaces what this sentence says.

    Either the correction restates the sentence with a different value (term
    Jaccard >= 0.5: "expire after 2 hours" / "Correction: ... 6 hours"), or it
    names a subject the sentence is about and gives a value the sentence does
    not have ("Change the headcount to 96 people" retires "Headcount for now
    is 84 people"); the sentence must carry a value (number or name) itself.
    """
    for corr in corrections:
        if corr.norm == info.norm:
            continue
        if corr.loose_shapes and _loose_hit(info, corr):
            return corr
        if jaccard(info.core_terms, corr.core_terms) >= SUPERSEDE_SIMILARITY:
            return corr
        if (
            corr.subject_terms
            and corr.subject_terms <= info.terms
            and not (corr.value_terms & info.terms)
            and info.categories & {"number", "name"}
        ):
            return corr
    return None


OUTDATED_MARKER = "[outdated statement omitted: superseded later]"
# What replaces a statement retired by a correction in the chat whose new value is known.
CORRECTED_MARKER = "[outdated statement omitted: corrected later to {value}]"
# A statement that restates a superseded or archived canvas node.
CANVAS_OUTDATED_MARKER = "[outdated statement omitted: the canvas holds the current value]"


def _marker_for(corr: SentenceInfo | None, retired_values: frozenset[str] = frozenset()) -> str:
    # The new value as the correction says it, without the old one it names ("800人作废，按950人"),
    # unless that value was itself retired later.
    value = strip_replaced_values(corr.value_text) if corr is not None and corr.value_text else ""
    if value and len(value) <= 60 and "]" not in value and not any(r in value for r in retired_values):
        return CORRECTED_MARKER.format(value=value)
    return OUTDATED_MARKER


# Clause boundaries for partial retirement of long sentences (not "03:00" or "1,000").
_RETIRE_CLAUSE_RE = re.compile(r"(?<=[，；;])|(?<=,)(?!\d)|(?<=[—–])")
RESTRICTED_MARKER = "[statement withheld: restricted canvas content]"


def retire_outdated(
    *,
    message: MessageData,
    later_corrections: list[SentenceInfo] | None,
    is_stale: Callable[[frozenset[str]], bool] | None = None,
    is_restricted: Callable[[frozenset[str]], bool] | None = None,
    cache: TokenCache | None = None,
    position: int | None = None,
    retired_values: frozenset[str] = frozenset(),
) -> str | None:
    """Rewrite a history message without superseded or restricted sentences.

    Walk messages newest-first and pass the same `later_corrections` list:
    this function appends the message's own user corrections to it (for the
    older messages); None disables correction-based retirement. Returns the
    rewritten raw text, or None if unchanged. A correction can itself be
    retired by a later correction or by the canvas (it then no longer counts).
    """
    infos = analyze_message(message, cache=cache)
    if position is not None:
        infos = tuple(replace_info(i, position=position) for i in infos)
    replace: list[tuple[str, str]] = []

    def retired_by(info: SentenceInfo) -> tuple[bool, SentenceInfo | None]:
        corr = corrected_by(info, later_corrections) if later_corrections else None
        if corr is not None:
            return True, corr
        return (is_stale is not None and is_stale(info.terms)), None

    for info in reversed(infos):  # later sentences of the same message count as "later"
        if is_restricted is not None and is_restricted(info.terms):
            replace.append((info.text, RESTRICTED_MARKER))
            continue
        hit, corr = retired_by(info)
        if hit:
            marker = _marker_for(corr, retired_values) if corr is not None else CANVAS_OUTDATED_MARKER
            replace.append((info.text, _retire_clauses(info, marker, retired_by) or marker))
            if "correction" in info.categories and message.role == "user" and later_corrections is not None:
                # A corrected correction (A -> B -> C) still retires what it corrected (A), and
                # names the newest value (none when the canvas retired it: the canvas holds it).
                later_corrections.append(
                    replace_info(info, value_text=corr.value_text if corr is not None else "")
                )
            continue
        if "correction" in info.categories and message.role == "user" and later_corrections is not None:
            later_corrections.append(info)
        if "correction" in info.categories:
            stripped = strip_replaced_values(info.text)
            if stripped != info.text:
                replace.append((info.text, stripped))
    if not replace:
        return None
    text = message.content
    for sentence, marker in replace:
        text = text.replace(sentence, marker, 1)
    return text


# Inside a correction, the value it replaces is named only to be retired ("moved from Zendesk to
# Freshdesk", "6 hours, not 2", "是 19.5%，不是 22%", "4月9日走不了，改到 4月13日"): those mentions
# are cut, so the sentence states only the new value.
_VALUE_START = r"(?:[$€£¥]\s?)?\d"
_REPLACED_VALUE_RES = (
    re.compile(r"\bfrom\s+(?:the\s+)?(?:[^,.;:!?]|(?<=\d)[.,:](?=\d)){1,40}?\s+(?=to\b)", re.IGNORECASE),
    re.compile(
        rf"[,;]?\s*\b(?:not|instead of|rather than|no longer)\s+(?:{_VALUE_START}[\w%/-]*(?:[.,:]\d+)*(?:\s?[A-Za-z%]+)?"
        r"|(?:the\s+)?[A-Z][\w.&-]*(?:\s+[A-Z][\w.&-]*)*(?:'s(?:\s+[a-z]+)?)?)(?=\s*(?:[,.;:!?)]|$|and\b|but\b))"
    ),
    # "it was Wednesday 08:30 and now it's Thursday", "原来是 3 号，现在改到 5 号"
    re.compile(
        r"\b(?:[Ii]t|[Tt]hat|[Tt]his)\s+was\s+(?=[^,.;!?]{0,40}?(?:\d|\b[A-Z]))[^,.;!?]{1,40}?,?\s+(?:and\s+|but\s+)?(?=now\b)"
    ),
    re.compile(r"(?:原来|本来|之前)是?\s*[^，。；,;！!？?]{1,20}?[，,]\s*(?=现在)"),
    re.compile(r"不是\s*[^，。；,;！!？?]{1,20}?\s*而是"),
    re.compile(rf"[，,]?\s*(?:而)?不是\s*{_VALUE_START}[^，。；,;！!？?]{{0,20}}"),
    re.compile(
        r"从\s*[^，。；,;]{1,20}?\s*(?=(?:改成|改为|改到|调整到|调整为|换成|延到|延期到|推迟到|提前到|降到|提高到|涨到|砍到))"
    ),
    re.compile(
        rf"[^，。；,;]*{_VALUE_START}[^，。；,;]*?(?:走不了|不行了|取消了|赶不上|来不及|作废了?|不用了|停用了?)[，,]\s*"
    ),
)


def strip_replaced_values(sentence: str) -> str:
    """A correction sentence without the old values it names (see _REPLACED_VALUE_RES)."""
    out = sentence
    for pattern in _REPLACED_VALUE_RES:
        out = pattern.sub(lambda m: "是" if m.group(0).endswith("而是") else "", out)
    out = re.sub(r"\s{2,}", " ", out).strip()
    return out if len(out) >= 4 else sentence


def _retire_clauses(
    info: SentenceInfo, marker: str, retired_by: Callable[[SentenceInfo], tuple[bool, SentenceInfo | None]]
) -> str | None:
    """A long sentence loses only the clauses that carry the retired value, when the rest of it
    no longer states that value on its own; None = retire the whole sentence."""
    parts = [p for p in _RETIRE_CLAUSE_RE.split(info.text) if p]
    if len(parts) < 3:
        return None
    hits = []
    for p in parts:
        terms = extract_terms(p)
        sub = SentenceInfo(
            text=p, norm=norm_sentence(p), categories=classify_sentence(p), terms=terms, core_terms=terms
        )
        hits.append(retired_by(sub)[0])
    if not any(hits) or all(hits):
        return None
    rest = "".join(p for p, h in zip(parts, hits, strict=True) if not h)
    rest_terms = extract_terms(rest)
    rest_info = SentenceInfo(
        text=rest,
        norm=norm_sentence(rest),
        categories=classify_sentence(rest),
        terms=rest_terms,
        core_terms=rest_terms,
    )
    if retired_by(rest_info)[0]:
        return None
    out, prev_hit = [], False
    for p, h in zip(parts, hits, strict=True):
        if h:
            if not prev_hit:
                out.append(marker + (" " if p.endswith((" ", ",")) else ""))
        else:
            out.append(p)
        prev_hit = h
    return "".join(out)
