"""The spatial grid of an update: weight bands and their cells, copied only when touched."""

from __future__ import annotations

import math
from typing import Literal, overload

from ..canvas_index import CanvasIndex, _Band
from .owned import _Everything


def _band_key(weight: float) -> int:
    return math.ceil(math.log2(weight) - 1e-12)


class _GridCopy:
    """IndexUpdate's grid methods (a node's entry in the cell of its weight band)."""

    index: CanvasIndex
    _bands_by_key: dict[int, _Band]
    _own_bands: set[int] | _Everything
    _own_cells: set[tuple[int, tuple[int, int]]] | _Everything

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
