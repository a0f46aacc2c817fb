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

`IndexUpdate` (here) keeps the node lists; its copy-on-write parts come from
mixins: grid.py (weight bands and cells), postings.py (keyword postings and the
text index), edges.py (edges and adjacency); owned.py marks what an update owns.
Pure: no Django.
"""

from __future__ import annotations

import bisect
import copy
from collections.abc import Sequence

from ..canvas_index import _ARCHIVED, _OK, _SUPERSEDED, CanvasIndex
from ..ranking import parse_timestamp
from ..types import SENSITIVITY_LEVEL, EdgeData, NodeData
from .edges import _EdgesCopy
from .grid import _band_key, _GridCopy
from .owned import _Everything
from .postings import _PostingsCopy

__all__ = ["DEFAULT_MIN_WEIGHT", "REBUILD_FRACTION", "REBUILD_MIN", "IndexUpdate", "apply_changes"]

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


class IndexUpdate(_GridCopy, _PostingsCopy, _EdgesCopy):
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
