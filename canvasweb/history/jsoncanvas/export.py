"""Export: every node the exporter may see becomes a `text` node, every edge between two such
nodes an edge; Canvasweb's own fields travel under the `"canvasweb"` key."""

from __future__ import annotations

import math
import re
from typing import Any

from canvasweb.canvases import selectors as canvas_selectors
from canvasweb.canvases.models import Canvas

from .format import (
    COLOR_RE,
    COLOR_TAG,
    FORMAT_VERSION,
    KIND_COLORS,
    NAMESPACE,
    NODE_WIDTH,
)


def export_canvas(*, canvas: Canvas, role: str, include_secret: bool = True) -> dict:
    """The canvas as a JSON Canvas document, holding only what `role` may see.

    With include_secret=False, secret nodes (and the edges that touch them) are left out even for
    a role that may see them: a file leaves the product's access control once it is downloaded.
    """
    canvas = Canvas.objects.get(pk=canvas.pk)
    visible = canvas_selectors.visible_nodes(canvas=canvas, role=role)
    if not include_secret:
        visible = visible.exclude(sensitivity="secret")
    nodes = list(visible.order_by("created_at", "id"))
    exported = {str(n.id) for n in nodes}
    out_nodes = []
    for node in nodes:
        ns: dict[str, Any] = {
            "kind": node.kind,
            "weight": node.weight,
            "tags": list(node.tags or []),
            "pinned": node.pinned,
            "sensitivity": node.sensitivity,
            "archived": node.archived,
            "superseded_by": str(node.superseded_by_id)
            if node.superseded_by_id and str(node.superseded_by_id) in exported
            else None,
        }
        x, y = round(node.x), round(node.y)
        if x != node.x:
            ns["x"] = node.x
        if y != node.y:
            ns["y"] = node.y
        item: dict[str, Any] = {
            "id": str(node.id),
            "type": "text",
            "text": node.content,
            "x": x,
            "y": y,
            "width": NODE_WIDTH,
            "height": _height(node.content),
        }
        color = _export_color(node.kind, node.tags or [])
        if color:
            item["color"] = color
        item[NAMESPACE] = ns
        out_nodes.append(item)
    out_edges = []
    for edge in canvas_selectors.visible_edges(canvas=canvas, role=role).order_by("created_at", "id"):
        if str(edge.source_id) not in exported or str(edge.target_id) not in exported:
            continue
        item = {"id": str(edge.id), "fromNode": str(edge.source_id), "toNode": str(edge.target_id)}
        if edge.label:
            item["label"] = edge.label
        item[NAMESPACE] = {"relation": edge.relation}
        out_edges.append(item)
    return {
        "nodes": out_nodes,
        "edges": out_edges,
        NAMESPACE: {
            "format": FORMAT_VERSION,
            "name": canvas.name,
            "description": canvas.description,
            "canvas_id": canvas.pk,
            "revision": canvas.revision,
        },
    }


def _height(text: str) -> int:
    lines = sum(max(1, math.ceil(len(line) / 40)) for line in (text or "").splitlines() or [""])
    return 60 + 24 * min(lines, 20)


def _export_color(kind: str, tags: list[str]) -> str | None:
    for tag in tags:
        if tag.startswith(COLOR_TAG) and COLOR_RE.match(tag[len(COLOR_TAG) :]):
            return tag[len(COLOR_TAG) :]
    return KIND_COLORS.get(kind)


def filename_for(canvas: Canvas) -> str:
    stem = re.sub(r"[^\w\- ]+", "", canvas.name, flags=re.UNICODE).strip().replace(" ", "-") or "canvas"
    return f"{stem[:80]}.canvas"
