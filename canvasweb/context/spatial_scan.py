"""The spatial walk of selection: the k nodes of least effective distance near the viewport.

Each weight band of the index (canvas_index._Band) is a uniform grid. A band is
searched out to radius * 2^k in raw distance, ring by ring from the viewport
centre, stopping as soon as the nearest unvisited ring cannot beat the current
k-th best effective distance; if the ring walk would visit more cells than the
band has occupied cells, it scans the occupied cells sorted by distance instead.
Filtering (status, role, decay) happens per entry, so what is excluded is
reported with its reason.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Iterable
from typing import TypedDict

from .canvas_index import _STATUS_REASON, CanvasIndex, _Band
from .ranking import NodeFactors
from .types import ExcludedNode


class _Exclusions:
    """Collects exclusions: exact counts, listed ids capped per reason."""

    __slots__ = ("counts", "items", "limit", "seen")

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


class _ScanArgs(TypedDict):
    """The keyword arguments of _scan_entries that a band scan passes to every cell."""

    qx: float
    qy: float
    radius: float
    k: int
    heap: list[tuple[float, int]]
    index: CanvasIndex
    role_level: int
    excl: _Exclusions
    decay: NodeFactors | None


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
    decay: NodeFactors | None = None,
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
            excl.add(
                nodes[i].id, _STATUS_REASON[st], f"superseded_by={nodes[i].superseded_by}" if st == 1 else ""
            )
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
    decay: NodeFactors | None = None,
) -> None:
    cell = index.cell_size
    cells = band.cells
    icx = math.floor(qx / cell)
    icy = math.floor(qy / cell)
    raw_max = radius * band.wmax
    walk_limit = 2 * len(cells) + 9
    visited = 0
    r = 0
    kw: _ScanArgs = {
        "qx": qx,
        "qy": qy,
        "radius": radius,
        "k": k,
        "heap": heap,
        "index": index,
        "role_level": role_level,
        "excl": excl,
        "decay": decay,
    }
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


def _scan_rest(
    band: _Band,
    *,
    index: CanvasIndex,
    icx: int,
    icy: int,
    done: int,
    raw_max: float,
    kw: _ScanArgs,
    stats: dict[str, int],
) -> None:
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
