"""The canvas as one role may see it: the only node and edge data the compiler and the agent's search get.

Filtering before compiling (rather than letting the compiler drop nodes as `not_visible`) means a node
the asking role may not see cannot appear anywhere in what leaves the server: not in the prompt, not in
the preview's or the stored report's `excluded` list, not in `excluded_counts`, not in search weights.
Secret nodes stay in the owner's view (the compiler renders them as placeholders).
"""
from __future__ import annotations

import threading
from collections import OrderedDict

from canvasweb.canvases.permissions import can_see
from canvasweb.context.selection import CanvasIndex
from canvasweb.context.types import EdgeData, NodeData

from .context_inputs import canvas_inputs

_CACHE: "OrderedDict[tuple[int, str], tuple[CanvasIndex, tuple]]" = OrderedDict()
_CACHE_SIZE = 32
_LOCK = threading.Lock()


def inputs_for_role(*, canvas_id: int, role: str
                    ) -> tuple[tuple[NodeData, ...], tuple[EdgeData, ...], CanvasIndex]:
    nodes, edges, index = canvas_inputs(canvas_id=canvas_id)
    if all(can_see(role, node.sensitivity) for node in nodes):
        return nodes, edges, index
    key = (canvas_id, role)
    with _LOCK:
        cached = _CACHE.get(key)
        # Keyed on the full index object: a new canvas revision builds a new one.
        if cached is not None and cached[0] is index:
            _CACHE.move_to_end(key)
            return cached[1]
    visible = tuple(node for node in nodes if can_see(role, node.sensitivity))
    visible_ids = {node.id for node in visible}
    visible_edges = tuple(edge for edge in edges if edge.source in visible_ids and edge.target in visible_ids)
    result = (visible, visible_edges, CanvasIndex.build(nodes=visible, edges=visible_edges))
    with _LOCK:
        _CACHE[key] = (index, result)
        while len(_CACHE) > _CACHE_SIZE:
            _CACHE.popitem(last=False)
    return result
