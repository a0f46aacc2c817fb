"""The canvas index: everything selection needs about one canvas version, built once.

Built by `CanvasIndex.build` once per canvas version (cache it on the revision
number; index_update/ follows committed changes copy-on-write) and holds
  * a uniform grid per weight band (band k holds weights in (2^(k-1), 2^k]),
    walked by selection.py ring by ring from the viewport centre;
  * an inverted keyword index (term -> node indices) with idf weights, so
    question matching touches only the posting lists of the question's terms;
  * the BM25 node text index (ranking.NodeTextIndex);
  * the checks the compiler asks of history text: does a statement restate a
    superseded/archived node (is_stale_text), or a node above the role
    (is_restricted_text).
Nodes are sorted by id, so nothing depends on the order of the input list.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Sequence
from typing import TypeVar, cast

from .ranking import NodeTextIndex, parse_timestamp
from .redaction import build_secret_masker, secret_fingerprint, secret_values
from .text import extract_terms
from .types import (
    ROLE_LEVEL,
    SENSITIVITY_LEVEL,
    EdgeData,
    NodeData,
)

T = TypeVar("T")

_OK, _SUPERSEDED, _ARCHIVED = 0, 1, 2
_FILTER_DF_CAP = 500  # terms in more nodes than this do not nominate candidates
_FILTER_MAX_CANDIDATES = 64
_STATUS_REASON = {_SUPERSEDED: "superseded", _ARCHIVED: "archived"}
# A stale-filter entry: (old terms, replacement terms, old only, new only, archived).
_StaleEntry = tuple[frozenset[str], frozenset[str], frozenset[str], frozenset[str], bool]
_StaleIndex = tuple[list[_StaleEntry], dict[str, list[int]]]


class _Band:
    __slots__ = ("cells", "occupied", "wmax")

    def __init__(self, wmax: float) -> None:
        self.wmax = wmax
        self.cells: dict[tuple[int, int], list[tuple[float, float, float, int]]] = {}
        self.occupied: list[tuple[int, int]] = []


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
        self._stale: _StaleIndex | None = None
        self._restricted: dict[int, tuple[list[frozenset[str]], dict[str, list[int]]]] = {}
        self._filter_memo: dict[tuple[object, ...], bool] = {}
        self._derived: dict[str, object] = {}  # derived(): data computed from the nodes' contents
        # Kept by index_update.IndexUpdate: churn since the build, the edge id -> position map
        # (built on first edge change), and whether appended edges broke the build's edge order.
        self._tombstones = 0
        self._appended = 0
        self._edge_pos: dict[str, int] | None = None
        self._edges_unsorted = False

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
        among = [self.edges[ei] for ei in sorted(seen)]
        if self._edges_unsorted:
            # Appended edges (index_update) are out of the build's order: answer in the order a fresh
            # build would give.
            among.sort(key=lambda e: (e.source, e.target, e.relation, e.id))
        return among

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

    def derived(self, key: str, compute: Callable[[], T]) -> T:
        """`compute()` once per index state: an update that changes a node's text, status or a retired
        node's time starts afresh (index_update.IndexUpdate.finish), a move or an edge change does not."""
        if key not in self._derived:
            self._derived[key] = compute()
        return cast(T, self._derived[key])

    def replacements(self) -> frozenset[int]:
        """Live nodes that replaced a retired one: the target of a supersede, and a node saying the
        same "label:" as an archived node it is not older than ("Caterer: X" archived, "Caterer: Y"
        added). Computed once per index state."""
        return self.derived("replacements", self._find_replacements)

    def _find_replacements(self) -> frozenset[int]:
        out: set[int] = set()
        archived: dict[str, float] = {}  # label -> newest archive time (0.0: unknown)
        for i, n in enumerate(self.nodes):
            st = self.status[i]
            if st == _SUPERSEDED:
                j = self.pos.get(n.superseded_by or "")
                if j is not None and self.status[j] == _OK:
                    out.add(j)
            elif st == _ARCHIVED:
                label = node_label(n.content)
                if label:
                    archived[label] = max(archived.get(label, 0.0), self.updated_ts[i] or 0.0)
        if archived:
            for i, n in enumerate(self.nodes):
                if self.status[i] != _OK:
                    continue
                label = node_label(n.content)
                if label and label in archived and (self.updated_ts[i] or 0.0) >= archived[label]:
                    out.add(i)
        return frozenset(out)

    def _memo_put(self, key: tuple[object, ...], value: bool) -> None:
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
                if (
                    (
                        (shared >= 3 and shared >= 0.6 * len(old))
                        # A short echo of the archived choice ("Great, Acme Print it is", "好，就定墨点了"):
                        # mostly its words, one of them a word no live node says (its name).
                        or (shared >= 2 and shared >= 0.6 * len(terms) and _names_subject(terms & old_only))
                    )
                    and not _restates_with_other_values(terms, old)
                    and not _says_what_replaces_it(terms, old)
                ):
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
                    if (
                        on_subject >= 2
                        and on_subject >= 0.25 * len(common)
                        and _names_subject(terms & common)
                    ):
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
            if (
                any(ch.isdigit() for t in terms & old_only for ch in t)
                and on_subject >= 2
                and on_subject >= 0.3 * len(common)
                and _names_subject(terms & common)
            ):
                return True
        return False

    def _check_restricted(self, terms: frozenset[str], role_level: int) -> bool:
        sets, post = self._restricted_index(role_level)
        for p in self._candidates(terms, post):
            node_terms = sets[p]
            common = terms & node_terms
            shared = len(common)
            if shared >= 2 and shared >= 0.6 * min(len(terms), len(node_terms)):
                return True
            # A sentence wrapped in other words ("there's a thing I shouldn't spread around, we got
            # ...", "保底 15 万设成内部节点了") that repeats a value only hidden nodes hold, with two
            # words of their subject.
            if shared >= 3 and any(self._hidden_value(t, role_level, common - {t}) for t in common):
                return True
        return False

    def _hidden_value(self, term: str, role_level: int, subject: frozenset[str] = frozenset()) -> bool:
        """A term with a digit that no current node this role may see contains next to one of the
        `subject` words ("15" of "保底 15 万" stays hidden when a visible note says "15 分钟")."""
        if not any(ch.isdigit() for ch in term):
            return False
        holders = self.postings.get(term, ())
        if subject:
            about = {i for w in subject for i in self.postings.get(w, ())}
            holders = [i for i in holders if i in about]
        return all(self.level[i] > role_level for i in holders)

    def _stale_index(self) -> _StaleIndex:
        if self._stale is None:
            entries: list[_StaleEntry] = []
            post: dict[str, list[int]] = {}
            for i, n in enumerate(self.nodes):
                st = self.status[i]
                if st == _OK:
                    continue
                old = extract_terms(n.content)
                if st == _SUPERSEDED:
                    new = self._later_versions_terms(n)
                    entry = (old, new, old - new, new - old, False)
                else:
                    # old_only: what no live node says (the archived vendor's name, its price)
                    gone = frozenset(t for t in old if not self._live_term(t))
                    entry = (old, frozenset(), gone, frozenset(), True)
                for t in old:
                    post.setdefault(t, []).append(len(entries))
                entries.append(entry)
            self._stale = (entries, post)
        return self._stale

    def _live_term(self, term: str) -> bool:
        """Some live node's text has `term` (the postings hold live, non-secret nodes only)."""
        return bool(self.postings.get(term))

    def _later_versions_terms(self, n: NodeData) -> frozenset[str]:
        """The terms of every later version of a superseded node (A -> B -> C: B's and C's), so a
        sentence that states the newest value is never taken for a restatement of A."""
        out: set[str] = set()
        seen = {n.id}
        nxt = self.node(n.superseded_by or "")
        while nxt is not None and nxt.id not in seen:
            seen.add(nxt.id)
            out |= extract_terms(nxt.content)
            nxt = self.node(nxt.superseded_by or "")
        return frozenset(out)

    def _restricted_index(self, role_level: int) -> tuple[list[frozenset[str]], dict[str, list[int]]]:
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


_LABEL_RE = re.compile(r"^\s*([^:：\n]{1,40}?)\s*[:：](?!\d)")


def node_label(text: str) -> str:
    """The label a note opens with ("Venue" of "Venue: Long Gallery", "住宿" of "住宿：…"), lower-case;
    "" when it has none."""
    m = _LABEL_RE.match(text)
    return m.group(1).strip().lower() if m else ""


def _restates_with_other_values(terms: frozenset[str], old: frozenset[str]) -> bool:
    """The sentence gives the archived node's subject other numbers than the node did ("moved to
    Lurkit, 150 keys" after "Keymailer, 300 keys" was archived): a new statement, not the old one."""
    numbers = {t for t in terms if t[:1].isdigit()}
    old_numbers = {t for t in old if t[:1].isdigit()}
    return bool(numbers - old) and bool(old_numbers - terms)


# Terms (text.extract_terms) of a change: "moved to", "switched", "换成", "改用".
_CHANGE_TERMS = frozenset("换成 改成 改为 换到 改到 改用 换了 switch mov replac".split())


def _says_what_replaces_it(terms: frozenset[str], old: frozenset[str]) -> bool:
    """The sentence reports the change that retired the archived node ("康复设备从安康医疗换成仁和康复了，
    那张卡片归档吧", "we moved the print run to Papercraft"): a change word and words of its own
    beside the node's."""
    if not terms & _CHANGE_TERMS:
        return False
    own = [t for t in terms - old - _CHANGE_TERMS if not t[:1].isdigit()]
    return len(own) >= 2


def _names_subject(shared: frozenset[str]) -> bool:
    """Some shared term says what the text is about: not only numbers and lone Chinese characters
    (the 7, 月 and 日 of "7月12日" are in every date, not a subject two statements share)."""
    return any(
        not any(ch.isdigit() for ch in t) and not (len(t) == 1 and "\u3400" <= t <= "\u9fff") for t in shared
    )


def _same_shape_number(terms: frozenset[str], reference: frozenset[str]) -> bool:
    """Some plain number in `terms` has as many digits as a plain number in `reference`."""
    lengths = {len(t) for t in reference if t.isdigit()}
    return bool(lengths) and any(t.isdigit() and len(t) in lengths for t in terms)
