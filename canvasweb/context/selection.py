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
revision number) and holds
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
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from .ranking import NodeTextIndex, parse_timestamp, hybrid_scores, node_decay
from .redaction import build_secret_masker, secret_fingerprint, secret_values
from .text import extract_terms
from .types import (
    ROLE_LEVEL,
    SENSITIVITY_LEVEL,
    EdgeData,
    ExcludedNode,
    NodeData,
    SelectionConfig,
    Viewport,
)

_OK, _SUPERSEDED, _ARCHIVED = 0, 1, 2
_FILTER_DF_CAP = 500  # terms in more nodes than this do not nominate candidates
_FILTER_MAX_CANDIDATES = 64
_QUESTION_POSTINGS_BUDGET = 20_000  # posting entries walked per question, at most
_STATUS_REASON = {_SUPERSEDED: "superseded", _ARCHIVED: "archived"}

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


class _Band:
    __slots__ = ("wmax", "cells", "occupied")

    def __init__(self, wmax: float) -> None:
        self.wmax = wmax
        self.cells: dict[tuple[int, int], list[tuple[float, float, float, int]]] = {}
        self.occupied: list[tuple[int, int]] = []


class _Exclusions:
    """Collects exclusions: exact counts, listed ids capped per reason."""

    __slots__ = ("limit", "items", "counts", "seen")

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.items: list[ExcludedNode] = []
        self.counts: dict[str, int] = {}
        self.seen: set[tuple[str, str]] = set()

    def add(self, node_id: str, reason: str, detail: str = "") -> None:
        key = (node_id, reason)
        if key in self.seen:
            return
        self.seen.add(key)
        n = self.counts.get(reason, 0)
        self.counts[reason] = n + 1
        if n < self.limit:
            self.items.append(ExcludedNode(node_id=node_id, reason=reason, detail=detail))


class CanvasIndex:
    """Immutable per-canvas-version index. Build once, compile many times."""

    def __init__(self) -> None:  # use CanvasIndex.build
        self.nodes: list[NodeData] = []
        self.pos: dict[str, int] = {}
        self.status: list[int] = []
        self.level: list[int] = []
        self.pinned: list[bool] = []
        self.weights: list[float] = []
        self.anchors: list[int] = []
        self.pinned_ineligible: list[int] = []
        self.bands: list[_Band] = []
        self.cell_size = 1.0
        self.edges: list[EdgeData] = []
        self.adjacency: dict[int, list[tuple[int, int]]] = {}  # idx -> [(neighbour idx, edge index)]
        self.postings: dict[str, list[int]] = {}
        self.n_indexed = 0
        self.text_index: NodeTextIndex | None = None
        self.updated_ts: list[float | None] = []
        self._secret_masker: Callable[[str], str] | None = None
        self._secret_fingerprint = ""
        self._stale = None
        self._restricted: dict[int, tuple[list[frozenset[str]], dict[str, list[int]]]] = {}
        self._filter_memo: dict[tuple, bool] = {}

    # ------------------------------------------------------------- building
    @classmethod
    def build(
        cls,
        *,
        nodes: Iterable[NodeData],
        edges: Iterable[EdgeData] = (),
        cell_size: float | None = None,
        min_weight: float = 0.05,
        text_index: NodeTextIndex | None = None,
    ) -> CanvasIndex:
        """`text_index`: a NodeTextIndex the caller keeps in sync with these nodes
        (add/remove per committed change); built here when absent."""
        self = cls()
        # Sorting by id makes every tie-break (and so the output) independent
        # of the order rows came from the database.
        by_id: dict[str, NodeData] = {}
        for n in nodes:
            by_id[n.id] = n
        self.nodes = [by_id[k] for k in sorted(by_id)]
        self.pos = {n.id: i for i, n in enumerate(self.nodes)}
        count = len(self.nodes)
        self.status = [
            _SUPERSEDED if n.superseded_by else (_ARCHIVED if n.archived else _OK) for n in self.nodes
        ]
        self.level = [SENSITIVITY_LEVEL[n.sensitivity] for n in self.nodes]
        self.pinned = [n.pinned for n in self.nodes]
        self.weights = [max(n.weight, min_weight) for n in self.nodes]
        self.anchors = [i for i in range(count) if self.pinned[i] and self.status[i] == _OK]
        self.pinned_ineligible = [i for i in range(count) if self.pinned[i] and self.status[i] != _OK]
        self.cell_size = cell_size or self._auto_cell_size()
        self._build_bands()
        self._build_edges(edges)
        self._build_postings()
        self.updated_ts = [parse_timestamp(n.updated_at) for n in self.nodes]
        if text_index is None:
            text_index = NodeTextIndex()
            for n in self.nodes:
                text_index.add(n)
        self.text_index = text_index
        return self

    def _auto_cell_size(self) -> float:
        # ~4 nodes per cell on a uniform canvas; clustered canvases get denser
        # cells, which the ring walk handles fine.
        if not self.nodes:
            return 256.0
        xs = [n.x for n in self.nodes]
        ys = [n.y for n in self.nodes]
        w = max(xs) - min(xs)
        h = max(ys) - min(ys)
        area = max(w, 1.0) * max(h, 1.0)
        return max(math.sqrt(area / len(self.nodes) * 4.0), 1.0)

    def _build_bands(self) -> None:
        bands: dict[int, _Band] = {}
        cell = self.cell_size
        for i, n in enumerate(self.nodes):
            w = self.weights[i]
            k = math.ceil(math.log2(w) - 1e-12)
            band = bands.get(k)
            if band is None:
                band = bands[k] = _Band(2.0**k)
            key = (math.floor(n.x / cell), math.floor(n.y / cell))
            bucket = band.cells.get(key)
            if bucket is None:
                bucket = band.cells[key] = []
                band.occupied.append(key)
            bucket.append((n.x, n.y, w, i))
        self.bands = [bands[k] for k in sorted(bands)]

    def _build_edges(self, edges: Iterable[EdgeData]) -> None:
        valid = [e for e in edges if e.source in self.pos and e.target in self.pos and e.source != e.target]
        self.edges = sorted(valid, key=lambda e: (e.source, e.target, e.relation, e.id))
        adj: dict[int, list[tuple[int, int]]] = {}
        for ei, e in enumerate(self.edges):
            s, t = self.pos[e.source], self.pos[e.target]
            adj.setdefault(s, []).append((t, ei))
            adj.setdefault(t, []).append((s, ei))
        self.adjacency = adj

    def _build_postings(self) -> None:
        postings: dict[str, list[int]] = {}
        indexed = 0
        for i, n in enumerate(self.nodes):
            # Secret text is never indexed: a question must not be able to
            # probe a secret's value by whether its placeholder shows up.
            if self.status[i] != _OK or n.sensitivity == "secret":
                continue
            indexed += 1
            terms = extract_terms(n.content + " " + " ".join(n.tags))
            for t in terms:
                lst = postings.get(t)
                if lst is None:
                    postings[t] = [i]
                else:
                    lst.append(i)
        self.postings = postings
        self.n_indexed = indexed

    # ------------------------------------------------------------ accessors
    def node(self, node_id: str) -> NodeData | None:
        i = self.pos.get(node_id)
        return None if i is None else self.nodes[i]

    @property
    def secret_masker(self) -> Callable[[str], str]:
        """Masks values found in any secret node (any status) wherever they appear."""
        if self._secret_masker is None:
            values = secret_values(n.content for n in self.nodes if n.sensitivity == "secret")
            self._secret_masker = build_secret_masker(values)
            self._secret_fingerprint = secret_fingerprint(values)
        return self._secret_masker

    @property
    def secret_fingerprint(self) -> str:
        """Changes when the set of masked secret values changes (a cache-key part)."""
        self.secret_masker  # noqa: B018 - computes both
        return self._secret_fingerprint

    def edges_among(self, node_ids: Sequence[str]) -> list[EdgeData]:
        """Edges whose both ends are in node_ids, in index (stable) order."""
        wanted = {self.pos[i] for i in node_ids if i in self.pos}
        seen: set[int] = set()
        for i in wanted:
            for j, ei in self.adjacency.get(i, ()):
                if j in wanted:
                    seen.add(ei)
        return [self.edges[ei] for ei in sorted(seen)]

    # ---------------------------------------------------- history filters
    # Chat history and the summary are plain text, so they are checked
    # sentence by sentence against two term indexes built lazily per index:
    #   * stale: superseded nodes (with their replacement) and archived nodes;
    #   * restricted: nodes above a role's level (internal/secret for a viewer).
    # Candidate nodes come only from the sentence's rarer terms (posting list
    # <= _FILTER_DF_CAP), so a sentence costs a few set operations however
    # big the canvas is. Results are memoized per term set.

    def is_stale_text(self, terms: frozenset[str]) -> bool:
        """True if a sentence restates a superseded node (not its replacement) or an archived node.

        Superseded: the sentence contains a term only the old node has (its
        old value), fewer terms only the new node has, and covers >= half of
        the old node's terms. Archived: >= 3 shared terms covering >= 60%.
        """
        if not terms:
            return False
        key = ("stale", terms)
        hit = self._filter_memo.get(key)
        if hit is None:
            hit = self._check_stale(terms)
            self._memo_put(key, hit)
        return hit

    def is_restricted_text(self, terms: frozenset[str], *, role: str) -> bool:
        """True if a sentence is mostly about a node this role may not see.

        >= 2 shared terms covering >= 60% of the smaller of the two term sets.
        """
        role_level = ROLE_LEVEL[role]
        if not terms or role_level >= 2:
            return False
        key = ("restricted", role_level, terms)
        hit = self._filter_memo.get(key)
        if hit is None:
            hit = self._check_restricted(terms, role_level)
            self._memo_put(key, hit)
        return hit

    def _memo_put(self, key: tuple, value: bool) -> None:
        if len(self._filter_memo) > 50_000:
            self._filter_memo.clear()
        self._filter_memo[key] = value

    @staticmethod
    def _candidates(terms: frozenset[str], post: dict[str, list[int]]) -> list[int]:
        seen: dict[int, None] = {}
        for t in sorted(terms):
            plist = post.get(t)
            if plist and len(plist) <= _FILTER_DF_CAP:
                for p in plist:
                    seen[p] = None
                    if len(seen) >= _FILTER_MAX_CANDIDATES:
                        return list(seen)
        return list(seen)

    def _check_stale(self, terms: frozenset[str]) -> bool:
        entries, post = self._stale_index()
        for p in self._candidates(terms, post):
            old, new, old_only, new_only, archived = entries[p]
            shared = len(terms & old)
            if archived:
                if shared >= 3 and shared >= 0.6 * len(old):
                    return True
                continue
            hit_old = len(terms & old_only)
            if not hit_old:
                # A value said only in the chat between the two versions ("moves to 20 October"
                # before the canvas said 27): a number shaped like the new one, not the new one,
                # on the subject both versions share.
                if not (terms & new_only) and _same_shape_number(terms - new, new_only):
                    common = old - old_only
                    on_subject = len(terms & common)
                    if on_subject >= 2 and on_subject >= 0.25 * len(common):
                        return True
                continue
            if len(terms & new_only) >= hit_old:
                continue
            if shared >= 0.5 * len(old):
                return True
            # A short mention of a long node: its retired value (a number only the old
            # node has) next to enough of the subject both versions share.
            common = old - old_only
            on_subject = len(terms & common)
            if (any(ch.isdigit() for t in terms & old_only for ch in t)
                    and on_subject >= 2 and on_subject >= 0.3 * len(common)):
                return True
        return False

    def _check_restricted(self, terms: frozenset[str], role_level: int) -> bool:
        sets, post = self._restricted_index(role_level)
        for p in self._candidates(terms, post):
            node_terms = sets[p]
            shared = len(terms & node_terms)
            if shared >= 2 and shared >= 0.6 * min(len(terms), len(node_terms)):
                return True
        return False

    def _stale_index(self):
        if self._stale is None:
            entries: list[tuple[frozenset[str], frozenset[str], frozenset[str], frozenset[str], bool]] = []
            post: dict[str, list[int]] = {}
            for i, n in enumerate(self.nodes):
                st = self.status[i]
                if st == _OK:
                    continue
                old = extract_terms(n.content)
                if st == _SUPERSEDED:
                    repl = self.node(n.superseded_by or "")
                    new = extract_terms(repl.content) if repl is not None else frozenset()
                    entry = (old, new, old - new, new - old, False)
                else:
                    entry = (old, frozenset(), old, frozenset(), True)
                for t in old:
                    post.setdefault(t, []).append(len(entries))
                entries.append(entry)
            self._stale = (entries, post)
        return self._stale

    def _restricted_index(self, role_level: int):
        got = self._restricted.get(role_level)
        if got is None:
            sets: list[frozenset[str]] = []
            post: dict[str, list[int]] = {}
            for i, n in enumerate(self.nodes):
                if self.level[i] <= role_level:
                    continue
                terms = extract_terms(n.content)
                for t in terms:
                    post.setdefault(t, []).append(len(sets))
                sets.append(terms)
            got = self._restricted[role_level] = (sets, post)
        return got


def _same_shape_number(terms: frozenset[str], reference: frozenset[str]) -> bool:
    """Some plain number in `terms` has as many digits as a plain number in `reference`."""
    lengths = {len(t) for t in reference if t.isdigit()}
    return bool(lengths) and any(t.isdigit() and len(t) in lengths for t in terms)


# ------------------------------------------------------------------ selection
def _scan_entries(
    entries: list[tuple[float, float, float, int]],
    *,
    qx: float,
    qy: float,
    radius: float,
    k: int,
    heap: list[tuple[float, int]],
    index: CanvasIndex,
    role_level: int,
    excl: _Exclusions,
    decay: list[float] | None = None,
) -> None:
    status = index.status
    level = index.level
    pinned = index.pinned
    nodes = index.nodes
    hypot = math.hypot
    for x, y, w, i in entries:
        eff = hypot(x - qx, y - qy) / w
        if decay is not None:
            eff /= decay[i]  # decay <= 1 only raises eff: the bands' lower bounds stay valid
        if eff > radius:
            n_out = excl.counts.get("out_of_range", 0)
            if n_out < excl.limit:  # list the first few (scanned nearest-first), count the rest
                excl.add(nodes[i].id, "out_of_range", f"effective distance {eff:.0f} > radius {radius:.0f}")
            else:
                excl.counts["out_of_range"] = n_out + 1
            continue
        st = status[i]
        if st:
            excl.add(nodes[i].id, _STATUS_REASON[st], f"superseded_by={nodes[i].superseded_by}" if st == 1 else "")
            continue
        if level[i] > role_level:
            excl.add(nodes[i].id, "not_visible")
            continue
        if pinned[i]:
            continue  # anchors are selected separately
        item = (-eff, -i)  # max-heap on (eff, idx): heap[0] is the worst kept
        if len(heap) < k:
            heapq.heappush(heap, item)
        elif item > heap[0]:
            heapq.heapreplace(heap, item)
            excl.counts["over_budget"] = excl.counts.get("over_budget", 0) + 1
        else:
            excl.counts["over_budget"] = excl.counts.get("over_budget", 0) + 1


def _scan_band(
    band: _Band,
    *,
    index: CanvasIndex,
    qx: float,
    qy: float,
    radius: float,
    k: int,
    heap: list[tuple[float, int]],
    role_level: int,
    excl: _Exclusions,
    stats: dict[str, int],
    decay: list[float] | None = None,
) -> None:
    cell = index.cell_size
    cells = band.cells
    icx = math.floor(qx / cell)
    icy = math.floor(qy / cell)
    raw_max = radius * band.wmax
    walk_limit = 2 * len(cells) + 9
    visited = 0
    r = 0
    kw = dict(qx=qx, qy=qy, radius=radius, k=k, heap=heap, index=index, role_level=role_level, excl=excl,
              decay=decay)
    while True:
        lower = (r - 1) * cell if r > 0 else 0.0
        if lower > raw_max:
            break
        if len(heap) >= k and lower / band.wmax > -heap[0][0]:
            break
        if r == 0:
            ring: Iterable[tuple[int, int]] = ((icx, icy),)
            visited += 1
        else:
            ring = _ring(icx, icy, r)
            visited += 8 * r
        for key in ring:
            entries = cells.get(key)
            if entries:
                stats["cells"] = stats.get("cells", 0) + 1
                _scan_entries(entries, **kw)
        if visited > walk_limit:
            _scan_rest(band, index=index, icx=icx, icy=icy, done=r, raw_max=raw_max, kw=kw, stats=stats)
            break
        r += 1


def _ring(icx: int, icy: int, r: int) -> Iterable[tuple[int, int]]:
    for dx in range(-r, r + 1):
        yield (icx + dx, icy - r)
        yield (icx + dx, icy + r)
    for dy in range(-r + 1, r):
        yield (icx - r, icy + dy)
        yield (icx + r, icy + dy)


def _scan_rest(band: _Band, *, index: CanvasIndex, icx: int, icy: int, done: int, raw_max: float, kw: dict, stats: dict[str, int]) -> None:
    """Fallback for sparse/zoomed-out queries: occupied cells sorted by distance."""
    cell = index.cell_size
    qx, qy = kw["qx"], kw["qy"]
    heap = kw["heap"]
    k = kw["k"]
    rest: list[tuple[float, tuple[int, int]]] = []
    for key in band.occupied:
        cx, cy = key
        if max(abs(cx - icx), abs(cy - icy)) <= done:
            continue
        x0, y0 = cx * cell, cy * cell
        dx = x0 - qx if qx < x0 else (qx - x0 - cell if qx > x0 + cell else 0.0)
        dy = y0 - qy if qy < y0 else (qy - y0 - cell if qy > y0 + cell else 0.0)
        d = math.hypot(dx, dy)
        if d <= raw_max:
            rest.append((d, key))
    rest.sort()
    stats["fallback_scans"] = stats.get("fallback_scans", 0) + 1
    for d, key in rest:
        if len(heap) >= k and d / band.wmax > -heap[0][0]:
            break
        stats["cells"] = stats.get("cells", 0) + 1
        _scan_entries(band.cells[key], **kw)


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
) -> Selection:
    """Rank the nodes the asking role may see for this viewport and question.

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
            band, index=index, qx=qx, qy=qy, radius=radius, k=k, heap=heap,
            role_level=role_level, excl=excl, stats=stats, decay=decay,
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
        scores = _question_scores(index, q_terms)
        if index.text_index is not None:
            scores = hybrid_scores(index, question, scores, decay=decay, question_vector=question_vector,
                                    node_vectors=node_vectors, limit=cfg.max_question_matches)
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
