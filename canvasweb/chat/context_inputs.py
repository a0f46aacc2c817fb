"""Turn database rows into the compiler's plain data (the ORM stays outside canvasweb.context).

The node list and its spatial/keyword index are cached per canvas revision, so
a chat turn or a context preview on an unchanged canvas costs no query for
nodes and no index rebuild.
"""
from __future__ import annotations

import math
import threading
from collections import OrderedDict

from django.conf import settings

from canvasweb.canvases.models import Canvas, Edge, Node
from canvasweb.context.selection import CanvasIndex
from canvasweb.context.tokens import TokenCache
from canvasweb.context.types import Budget, EdgeData, MessageData, NodeData, Viewport

from .models import Message, MessageRole

_INDEX_CACHE: "OrderedDict[tuple, tuple[tuple[NodeData, ...], tuple[EdgeData, ...], CanvasIndex]]" = \
    OrderedDict()
_INDEX_CACHE_SIZE = 16
_LOCK = threading.Lock()
# One token cache per process: keyed by message id / node version, shared by all turns.
TOKEN_CACHE = TokenCache(encoding=settings.LLM.get("ENCODING") or None)


def node_data(node: Node) -> NodeData:
    return NodeData(
        id=str(node.id), content=node.content, kind=node.kind, x=node.x, y=node.y, weight=node.weight,
        tags=tuple(node.tags or ()), pinned=node.pinned, sensitivity=node.sensitivity,
        superseded_by=str(node.superseded_by_id) if node.superseded_by_id else None, archived=node.archived,
        version=node.version, updated_at=node.updated_at.isoformat() if node.updated_at else None,
    )


def edge_data(edge: Edge) -> EdgeData:
    return EdgeData(id=str(edge.id), source=str(edge.source_id), target=str(edge.target_id),
                    relation=edge.relation, label=edge.label or None)


def canvas_inputs(*, canvas_id: int) -> tuple[tuple[NodeData, ...], tuple[EdgeData, ...], CanvasIndex]:
    """All nodes and edges of the canvas (the compiler filters by role) and their index."""
    row = Canvas.objects.filter(pk=canvas_id).values_list("revision", "created_at").first()
    # created_at guards against a reused primary key (e.g. a test database rolled back).
    key = (canvas_id, row[0], row[1]) if row else (canvas_id, 0, None)
    with _LOCK:
        cached = _INDEX_CACHE.get(key)
        if cached is not None:
            _INDEX_CACHE.move_to_end(key)
            return cached
    nodes = tuple(node_data(n) for n in Node.objects.filter(canvas_id=canvas_id).order_by("created_at", "id"))
    edges = tuple(edge_data(e) for e in Edge.objects.filter(canvas_id=canvas_id).order_by("created_at", "id"))
    index = CanvasIndex.build(nodes=nodes, edges=edges)
    with _LOCK:
        _INDEX_CACHE[key] = (nodes, edges, index)
        while len(_INDEX_CACHE) > _INDEX_CACHE_SIZE:
            _INDEX_CACHE.popitem(last=False)
    return nodes, edges, index


def message_data(message: Message) -> MessageData:
    return MessageData(id=str(message.pk), role=message.role, content=message.content,
                       token_count=message.token_count)


def history_for(*, conversation, exclude_id: int | None = None) -> tuple[MessageData, ...]:
    """Messages after the summarized prefix, oldest first (failed/empty replies left out)."""
    rows = (Message.objects.filter(conversation=conversation, id__gt=conversation.summarized_through_id)
            .exclude(status="error").exclude(role=MessageRole.ASSISTANT, content=""))
    if exclude_id is not None:
        rows = rows.exclude(pk=exclude_id)
    return tuple(message_data(m) for m in rows.order_by("id"))


def archived_history_for(*, conversation) -> tuple[MessageData, ...]:
    """Messages already folded into the rolling summary (for the recall layer), oldest first."""
    if not conversation.summarized_through_id:
        return ()
    rows = (Message.objects.filter(conversation=conversation, id__lte=conversation.summarized_through_id)
            .exclude(status="error").exclude(role=MessageRole.ASSISTANT, content=""))
    return tuple(message_data(m) for m in rows.order_by("id"))


_VIEWPORT_DEFAULTS = {"x": 0.0, "y": 0.0, "zoom": 1.0, "width": 1280.0, "height": 800.0}


def viewport_from(raw: dict | None) -> Viewport:
    """A Viewport from a client's {x, y, zoom, width, height}; every given value must be a finite number."""
    raw = raw or {}
    values = {}
    for name, default in _VIEWPORT_DEFAULTS.items():
        value = raw.get(name, default)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise ValueError(f"{name} must be a finite number")
        values[name] = float(value)
    return Viewport(**values)


def default_budget(*, total: int | None = None, system_tokens: int) -> Budget:
    llm = settings.LLM
    total = total or (llm["CONTEXT_WINDOW"] - llm["MAX_OUTPUT_TOKENS"])
    return Budget.from_total(total=total, system=system_tokens)
