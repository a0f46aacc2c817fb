"""The edges of an update: the edge list, the edge id -> position map and the adjacency lists."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..canvas_index import CanvasIndex
from .owned import _Everything


class _EdgesCopy:
    """IndexUpdate's edge and adjacency methods, each list copied before its first change."""

    index: CanvasIndex
    _own_adjacency: bool
    _own_adj_lists: set[int] | _Everything
    _own_edges: bool

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
