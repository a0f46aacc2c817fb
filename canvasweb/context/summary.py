"""Deterministic extractive rolling summary of the turns that left the window.

No model is involved: sentences are kept verbatim (so numbers, names,
negations and corrections survive exactly), classified into sections, ranked
by how much drift they would prevent if lost, and packed into a token budget:

  corrections > negations/rules > numbers > constraints > goals > decisions >
  open questions > names; +bonus for the user's own words, for sentences
  carried from the previous rolling summary, and for matching the current
  question. Sentences with none of these signals are filler and
  never kept. Duplicates are kept once.

A correction ("Correction: ...", "actually", "change X to Y", "改成", "更正",
"不是…而是") supersedes earlier sentences that say nearly the same thing
(term Jaccard >= 0.5) with a different value, and those are dropped, so the
summary does not carry "2 hours" next to "6 hours". The compiler also passes
`is_stale`, which drops sentences restating a superseded canvas node.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from .retire import (  # noqa: F401 - re-exported: the history filters lived here
    CANVAS_OUTDATED_MARKER,
    CORRECTED_MARKER,
    OUTDATED_MARKER,
    RESTRICTED_MARKER,
    SUPERSEDE_SIMILARITY,
    corrected_by,
    is_corrected_by,
    retire_outdated,
    strip_replaced_values,
)
from .sentences import (  # noqa: F401 - re-exported
    SECTIONS,
    SUMMARY_CLOSE,
    SUMMARY_HEADER,
    SUMMARY_OPEN,
    SentenceInfo,
    analyze_message,
    analyze_text,
    classify_sentence,
    norm_sentence,
    replace_info,
    strip_summary_frame,
)
from .text import escape_delimiters, extract_terms, jaccard, match_score, split_sentences
from .tokens import TokenCache, count_tokens
from .types import MessageData

FOLD_THRESHOLD = 0.7
_SENTENCE_MARKER_RE = re.compile(r"\[(?:outdated statement omitted|statement withheld)[^\]]*\]")
_MARKER_ONLY_RE = re.compile(
    r"^\s*(?:\[(?:outdated statement omitted|statement withheld)[^\]]*\][\s.,;:，。；…]*)+$"
)
_norm = norm_sentence

SUMMARY_PROMPT_TEMPLATE = """You maintain the rolling summary of a long conversation.
Update the previous summary with the new messages. Rules:
- Keep these sections, in this order: Goals; Decisions; Constraints & numbers; Corrections (verbatim); Open questions.
- Copy numbers, units, names, identifiers and negations ("never", "don't", "不要", "禁止") exactly.
- Copy every user correction verbatim into "Corrections" and delete the statement it replaces everywhere else.
- Never include passwords, keys, tokens or other secret values; write [REDACTED] instead.
- Drop small talk. Do not invent facts. Answer in the conversation's language.
- At most {max_words} words.

Previous summary:
{previous_summary}

New messages:
{messages}

Updated summary:"""

_PRIORITY = {
    "correction": 100,
    "negation": 40,
    "number": 40,
    "constraint": 30,
    "goal": 25,
    "decision": 20,
    "name": 10,
    "question": 8,
}


_VALUE_CATS = frozenset({"number", "name", "negation", "constraint"})

# A sentence that only says no (or names someone) and has fewer than two other words is a reaction.
_REACTION_CATS = frozenset({"negation", "name"})
_REACTION_WORDS = frozenset(
    "no not nope never yet really actually seriously lol haha oh ah hmm wow yeah ok okay well sure maybe "
    "guess think idea sorry doesn don didn isn won wasn aren".split()
)


def _section(cats: frozenset[str]) -> str:
    if "correction" in cats:
        return "Corrections (verbatim)"
    if "question" in cats:
        return "Open questions"
    if cats & {"negation", "constraint", "number"}:
        return "Constraints & numbers"
    if "goal" in cats:
        return "Goals"
    return "Decisions"


def _shown_text(c: _Cand) -> str:
    """What the summary shows for a candidate: corrections without the values they replace."""
    return strip_replaced_values(c.info.text) if "correction" in c.cats else c.info.text


# ----------------------------------------------------------------- summary
@dataclass(slots=True)
class SummaryResult:
    text: str
    tokens: int
    kept: int = 0
    candidates: int = 0
    dropped_superseded: int = 0
    dropped_restricted: int = 0
    dropped_over_budget: int = 0
    compacted: int = 0  # kept sentences shown as their fact-carrying clauses only
    expanded: int = 0
    sections: dict[str, int] = field(default_factory=dict)


@dataclass(slots=True)
class _Cand:
    info: SentenceInfo
    pos: int
    msg_index: int
    role: str
    cats: frozenset[str] = frozenset()
    carried: bool = False
    text: str = ""
    cost: int = 0
    priority: float = 0.0
    full_text: str | None = None  # set when `text` is the compact form
    full_cost: int = 0


def build_summary(
    *,
    messages: Sequence[MessageData],
    max_tokens: int,
    question: str = "",
    later_messages: Sequence[MessageData] = (),
    mask: Callable[[str], str] | None = None,
    is_stale: Callable[[frozenset[str]], bool] | None = None,
    cache: TokenCache | None = None,
    encoding: str | None = None,
    previous_summary: str | None = None,
    is_restricted: Callable[[frozenset[str]], bool] | None = None,
    already_shown: Sequence[str] = (),
) -> SummaryResult:
    """Structured extractive summary of `messages` within max_tokens.

    `later_messages` (e.g. the recent window) are not summarized, but their
    corrections still retire older sentences. `mask` runs on every kept
    sentence before it is counted. `previous_summary` (a rolling summary
    written earlier, by this function or by a model) is folded in first:
    all of its sentences are carried (they were already judged worth
    keeping), unless a later correction or `is_stale` retires them.
    `is_restricted` drops sentences about content the reader may not see;
    sentences identical to one in `already_shown` (e.g. the canvas block's
    node texts) are not repeated.
    """
    enc = cache.encoding if cache is not None else encoding

    def count(t: str) -> int:
        return count_tokens(t, encoding=enc)

    empty = SummaryResult(text="", tokens=0)
    if max_tokens <= 0 or not (messages or previous_summary):
        return empty

    stream: list[tuple[MessageData, bool, bool]] = []  # (message, summarize?, carried summary?)
    if previous_summary:
        stream.append((MessageData(id="previous-summary", role="user", content=previous_summary), True, True))
    stream.extend((m, True, False) for m in messages)
    stream.extend((m, False, False) for m in later_messages)

    cands: list[_Cand] = []
    corrections: list[tuple[int, SentenceInfo]] = []
    questions: list[frozenset[str]] = []
    seen: set[str] = {_norm(x) for text in already_shown for x in split_sentences(text)}
    pos = 0
    for mi, (m, summarize, carried) in enumerate(stream):
        if m.role == "tool":
            continue  # tool output is data about the world, not conversation decisions
        for info in analyze_message(m, cache=cache):
            pos += 1
            if _MARKER_ONLY_RE.match(info.text):
                continue  # a statement the history filters already retired
            if _SENTENCE_MARKER_RE.search(info.text) and not (
                classify_sentence(_SENTENCE_MARKER_RE.sub("", info.text))
                & {"number", "negation", "constraint"}
            ):
                continue  # what is left of a partly retired sentence carries no fact of its own
            if carried:
                pass  # sentences of a stored summary have no message position
            else:
                info = replace_info(info, position=mi)
            if "correction" in info.categories and m.role == "user":
                corrections.append((pos, info))
            if not summarize or info.norm in seen:
                continue
            cats = info.categories
            if m.role != "user" and not carried:
                # Only the user corrects or asks; a reply saying "instead" is advice.
                cats = cats - {"correction", "question"}
            if "correction" in cats and not (cats & _VALUE_CATS) and not info.value_text:
                # "the weights thing is scary actually": a cue word without a value ranks as a statement.
                cats = (cats - {"correction"}) | {"decision"}
            if not cats:
                if not carried:
                    continue
                cats = frozenset({"decision"})
            if cats == frozenset({"name"}) and m.role != "user":
                continue  # a capitalised word alone is not worth keeping from replies
            if not carried and cats <= _REACTION_CATS and len(info.terms - _REACTION_WORDS) < 2:
                continue  # "no!", "lol no", "not really…": a reaction, not a fact
            if "question" in cats:
                if len(info.terms) < 3 or any(jaccard(info.terms, q) >= 0.6 for q in questions):
                    continue  # "Thoughts?" and re-asked questions
                questions.append(info.terms)
            seen.add(info.norm)
            cands.append(_Cand(info=info, pos=pos, msg_index=mi, role=m.role, cats=cats, carried=carried))
    result = SummaryResult(text="", tokens=0, candidates=len(cands))

    # Corrections retire the earlier statements they replace.
    alive: list[_Cand] = []
    for c in cands:
        superseded = is_corrected_by(c.info, [corr for cpos, corr in corrections if cpos > c.pos])
        if not superseded and is_stale is not None:
            superseded = is_stale(c.info.terms)
        if superseded:
            result.dropped_superseded += 1
        elif is_restricted is not None and is_restricted(c.info.terms):
            result.dropped_restricted += 1
        else:
            alive.append(c)

    q_terms = extract_terms(question) if question else frozenset()
    total_pos = max(pos, 1)
    for c in alive:
        cats = c.cats
        base: float = max(_PRIORITY[k] for k in cats) + 3 * (len(cats) - 1)
        if c.role == "user":
            base += 8
        elif not c.carried:
            base -= 5
        if c.carried:
            base += 30  # kept by an earlier fold already: losing it now would be drift
        if q_terms:
            base += 60 * match_score(q_terms, c.info.terms)
        base += 5 * c.pos / total_pos
        c.priority = base
        text = escape_delimiters(_shown_text(c))
        c.text = mask(text) if mask is not None else text
        c.cost = count(f"- {c.text}") + 1

    frame = f"{SUMMARY_OPEN}\n{SUMMARY_HEADER}\n"
    frame_cost = count(frame) + count(f"\n{SUMMARY_CLOSE}") + 1
    section_cost = {s: count(f"{s}:") + 1 for s in SECTIONS}
    if frame_cost >= max_tokens:
        result.dropped_over_budget = len(alive)
        return result

    # Coverage first, then detail: every candidate is first packed in its compact form (the clauses
    # that carry its numbers, rules, corrections or the question's words), so one long sentence
    # cannot crowd out three facts; then chosen items get their full sentence back, in priority
    # order, while the budget allows.
    order = sorted(alive, key=lambda c: (-c.priority, c.pos))
    chosen: list[_Cand] = []
    used = frame_cost
    open_sections: set[str] = set()
    for c in order:
        compact = _compact(_shown_text(c), q_terms)
        if compact is not None:
            short = mask(escape_delimiters(compact)) if mask is not None else escape_delimiters(compact)
            short_cost = count(f"- {short}") + 1
            if short_cost < c.cost:
                c.full_text, c.full_cost = c.text, c.cost
                c.text, c.cost = short, short_cost
        sec = _section(c.cats)
        extra = c.cost + (0 if sec in open_sections else section_cost[sec])
        if used + extra > max_tokens:
            continue
        used += extra
        open_sections.add(sec)
        chosen.append(c)
    for c in chosen:
        if c.full_text is not None and used + c.full_cost - c.cost <= max_tokens:
            used += c.full_cost - c.cost
            c.text, c.cost = c.full_text, c.full_cost
            result.expanded += 1
    result.compacted = sum(1 for c in chosen if c.full_text is not None and c.text != c.full_text)

    while chosen:
        text, sections = _render(chosen)
        tokens = count(text)
        if tokens <= max_tokens:
            result.text, result.tokens, result.sections = text, tokens, sections
            break
        chosen.pop()  # estimates were short: drop the lowest priority and re-measure
    result.kept = len(chosen)
    result.dropped_over_budget = len(alive) - len(chosen)
    return result


# Clause boundaries inside a sentence; not "03:00" or "1,000".
_CLAUSE_END_RE = re.compile(r"(?<=[，；;：])|(?<=[,:])(?!\d)")
_STRONG = frozenset({"correction", "negation", "number", "constraint"})


@functools.lru_cache(maxsize=8192)
def _clauses(sentence: str) -> tuple[tuple[str, bool, frozenset[str]], ...]:
    """(raw clause, carries a fact?, terms) per clause; raw, so adjacent ones rejoin exactly."""
    return tuple(
        (raw, bool(classify_sentence(raw) & _STRONG), extract_terms(raw))
        for raw in _CLAUSE_END_RE.split(sentence)
        if raw.strip()
    )


def _compact(sentence: str, q_terms: frozenset[str]) -> str | None:
    """The clauses of `sentence` that carry a fact (a number, a rule, a correction, the question's
    words), verbatim, with "…" where clauses were left out. None when nothing can be left out."""
    analysed = _clauses(sentence)
    if len(analysed) < 2:
        return None
    clauses = [raw for raw, _, _ in analysed]
    keep = [i for i, (_, strong, terms) in enumerate(analysed) if strong or (q_terms and terms & q_terms)]
    # A kept clause of fewer than two words besides its numbers ("…, at 73") says nothing without
    # the clause before it, which names what the number is about.
    keep = sorted(
        set(keep) | {i - 1 for i in keep if i > 0 and sum(1 for t in analysed[i][2] if not t.isdigit()) < 2}
    )
    if not keep or len(keep) == len(clauses):
        return None
    out = []
    for n, i in enumerate(keep):
        clause = clauses[i]
        if n == 0:
            out.append("…" if i > 0 else "")
            clause = clause.lstrip()
        elif keep[n - 1] != i - 1:
            out.append(" … ")
            clause = clause.lstrip()
        if i == keep[-1]:
            clause = clause.rstrip().rstrip("，；;：,:")
        out.append(clause)
    if keep[-1] < len(clauses) - 1:
        out.append("…")
    return "".join(out)


def _render(chosen: Sequence[_Cand]) -> tuple[str, dict[str, int]]:
    by_section: dict[str, list[_Cand]] = {}
    for c in chosen:
        by_section.setdefault(_section(c.cats), []).append(c)
    lines = [SUMMARY_OPEN, SUMMARY_HEADER]
    counts = {}
    for sec in SECTIONS:
        items = by_section.get(sec)
        if not items:
            continue
        counts[sec] = len(items)
        lines.append(f"{sec}:")
        lines.extend(f"- {c.text}" for c in sorted(items, key=lambda c: c.pos))
    lines.append(SUMMARY_CLOSE)
    return "\n".join(lines), counts


def wrap_model_summary(text: str) -> str:
    """Put a model-written rolling summary in the same data delimiters (never nested)."""
    inner = strip_summary_frame(text).strip()
    return f"{SUMMARY_OPEN}\n{SUMMARY_HEADER}\n{escape_delimiters(inner)}\n{SUMMARY_CLOSE}"


def should_fold(*, recent_tokens: int, recent_budget: int, threshold: float = FOLD_THRESHOLD) -> bool:
    """Time to fold older turns into the summary: the window is >= 70% full."""
    if recent_budget <= 0:
        return recent_tokens > 0
    return recent_tokens >= threshold * recent_budget
