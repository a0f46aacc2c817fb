"""Apply committed node/edge changes to a built `CanvasIndex` without rebuilding it.

A rebuild costs O(canvas) (term extraction for every node dominates: ~3 s at
100,000 nodes), while an edit touches one node. `IndexUpdate` forks an index
copy-on-write (the lists indexed by node position are copied, ~1 ms per
100,000 nodes; grid cells, posting lists and adjacency lists are copied only
when touched), applies upserts/removals, and returns the new index. The old
index stays valid and unchanged, so a compile running on it in another thread
is not disturbed.

Positions: a node that already exists keeps its position; a new node is
appended (so ties between it and older nodes break by arrival, not by id,
until the next full rebuild); a removed node becomes an inert tombstone (not in
`pos`, no grid entry, no postings, no edges, level above every role).
`needs_rebuild()` says when appended nodes and tombstones make up enough of
the index that a fresh `CanvasIndex.build` is due.

The CanvasIndex's BM25 text index
`text_index` (NodeTextIndex: `add_text(doc_id, text)` / `remove(doc_id)`, `fork()` for
copy-on-write) is kept in step through `_text_hook_*`: it receives the same
text the keyword postings are built from, for nodes that are indexed.
Pure: no Django.
"""

from __future__ import annotations

import bisect
import copy
import math
from collections.abc import Callable, Sequence
from typing import Any, Literal, overload

from .canvas_index import _ARCHIVED, _OK, _SUPERSEDED, CanvasIndex, _Band
from .ranking import parse_timestamp
from .text import extract_terms
from .types import SENSITIVITY_LEVEL, EdgeData, NodeData

# Tombstones are above every role's level: never visible, never in a restricted-text index.
_TOMBSTONE_LEVEL = 99
DEFAULT_MIN_WEIGHT = 0.05
# Appended + removed positions beyond this share of the index make a rebuild due.
REBUILD_FRACTION = 0.2
REBUILD_MIN = 256


def _status(n: NodeData) -> int:
    return _SUPERSEDED if n.superseded_by else (_ARCHIVED if n.archived else _OK)


def _indexed_text(n: NodeData, status: int) -> str | None:
    # Same rule as CanvasIndex._build_postings: live, non-secret nodes only.
    if status != _OK or n.sensitivity == "secret":
        return None
    return n.content + " " + " ".join(n.tags)


def _band_key(weight: float) -> int:
    return math.ceil(math.log2(weight) - 1e-12)


class _Everything:
    """An ownership set that holds every key: nothing needs copying before a write (in place)."""

    def __contains__(self, key: object) -> bool:
        return True

    def add(self, key: object) -> None:
        pass


class IndexUpdate:
    """One batch of changes on top of `base`; call `finish()` for the new index.

    `in_place=True` changes `base` itself instead of a copy-on-write fork: O(changes) instead of
    O(canvas) (the fork copies every per-node list, ~40 ms at 100,000 nodes). Only for an owner
    that no other thread reads from meanwhile (a compile worker process runs one call at a time);
    if the update fails halfway, `base` must be thrown away.
    """

    def __init__(
        self, base: CanvasIndex, *, min_weight: float = DEFAULT_MIN_WEIGHT, in_place: bool = False
    ) -> None:
        if in_place:
            new = base
        else:
            new = copy.copy(base)
            for name in (
                "nodes",
                "status",
                "level",
                "pinned",
                "weights",
                "anchors",
                "pinned_ineligible",
                "updated_ts",
            ):
                setattr(new, name, list(getattr(base, name)))
            new.pos = dict(base.pos)
            new.bands = list(base.bands)
        self.index = new
        self.min_weight = min_weight
        self._bands_by_key = {_band_key(b.wmax): b for b in new.bands}
        self._own_bands: set[int] | _Everything = set()
        self._own_cells: set[tuple[int, tuple[int, int]]] | _Everything = set()
        self._own_postings = False
        self._own_terms: set[str] | _Everything = set()
        self._own_adjacency = False
        self._own_adj_lists: set[int] | _Everything = set()
        self._own_edges = False
        self._reset_text = False
        self._reset_secrets = False
        self._reset_derived = False
        if in_place:
            self._own_bands = self._own_cells = self._own_terms = self._own_adj_lists = _Everything()
            self._own_postings = self._own_adjacency = True
            self._own_edges = new._edge_pos is not None
            self._text = getattr(base, "text_index", None)
        else:
            self._text = self._fork_text_index(base)

    # ----------------------------------------------------------- public
    def upsert_node(self, node: NodeData) -> None:
        ix = self.index
        i = ix.pos.get(node.id)
        if i is None:
            self._append_node(node)
            return
        old = ix.nodes[i]
        if old == node:
            return
        old_status, new_status = ix.status[i], _status(node)
        ix.nodes[i] = node
        ix.status[i] = new_status
        ix.level[i] = SENSITIVITY_LEVEL[node.sensitivity]
        ix.updated_ts[i] = parse_timestamp(node.updated_at)
        ix.pinned[i] = node.pinned
        new_weight = max(node.weight, self.min_weight)
        if (old.x, old.y, ix.weights[i]) != (node.x, node.y, new_weight):
            self._grid_remove(i, old.x, old.y, ix.weights[i])
            ix.weights[i] = new_weight
            self._grid_add(i, node.x, node.y, new_weight)
        if old.pinned != node.pinned or old_status != new_status:
            self._set_anchor(i)
        old_text, new_text = _indexed_text(old, old_status), _indexed_text(node, new_status)
        if old_text != new_text:
            self._postings_change(i, old.id, old_text, new_text)
        if (old.content, old.sensitivity, old_status, old.superseded_by) != (
            node.content,
            node.sensitivity,
            new_status,
            node.superseded_by,
        ):
            self._reset_text = True
        if self._reset_text or (
            old.updated_at != node.updated_at and (old_status != _OK or new_status != _OK)
        ):
            self._reset_derived = True  # the value ledger reads retired nodes' times
        if "secret" in (old.sensitivity, node.sensitivity) and (old.content, old.sensitivity) != (
            node.content,
            node.sensitivity,
        ):
            self._reset_secrets = True

    def remove_node(self, node_id: str) -> None:
        ix = self.index
        i = ix.pos.pop(node_id, None)
        if i is None:
            return
        old = ix.nodes[i]
        self._grid_remove(i, old.x, old.y, ix.weights[i])
        old_text = _indexed_text(old, ix.status[i])
        if old_text is not None:
            self._postings_change(i, old.id, old_text, None)
        for j, _ in list(self._adj_list(i) or ()):
            self._adj_drop(j, lambda entry: entry[0] == i)
        if self._adj_list(i) is not None:
            self._own_adjacency_dict()
            ix.adjacency.pop(i, None)
        ix.nodes[i] = NodeData(id=old.id, content="")
        ix.status[i] = _OK
        ix.level[i] = _TOMBSTONE_LEVEL
        ix.pinned[i] = False
        self._set_anchor(i)
        self._reset_text = True
        if old.sensitivity == "secret":
            self._reset_secrets = True
        ix._tombstones += 1

    def add_edge(self, edge: EdgeData) -> None:
        ix = self.index
        if edge.source == edge.target or edge.source not in ix.pos or edge.target not in ix.pos:
            return  # the same rule as CanvasIndex._build_edges
        if edge.id in self._edge_pos():
            self.remove_edge(edge.id)
        self._own_edge_list()
        ei = len(ix.edges)
        ix.edges.append(edge)
        # Appended edges are out of the build's (source, target, relation, id) order: sort answers.
        ix._edges_unsorted = True
        self._edge_pos()[edge.id] = ei
        s, t = ix.pos[edge.source], ix.pos[edge.target]
        self._adj_append(s, (t, ei))
        self._adj_append(t, (s, ei))

    def remove_edge(self, edge_id: str) -> None:
        ix = self.index
        ei = self._edge_pos().get(edge_id)
        if ei is None:
            return
        self._own_edge_list()
        del self._edge_pos()[edge_id]
        edge = ix.edges[ei]
        for end in (edge.source, edge.target):
            i = ix.pos.get(end)
            if i is not None:
                self._adj_drop(i, lambda entry: entry[1] == ei)

    def needs_rebuild(self) -> bool:
        ix = self.index
        churn = ix._tombstones + ix._appended
        return churn > max(REBUILD_MIN, REBUILD_FRACTION * len(ix.nodes))

    def finish(self) -> CanvasIndex:
        ix = self.index
        if self._reset_text:
            # Lazily rebuilt history filters (stale/restricted text) depend on contents and statuses.
            ix._stale = None
            ix._restricted = {}
            ix._filter_memo = {}
        if self._reset_secrets:
            ix._secret_masker = None
            ix._secret_fingerprint = ""
        if self._reset_text or self._reset_derived:
            ix._derived = {}  # a new dict: a forked index must not clear its base's
        return ix

    # ----------------------------------------------------------- nodes
    def _append_node(self, node: NodeData) -> None:
        ix = self.index
        i = len(ix.nodes)
        status = _status(node)
        ix.nodes.append(node)
        ix.pos[node.id] = i
        ix.updated_ts.append(parse_timestamp(node.updated_at))
        ix.status.append(status)
        ix.level.append(SENSITIVITY_LEVEL[node.sensitivity])
        ix.pinned.append(node.pinned)
        weight = max(node.weight, self.min_weight)
        ix.weights.append(weight)
        self._grid_add(i, node.x, node.y, weight)
        self._set_anchor(i)
        text = _indexed_text(node, status)
        if text is not None:
            self._postings_change(i, node.id, None, text)
        self._reset_text = True
        if node.sensitivity == "secret":
            self._reset_secrets = True
        ix._appended += 1

    def _set_anchor(self, i: int) -> None:
        ix = self.index
        for name, wanted in (
            ("anchors", ix.pinned[i] and ix.status[i] == _OK),
            ("pinned_ineligible", ix.pinned[i] and ix.status[i] != _OK),
        ):
            values = getattr(ix, name)
            at = bisect.bisect_left(values, i)
            present = at < len(values) and values[at] == i
            if wanted and not present:
                values.insert(at, i)
            elif present and not wanted:
                del values[at]

    # ----------------------------------------------------------- grid
    @overload
    def _band(self, weight: float, *, create: Literal[True]) -> _Band: ...
    @overload
    def _band(self, weight: float, *, create: bool) -> _Band | None: ...
    def _band(self, weight: float, *, create: bool) -> _Band | None:
        k = _band_key(weight)
        band = self._bands_by_key.get(k)
        if band is None:
            if not create:
                return None
            band = _Band(2.0**k)
            self._bands_by_key[k] = band
            self._own_bands.add(k)
            self.index.bands = [self._bands_by_key[key] for key in sorted(self._bands_by_key)]
            return band
        if k not in self._own_bands:
            fresh = _Band(band.wmax)
            fresh.cells = dict(band.cells)
            fresh.occupied = list(band.occupied)
            self._bands_by_key[k] = fresh
            self._own_bands.add(k)
            self.index.bands = [fresh if b is band else b for b in self.index.bands]
            band = fresh
        return band

    @overload
    def _cell(
        self, band: _Band, weight: float, key: tuple[int, int], *, create: Literal[True]
    ) -> list[tuple[float, float, float, int]]: ...
    @overload
    def _cell(
        self, band: _Band, weight: float, key: tuple[int, int], *, create: bool
    ) -> list[tuple[float, float, float, int]] | None: ...
    def _cell(
        self, band: _Band, weight: float, key: tuple[int, int], *, create: bool
    ) -> list[tuple[float, float, float, int]] | None:
        bucket = band.cells.get(key)
        own = (_band_key(weight), key)
        if bucket is None:
            if not create:
                return None
            bucket = band.cells[key] = []
            band.occupied.append(key)
            self._own_cells.add(own)
        elif own not in self._own_cells:
            bucket = band.cells[key] = list(bucket)
            self._own_cells.add(own)
        return bucket

    def _cell_key(self, x: float, y: float) -> tuple[int, int]:
        cell = self.index.cell_size
        return (math.floor(x / cell), math.floor(y / cell))

    def _grid_add(self, i: int, x: float, y: float, weight: float) -> None:
        band = self._band(weight, create=True)
        self._cell(band, weight, self._cell_key(x, y), create=True).append((x, y, weight, i))

    def _grid_remove(self, i: int, x: float, y: float, weight: float) -> None:
        band = self._band(weight, create=False)
        bucket = self._cell(band, weight, self._cell_key(x, y), create=False) if band else None
        if bucket is not None:
            bucket[:] = [entry for entry in bucket if entry[3] != i]
            # An emptied cell stays in `occupied` with an empty bucket; scans skip it.

    # ----------------------------------------------------------- keyword postings
    def _postings_change(self, i: int, node_id: str, old_text: str | None, new_text: str | None) -> None:
        ix = self.index
        old_terms = extract_terms(old_text) if old_text is not None else frozenset()
        new_terms = extract_terms(new_text) if new_text is not None else frozenset()
        if not self._own_postings:
            ix.postings = dict(ix.postings)
            self._own_postings = True
        for term in old_terms - new_terms:
            plist = self._own_plist(term)
            at = bisect.bisect_left(plist, i)
            if at < len(plist) and plist[at] == i:
                del plist[at]
            if not plist:
                del ix.postings[term]
        for term in new_terms - old_terms:
            plist = self._own_plist(term, create=True)
            at = bisect.bisect_left(plist, i)
            if at == len(plist) or plist[at] != i:
                plist.insert(at, i)
        ix.n_indexed += (new_text is not None) - (old_text is not None)
        if old_text is not None:
            self._text_hook_remove(node_id)
        if new_text is not None:
            self._text_hook_add(node_id, new_text)

    def _own_plist(self, term: str, *, create: bool = False) -> list[int]:
        postings = self.index.postings
        plist = postings.get(term)
        if plist is None:
            plist = postings[term] = []
            self._own_terms.add(term)
        elif term not in self._own_terms:
            plist = postings[term] = list(plist)
            self._own_terms.add(term)
        return plist

    # ----------------------------------------------------------- edges
    def _edge_pos(self) -> dict[str, int]:
        ix = self.index
        got = ix._edge_pos
        if got is None:
            got = {}
            for ei, e in enumerate(ix.edges):
                got[e.id] = ei
            ix._edge_pos = got
        return got

    def _own_edge_list(self) -> None:
        if not self._own_edges:
            ix = self.index
            ix.edges = list(ix.edges)
            ix._edge_pos = dict(self._edge_pos())
            self._own_edges = True

    def _own_adjacency_dict(self) -> None:
        if not self._own_adjacency:
            self.index.adjacency = dict(self.index.adjacency)
            self._own_adjacency = True

    def _adj_list(self, i: int) -> list[Any] | None:
        return self.index.adjacency.get(i)

    def _adj_append(self, i: int, entry: tuple[int, int]) -> None:
        self._own_adjacency_dict()
        adj = self.index.adjacency
        if i not in self._own_adj_lists:
            adj[i] = list(adj.get(i, ()))
            self._own_adj_lists.add(i)
        adj.setdefault(i, []).append(entry)  # (in place every list counts as owned, even a missing one)

    def _adj_drop(self, i: int, drop: Callable[[Any], bool]) -> None:
        current = self.index.adjacency.get(i)
        if not current:
            return
        kept = [entry for entry in current if not drop(entry)]
        self._own_adjacency_dict()
        self._own_adj_lists.add(i)
        if kept:
            self.index.adjacency[i] = kept
        else:
            del self.index.adjacency[i]

    # ----------------------------------------------------------- text-index hook
    def _fork_text_index(self, base: CanvasIndex) -> Any:
        text_index = getattr(base, "text_index", None)
        if text_index is None:
            return None
        fork = getattr(text_index, "fork", None)
        if callable(fork):
            text_index = fork()  # copy-on-write, like the rest of the index
            self.index.text_index = text_index
        return text_index

    def _text_hook_add(self, node_id: str, text: str) -> None:
        if self._text is not None:
            self._text.add_text(node_id, text)

    def _text_hook_remove(self, node_id: str) -> None:
        if self._text is not None:
            self._text.remove(node_id)


def apply_changes(
    index: CanvasIndex,
    *,
    upserts: Sequence[NodeData] = (),
    removals: Sequence[str] = (),
    edges_added: Sequence[EdgeData] = (),
    edges_removed: Sequence[str] = (),
) -> CanvasIndex | None:
    """A new index with the changes applied, or None when a full rebuild is due instead."""
    update = IndexUpdate(index)
    for edge_id in edges_removed:
        update.remove_edge(edge_id)
    for node_id in removals:
        update.remove_node(node_id)
    for node in upserts:
        update.upsert_node(node)
    for edge in edges_added:
        update.add_edge(edge)
    if update.needs_rebuild():
        return None
    return update.finish()
