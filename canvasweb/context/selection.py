"""Canvas selection: which nodes may go into the prompt, in what order, and why.

Order of ranks (the renderer and budget fitter rely on it):
  1. pinned anchors (every visible one, wherever it is), by effective distance;
  2. viewport nodes: effective distance = distance from the viewport centre
     / weight, ascending, within radius = radius_factor * half-diagonal of the
     visible rectangle (so the radius follows zoom);
  3. 1-hop neighbours over edges of what 1-2 selected;
  4. nodes whose text matches the question, anywhere on the canvas.
Superseded and archived nodes never go in; nodes above the asking role's
level never go in; secret nodes (owner only) go in as placeholders.

Scaling: `CanvasIndex.build` runs once per canvas version (cache it on the
Scaling: the index (canvas_index.CanvasIndex, built once per canvas version) holds
  * a uniform grid per weight band (band k holds weights in (2^(k-1), 2^k]).
    A band is searched out to radius * 2^k in raw distance, ring by ring from
    the viewport centre, stopping as soon as the nearest unvisited ring cannot
    beat the current k-th best effective distance. Work is therefore
    proportional to the cells near the viewport, not to the canvas size; if
    the ring walk would visit more cells than the band has occupied cells (a
    far zoom-out or an empty region), it switches to scanning the occupied
    cells sorted by distance. Pure Python, no numpy needed.
  * an inverted keyword index (term -> node indices) with idf weights, so
    question matching touches only the posting lists of the question's terms.
Ties break on node id (nodes are sorted by id in the index), so the result
does not depend on the order of the input list.
"""

from __future__ import annotations

import bisect
import heapq
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from .answer_kinds import asked_kinds, stated_kinds
from .canvas_index import _ARCHIVED, _OK, _STATUS_REASON, _SUPERSEDED, CanvasIndex, _Band
from .ranking import NodeTextIndex, hybrid_scores, node_decay
from .spatial_scan import _Exclusions, _scan_band
from .text import extract_terms
from .types import (
    ROLE_LEVEL,
    ExcludedNode,
    NodeData,
    SelectionConfig,
    Viewport,
)

__all__ = [
    "GROUP_ANCHOR",
    "GROUP_LINKED",
    "GROUP_QUESTION",
    "GROUP_VIEWPORT",
    "_ARCHIVED",
    "_OK",
    "_SUPERSEDED",
    "Candidate",
    "CanvasIndex",
    "NodeTextIndex",
    "Selection",
    "_Band",
    "naive_linear_select",
    "select_nodes",
]

_QUESTION_POSTINGS_BUDGET = 20_000  # posting entries walked per question, at most

GROUP_ANCHOR = "anchor"
GROUP_VIEWPORT = "viewport"
GROUP_LINKED = "linked"
GROUP_QUESTION = "question"


@dataclass(slots=True)
class Candidate:
    node: NodeData
    rank: int
    group: str
    reason: str
    effective_distance: float
    match_score: float | None = None
    placeholder: bool = False  # secret node: render secret_placeholder, never content


@dataclass(slots=True)
class Selection:
    candidates: list[Candidate]
    excluded: list[ExcludedNode]
    excluded_counts: dict[str, int]
    radius: float
    stats: dict[str, int] = field(default_factory=dict)


# ------------------------------------------------------------------ selection
def select_nodes(
    *,
    index: CanvasIndex,
    viewport: Viewport,
    role: str,
    question: str = "",
    config: SelectionConfig | None = None,
    limit: int | None = None,
    now: str | None = None,
    question_vector: Sequence[float] | None = None,
    node_vectors: dict[str, Sequence[float]] | None = None,
    question_memo: dict[str, dict[int, float]] | None = None,
) -> Selection:
    """Rank the nodes the asking role may see for this viewport and question.

    `question_memo`: a dict kept for one compile; the question's scores over the canvas depend on
    neither the viewport nor the limit, so a second selection in the same compile (the narrowed
    canvas block) reuses them instead of walking the postings again (half of a 100,000-node compile).

    `now` (ISO 8601; default: the newest updated_at on the canvas) ages
    unpinned nodes (SelectionConfig.decay_*). With `question_vector` and
    `node_vectors`, question matching fuses BM25 with embedding similarity.
    """
    cfg = config or SelectionConfig()
    role_level = ROLE_LEVEL[role]
    k = max(1, min(limit or cfg.max_candidates, cfg.max_candidates))
    radius = cfg.radius_factor * viewport.half_diagonal
    qx, qy = viewport.x, viewport.y
    excl = _Exclusions(cfg.report_limit)
    stats: dict[str, int] = {}
    nodes = index.nodes
    weights = index.weights
    decay = node_decay(index, now=now, half_life_days=cfg.decay_half_life_days, floor=cfg.decay_floor)

    def eff_of(i: int) -> float:
        n = nodes[i]
        d = math.hypot(n.x - qx, n.y - qy) / weights[i]
        return d / decay[i] if decay is not None else d

    chosen: list[Candidate] = []
    taken: dict[int, Candidate] = {}

    def take(i: int, group: str, reason: str, eff: float, score: float | None = None) -> None:
        n = nodes[i]
        cand = Candidate(
            node=n,
            rank=len(chosen) + 1,
            group=group,
            reason=reason,
            effective_distance=eff,
            match_score=score,
            placeholder=n.sensitivity == "secret",
        )
        taken[i] = cand
        chosen.append(cand)

    # 1. anchors: always in (if visible), however far away.
    for i in index.pinned_ineligible:
        st = index.status[i]
        excl.add(nodes[i].id, _STATUS_REASON[st], "pinned")
    anchor_list = []
    for i in index.anchors:
        if index.level[i] > role_level:
            excl.add(nodes[i].id, "not_visible", "pinned")
            continue
        anchor_list.append((eff_of(i), i))
    anchor_list.sort()
    for eff, i in anchor_list:
        take(i, GROUP_ANCHOR, "anchor", eff)

    # 2. viewport: k best by effective distance within the radius.
    heap: list[tuple[float, int]] = []
    for band in index.bands:
        _scan_band(
            band,
            index=index,
            qx=qx,
            qy=qy,
            radius=radius,
            k=k,
            heap=heap,
            role_level=role_level,
            excl=excl,
            stats=stats,
            decay=decay,
        )
    stats["viewport_limited"] = excl.counts.get("over_budget", 0)
    for neg_eff, neg_i in sorted(heap, key=lambda t: (-t[0], -t[1])):
        take(-neg_i, GROUP_VIEWPORT, "viewport", -neg_eff)

    # 3. 1-hop neighbours of what is selected so far, in the order of their source.
    sources = list(chosen)
    linked = 0
    for src in sources:
        si = index.pos[src.node.id]
        adj = index.adjacency.get(si)
        if not adj:
            continue
        nbrs = []
        for j, ei in adj:
            if j in taken:
                continue
            st = index.status[j]
            if st:
                excl.add(nodes[j].id, _STATUS_REASON[st], f"linked from {src.node.id}")
                continue
            if index.level[j] > role_level:
                excl.add(nodes[j].id, "not_visible", f"linked from {src.node.id}")
                continue
            nbrs.append((eff_of(j), j, ei))
        nbrs.sort()
        for eff, j, ei in nbrs[: cfg.max_neighbours_per_node]:
            if j in taken or linked >= max(8, k // 2):
                continue
            e = index.edges[ei]
            take(j, GROUP_LINKED, f"linked:{e.relation}:{src.node.id}", eff)
            linked += 1

    # 4. question matches anywhere on the canvas (inverted index, idf-weighted):
    #    best score first, nearest first among equal scores.
    q_terms = extract_terms(question) if question else frozenset()
    if q_terms and index.n_indexed:
        by_score: dict[float, list[int]] = {}
        matched = 0
        memo_key = f"{role_level}:{cfg.max_question_matches}"
        cached = question_memo.get(memo_key) if question_memo is not None else None
        if cached is not None:
            scores = cached
        else:
            scores = _question_scores(index, q_terms)
            if index.text_index is not None:
                scores = hybrid_scores(
                    index,
                    question,
                    scores,
                    decay=decay,
                    question_vector=question_vector,
                    node_vectors=node_vectors,
                    limit=cfg.max_question_matches,
                )
            scores = _feedback_scores(index, scores, q_terms, role_level)
            scores = _answer_kind_scores(index, scores, question, cfg.max_question_matches)
            scores = _replacement_scores(index, scores, question, cfg.max_question_matches)
            if question_memo is not None:
                question_memo[memo_key] = scores
        for i, s in scores.items():
            if s <= cfg.question_min_score or index.level[i] > role_level:
                continue  # invisible matches are never reported: the match itself is information
            matched += 1
            if i in taken:
                taken[i].match_score = round(s, 4)  # already in for another reason
                continue
            by_score.setdefault(s, []).append(i)
        want = cfg.max_question_matches
        for s in sorted(by_score, reverse=True):
            if want <= 0:
                break
            group = by_score[s]
            best = heapq.nsmallest(want, ((eff_of(i), i) for i in group))
            for eff, i in best:
                take(i, GROUP_QUESTION, "question_match", eff, round(s, 4))
            want -= len(best)
        stats["question_matches"] = matched

    return Selection(
        candidates=chosen,
        excluded=excl.items,
        excluded_counts=dict(sorted(excl.counts.items())),
        radius=radius,
        stats=stats,
    )


def _question_scores(index: CanvasIndex, q_terms: frozenset[str]) -> dict[int, float]:
    """Share of the question's idf weight each node matches (0..1], via posting lists.

    Rare terms are visited first; terms in more than 10% of a large canvas's
    nodes only add to nodes already found, and the total work is bounded.
    """
    n = max(index.n_indexed, 1)
    common_cut = max(200, int(0.1 * n)) if n >= 1000 else None
    plists = {t: index.postings.get(t, ()) for t in q_terms}
    idf = {t: math.log(1.0 + n / (len(p) or 1)) for t, p in plists.items()}
    total = sum(idf.values()) or 1.0
    acc: dict[int, float] = {}
    budget = _QUESTION_POSTINGS_BUDGET
    for t in sorted(plists, key=lambda t: (len(plists[t]), t)):
        plist = plists[t]
        if not plist:
            continue
        w = idf[t] / total
        if (common_cut is not None and len(plist) > common_cut) or len(plist) > budget:
            if len(acc) < len(plist):  # credit only nodes already matched by rarer terms
                for i in list(acc):
                    if _contains_sorted(plist, i):
                        acc[i] += w
            continue
        budget -= len(plist)
        for i in plist:
            acc[i] = acc.get(i, 0.0) + w
    return acc


# Pseudo-relevance feedback: people ask in other words than a note uses ("what flavour did they pick
# for the dessert?" for "Cake: ... lemon-elderflower"), but the best direct match often names the
# subject ("Cake tasting done (3 flavours tried)"). The rarer words of the best matches then find
# their neighbours in meaning, at a fraction of the seed's score (always below the seed).
FEEDBACK_SEEDS = 2
FEEDBACK_WEIGHT = 0.45
FEEDBACK_MIN_SEED = 0.6  # a seed scores at least this share of the best match
FEEDBACK_MAX_DF_SHARE = 0.05  # an expansion word is in 2 to max(4, this share) of the nodes


def _feedback_scores(
    index: CanvasIndex, scores: dict[int, float], q_terms: frozenset[str], role_level: int
) -> dict[int, float]:
    visible = [(s, i) for i, s in scores.items() if s > 0 and index.level[i] <= role_level]
    if not visible:
        return scores
    visible.sort(key=lambda t: (-t[0], t[1]))
    best = visible[0][0]
    n = max(index.n_indexed, 1)
    max_df = max(4, int(FEEDBACK_MAX_DF_SHARE * n))
    out = dict(scores)
    for seed_score, seed in visible[:FEEDBACK_SEEDS]:
        if seed_score < FEEDBACK_MIN_SEED * best:
            break
        node = index.nodes[seed]
        expansion = {}
        for t in extract_terms(node.content):
            if t in q_terms or len(t) < 2 or any(ch.isdigit() for ch in t):
                continue  # values are not topics
            plist = index.postings.get(t, ())
            if 2 <= len(plist) <= max_df:
                expansion[t] = math.log(1.0 + n / len(plist))
        total = sum(expansion.values())
        if not total:
            continue
        matched: dict[int, float] = {}
        for t, w in expansion.items():
            for i in index.postings[t]:
                if i != seed:
                    matched[i] = matched.get(i, 0.0) + w
        for i, w in matched.items():
            fb = FEEDBACK_WEIGHT * seed_score * math.sqrt(w / total)
            if fb > out.get(i, 0.0):
                out[i] = round(fb, 6)
    return out


# A match that states a value of the kind the question asks for ("what time…" and a note with a time)
# is lifted by this factor; only the best matches are looked at, so a note with no shared word is
# never lifted from nothing.
ANSWER_KIND_LIFT = 1.0
ANSWER_KIND_CANDIDATES_PER_MATCH = 4


def _answer_kind_scores(
    index: CanvasIndex, scores: dict[int, float], question: str, want: int
) -> dict[int, float]:
    asked = asked_kinds(question)
    if not asked or not scores:
        return scores
    stated: dict[str, frozenset[str]] = index.derived("answer-kinds", dict)
    top = heapq.nlargest(
        ANSWER_KIND_CANDIDATES_PER_MATCH * want, scores.items(), key=lambda kv: (kv[1], -kv[0])
    )
    out = dict(scores)
    for i, s in top:
        node = index.nodes[i]
        kinds = stated.get(node.id)
        if kinds is None:
            kinds = stated[node.id] = stated_kinds(node.content)
        if kinds & asked:
            out[i] = round(s * (1.0 + ANSWER_KIND_LIFT), 6)
    return out


# A card that replaced a superseded or archived one is the newest statement of its subject. Among
# look-alike matches it is the likelier answer, most of all when the question asks for the value as it
# stands now ("at this point", "in the end", "最后", "到底", "现在"): such a question is asked because the
# value changed. Matches are lifted; and such a question seats the replacing cards that share no word
# with it at REPLACEMENT_FLOOR of the best match (the changed value, asked for in other words).
REPLACEMENT_LIFT = 0.15
REPLACEMENT_LIFT_NOW = 1.0
REPLACEMENT_FLOOR = 0.15
_NOW_RE = re.compile(
    r"\b(?:now|currently|current|at this point|at the moment|these days|in the end|final|finally|"
    r"actually|latest|as it stands|as things stand|ended up|after all|anymore|any more)\b|"
    r"最后|最终|到底|究竟|现在|目前|眼下|如今|现行|最新|实际上|敲定|定下来|改成|改为|后来",
    re.I,
)


def asks_current_value(question: str) -> bool:
    """The question asks for a value as it stands after changes ("what's the price at this point?")."""
    return bool(_NOW_RE.search(question))


def _replacement_scores(
    index: CanvasIndex, scores: dict[int, float], question: str, want: int
) -> dict[int, float]:
    if not scores:
        return scores
    replacements = index.replacements()
    if not replacements:
        return scores
    now = asks_current_value(question)
    lift = REPLACEMENT_LIFT_NOW if now else REPLACEMENT_LIFT
    top = heapq.nlargest(
        ANSWER_KIND_CANDIDATES_PER_MATCH * want, scores.items(), key=lambda kv: (kv[1], -kv[0])
    )
    out = dict(scores)
    for i, s in top:
        if i in replacements:
            out[i] = round(s * (1.0 + lift), 6)
    if now and REPLACEMENT_FLOOR:
        floor = round(REPLACEMENT_FLOOR * max(scores.values()), 6)
        for i in replacements:
            out.setdefault(i, floor)
    return out


def _contains_sorted(values: Sequence[int], x: int) -> bool:
    j = bisect.bisect_left(values, x)
    return j < len(values) and values[j] == x


def naive_linear_select(*, nodes: Sequence[NodeData], viewport: Viewport, k: int = 15) -> list[NodeData]:
    """Reference/baseline: score every node by distance / weight, keep the nearest k.

    No supersede, archive or role filtering and no index: what a first
    implementation would do. Used by benchmarks only.
    """
    qx, qy = viewport.x, viewport.y
    scored = [(math.hypot(n.x - qx, n.y - qy) / max(n.weight, 0.05), n.id, n) for n in nodes]
    return [t[2] for t in heapq.nsmallest(k, scored, key=lambda t: (t[0], t[1]))]
