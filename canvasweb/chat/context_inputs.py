"""Turn database rows into the compiler's plain data (the ORM stays outside canvasweb.context).

Each process keeps, per canvas, the node and edge data and their CanvasIndex
in memory and brings them up to date from the change log: a turn or a context
preview after an edit reads the canvas revision and the log entries past the
cached revision (two small queries) and applies them to the index
copy-on-write (canvasweb/context/index_update/) instead of reloading every
node and rebuilding; in a compile worker process (chat/executor.py), which
runs one call at a time, the changes are applied in place (IN_PLACE_UPDATES). A full load happens on the first use, when the cache is
more than INDEX_CATCH_UP_MAX_REVISIONS behind, when the log does not add up
(a gap, an entry it cannot read) and when enough nodes were created or deleted
that the index is due for a rebuild. The cache is an LRU bounded by the
estimated bytes of what it holds (CANVASWEB["INDEX_CACHE_BYTES"]).
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field
from datetime import datetime
from typing import cast

from django.conf import settings

from canvasweb.canvases.models import Canvas, Edge, Node
from canvasweb.common.errors import InvalidOperation
from canvasweb.common.json_safety import finite_float
from canvasweb.context import tokens as _tokens
from canvasweb.context.bytecache import ByteLRU, text_bytes
from canvasweb.context.index_update import IndexUpdate
from canvasweb.context.selection import CanvasIndex
from canvasweb.context.tokens import TokenCache
from canvasweb.context.types import (
    ROLE_LEVEL,
    SENSITIVITY_LEVEL,
    EdgeData,
    MessageData,
    NodeData,
    Sensitivity,
    Viewport,
)
from canvasweb.context.types import MessageRole as MessageRoleName
from canvasweb.history.models import ChangeLogEntry

from .models import Message, MessageRole

logger = logging.getLogger(__name__)

_CANVASWEB = getattr(settings, "CANVASWEB", {})
# One token cache per process: keyed by message id / node version, shared by all turns.
TOKEN_CACHE = TokenCache(
    encoding=settings.LLM.get("ENCODING") or None,
    max_entries=10**9,
    max_bytes=_CANVASWEB.get("TOKEN_CACHE_BYTES", 128 * 1024 * 1024),
)
_tokens.set_count_cache_bytes(_CANVASWEB.get("TOKEN_COUNT_CACHE_BYTES", 32 * 1024 * 1024))

# Estimated bytes held per node / edge besides its text (NodeData, index lists, grid entry,
# posting slots); calibrated with tracemalloc (docs/benchmarks.md, "Memory").
NODE_OVERHEAD_BYTES = 600
EDGE_OVERHEAD_BYTES = 300


@dataclass
class CanvasState:
    """One canvas's data and index at `revision` (immutable once published)."""

    created_at: datetime | None
    revision: int
    nodes: dict[str, NodeData]
    edges: dict[str, EdgeData]
    index: CanvasIndex
    text_bytes: int = 0
    # id -> sensitivity of the nodes that are not public: what a role may not see is found from these
    # alone (a scan of every node per preview cost ~90 ms at 100,000 nodes).
    restricted: dict[str, str] = field(default_factory=dict)
    _node_tuple: tuple[NodeData, ...] | None = field(default=None, repr=False)
    _hidden: dict = field(default_factory=dict, repr=False)
    _edge_tuple: tuple[EdgeData, ...] | None = field(default=None, repr=False)

    @property
    def size(self) -> int:
        return (
            self.text_bytes * 3
            + NODE_OVERHEAD_BYTES * len(self.nodes)
            + EDGE_OVERHEAD_BYTES * len(self.edges)
            + 1024
        )

    def hidden_ids(self, role: str | None) -> set[str] | frozenset[str]:
        """Ids of the nodes `role` may not see (every node for no role)."""
        if role is None:
            return frozenset(self.nodes)
        hidden = self._hidden.get(role)
        if hidden is None:
            level = ROLE_LEVEL[role]
            hidden = self._hidden[role] = {
                node_id
                for node_id, sensitivity in self.restricted.items()
                if SENSITIVITY_LEVEL[sensitivity] > level
            }
        return hidden  # shared: callers only read it

    def _rehide(self, node_ids) -> None:
        """Bring the per-role hidden sets up to date for changed nodes (in-place catch-up)."""
        for role, hidden in self._hidden.items():
            level = ROLE_LEVEL[role]
            for node_id in node_ids:
                sensitivity = self.restricted.get(node_id)
                if sensitivity is not None and SENSITIVITY_LEVEL[sensitivity] > level:
                    hidden.add(node_id)
                else:
                    hidden.discard(node_id)

    def inputs(self) -> tuple[tuple[NodeData, ...], tuple[EdgeData, ...], CanvasIndex]:
        if self._node_tuple is None or self._edge_tuple is None:  # both are set and reset together
            self._node_tuple = tuple(self.nodes.values())
            self._edge_tuple = tuple(self.edges.values())
        return self._node_tuple, self._edge_tuple, self.index


INDEX_CACHE = ByteLRU(max_bytes=_CANVASWEB.get("INDEX_CACHE_BYTES", 512 * 1024 * 1024))
_LOCKS_GUARD = threading.Lock()
_CANVAS_LOCKS: dict[int, threading.Lock] = {}
# True in a compile worker process (chat/executor.py), which runs one call at a time: a catch-up
# then changes the cached state in place instead of copying it (O(changes), not O(canvas)).
IN_PLACE_UPDATES = False
STATS = {"hits": 0, "caught_up": 0, "rebuilds": 0, "entries_applied": 0}


def node_data(node: Node) -> NodeData:
    return NodeData(
        id=str(node.id),
        content=node.content,
        kind=node.kind,
        x=node.x,
        y=node.y,
        weight=node.weight,
        tags=tuple(node.tags or ()),
        pinned=node.pinned,
        sensitivity=cast(Sensitivity, node.sensitivity),  # the column's choices are exactly these
        superseded_by=str(node.superseded_by_id) if node.superseded_by_id else None,
        archived=node.archived,
        version=node.version,
        updated_at=node.updated_at.isoformat() if node.updated_at else None,
    )


def edge_data(edge: Edge) -> EdgeData:
    return EdgeData(
        id=str(edge.id),
        source=str(edge.source_id),
        target=str(edge.target_id),
        relation=edge.relation,
        label=edge.label or None,
    )


def node_data_from_record(data: dict) -> NodeData:
    """NodeData from a change-log `after` record (canvases.serialization.node_to_dict)."""
    updated = data.get("updated_at")
    return NodeData(
        id=data["id"],
        content=data["content"],
        kind=data["kind"],
        x=float(data["x"]),
        y=float(data["y"]),
        weight=float(data["weight"]),
        tags=tuple(data.get("tags") or ()),
        pinned=bool(data["pinned"]),
        sensitivity=data["sensitivity"],
        superseded_by=data.get("superseded_by") or None,
        archived=bool(data.get("archived")),
        version=int(data["version"]),
        # node_data() writes isoformat(); the log writes it with "Z".
        updated_at=updated[:-1] + "+00:00" if isinstance(updated, str) and updated.endswith("Z") else updated,
    )


def edge_data_from_record(data: dict) -> EdgeData:
    return EdgeData(
        id=data["id"],
        source=data["source"],
        target=data["target"],
        relation=data["relation"],
        label=data.get("label") or None,
    )


def canvas_inputs(*, canvas_id: int) -> tuple[tuple[NodeData, ...], tuple[EdgeData, ...], CanvasIndex]:
    """All nodes and edges of the canvas (the compiler filters by role) and their index."""
    return canvas_state(canvas_id=canvas_id).inputs()


def canvas_state(*, canvas_id: int) -> CanvasState:
    row = Canvas.objects.filter(pk=canvas_id).values_list("revision", "created_at").first()
    revision, created_at = row if row else (0, None)
    state = INDEX_CACHE.get(canvas_id)
    if _current(state, revision, created_at):
        STATS["hits"] += 1
        return state
    with _canvas_lock(canvas_id):  # one thread brings a canvas up to date; the others wait and reuse it
        state = INDEX_CACHE.get(canvas_id)
        if _current(state, revision, created_at):
            STATS["hits"] += 1
            return state
        fresh = None
        # created_at guards against a reused primary key (e.g. a test database rolled back).
        if (
            state is not None
            and state.created_at == created_at
            and state.revision < revision
            and revision - state.revision <= _CANVASWEB.get("INDEX_CATCH_UP_MAX_REVISIONS", 2000)
        ):
            try:
                fresh = _catch_up(canvas_id=canvas_id, state=state)
            except Exception:  # on doubt, rebuild: the log is the truth, the cache only a shortcut
                logger.warning(
                    "could not catch canvas %s up from the log; rebuilding", canvas_id, exc_info=True
                )
                fresh = None
            if fresh is not None:
                STATS["caught_up"] += 1
        if fresh is None:
            if IN_PLACE_UPDATES:
                INDEX_CACHE.pop(canvas_id)  # a failed in-place catch-up may have changed it halfway
            fresh = _load(canvas_id=canvas_id, revision=revision, created_at=created_at)
            STATS["rebuilds"] += 1
        INDEX_CACHE.put(canvas_id, fresh, size=fresh.size)
        return fresh


def forget_canvas(*, canvas_id: int) -> None:
    INDEX_CACHE.pop(canvas_id)


def forget_all_canvases() -> None:
    """Drop every cached canvas (a benchmark replays canvases whose pk and creation time repeat)."""
    INDEX_CACHE.clear()


def _current(state: CanvasState | None, revision: int, created_at) -> bool:
    # A newer cached revision than the one just read is fine too (another thread caught up further).
    return state is not None and state.created_at == created_at and state.revision >= revision


def _canvas_lock(canvas_id: int) -> threading.Lock:
    with _LOCKS_GUARD:
        lock = _CANVAS_LOCKS.get(canvas_id)
        if lock is None:
            if len(_CANVAS_LOCKS) > 4096:
                _CANVAS_LOCKS.clear()
            lock = _CANVAS_LOCKS[canvas_id] = threading.Lock()
        return lock


def _load(*, canvas_id: int, revision: int, created_at) -> CanvasState:
    # Rows committed after `revision` was read may already be in here; catching up later
    # re-applies their log entries, which is harmless (each entry carries the full record).
    nodes = {
        str(n.id): node_data(n) for n in Node.objects.filter(canvas_id=canvas_id).order_by("created_at", "id")
    }
    edges = {
        str(e.id): edge_data(e) for e in Edge.objects.filter(canvas_id=canvas_id).order_by("created_at", "id")
    }
    index = CanvasIndex.build(nodes=nodes.values(), edges=edges.values())
    return CanvasState(
        created_at=created_at,
        revision=revision,
        nodes=nodes,
        edges=edges,
        index=index,
        text_bytes=sum(text_bytes(n.content) for n in nodes.values()),
        restricted={n.id: n.sensitivity for n in nodes.values() if n.sensitivity != "public"},
    )


def _catch_up(*, canvas_id: int, state: CanvasState) -> CanvasState | None:
    """`state` plus the log entries after its revision, or None when a rebuild is the safer answer."""
    rows = list(
        ChangeLogEntry.objects.filter(canvas_id=canvas_id, revision__gt=state.revision)
        .order_by("revision", "seq")
        .values_list("revision", "entity", "action", "target_id", "after")
    )
    if not rows:
        return None
    expected = state.revision + 1
    for revision, *_ in rows:
        if revision == expected:
            expected += 1
        elif revision != expected - 1:
            return None  # a gap: a revision is not (yet) visible; read everything instead
    if IN_PLACE_UPDATES:  # this process's only reader: change the cached state itself (O(changes))
        nodes, edges, restricted = state.nodes, state.edges, state.restricted
    else:  # other threads may be compiling on `state`: copy-on-write
        nodes, edges, restricted = dict(state.nodes), dict(state.edges), dict(state.restricted)
    update = IndexUpdate(state.index, in_place=IN_PLACE_UPDATES)
    text_total = state.text_bytes
    for _, entity, action, target_id, after in rows:
        if entity == "node":
            old = nodes.get(target_id)
            if action == "deleted":
                if old is not None:
                    del nodes[target_id]
                    text_total -= text_bytes(old.content)
                restricted.pop(target_id, None)
                update.remove_node(target_id)
            elif action in ("created", "updated") and isinstance(after, dict):
                node = node_data_from_record(after)
                if old is not None:
                    text_total -= text_bytes(old.content)
                nodes[target_id] = node
                text_total += text_bytes(node.content)
                if node.sensitivity != "public":
                    restricted[target_id] = node.sensitivity
                else:
                    restricted.pop(target_id, None)
                update.upsert_node(node)
            else:
                return None
        elif entity == "edge":
            if action == "deleted":
                edges.pop(target_id, None)
                update.remove_edge(target_id)
            elif action in ("created", "updated") and isinstance(after, dict):
                edge = edge_data_from_record(after)
                edges[target_id] = edge
                update.add_edge(edge)  # replaces an existing edge of that id
            else:
                return None
        elif entity not in ("canvas", "member"):
            return None  # something this cache does not understand
    if update.needs_rebuild():
        return None
    STATS["entries_applied"] += len(rows)
    if IN_PLACE_UPDATES:
        state.revision, state.index, state.text_bytes = rows[-1][0], update.finish(), text_total
        state._node_tuple = state._edge_tuple = None
        state._rehide({row[3] for row in rows if row[1] == "node"})
        return state
    return CanvasState(
        created_at=state.created_at,
        revision=rows[-1][0],
        nodes=nodes,
        edges=edges,
        index=update.finish(),
        text_bytes=text_total,
        restricted=restricted,
    )


def message_data(message: Message) -> MessageData:
    return MessageData(
        id=str(message.pk),
        role=cast(MessageRoleName, message.role),  # the column's choices are exactly these
        content=message.content,
        token_count=message.token_count,
        created_at=message.created_at.isoformat() if message.created_at else None,
    )


def history_for(*, conversation, exclude_id: int | None = None) -> tuple[MessageData, ...]:
    """Messages after the summarized prefix, oldest first (failed/empty replies left out)."""
    rows = (
        Message.objects.filter(conversation=conversation, id__gt=conversation.summarized_through_id)
        .exclude(status="error")
        .exclude(role=MessageRole.ASSISTANT, content="")
    )
    if exclude_id is not None:
        rows = rows.exclude(pk=exclude_id)
    return tuple(message_data(m) for m in rows.order_by("id"))


def archived_history_for(*, conversation) -> tuple[MessageData, ...]:
    """Messages already folded into the rolling summary (for the recall layer), oldest first."""
    if not conversation.summarized_through_id:
        return ()
    rows = (
        Message.objects.filter(conversation=conversation, id__lte=conversation.summarized_through_id)
        .exclude(status="error")
        .exclude(role=MessageRole.ASSISTANT, content="")
    )
    return tuple(message_data(m) for m in rows.order_by("id"))


_VIEWPORT_DEFAULTS = {"x": 0.0, "y": 0.0, "zoom": 1.0, "width": 1280.0, "height": 800.0}


def viewport_from(raw: dict | None) -> Viewport:
    """A Viewport from a client's {x, y, zoom, width, height} (or None: the defaults); every given value must
    be a finite number. Anything but an object or None is a ValueError (the socket's chat.send and
    context.preview hand the frame's value over as it came: `true` or `[1]` was an INTERNAL error); an
    unknown key is InvalidOperation naming `viewport.<key>`."""
    if raw is None:
        raw = {}
    elif not isinstance(raw, dict):
        raise ValueError("it must be an object or null")
    unknown = sorted(str(key) for key in raw.keys() - _VIEWPORT_DEFAULTS.keys())
    if unknown:
        # Unknown fields are refused everywhere (docs/api.md), named by their path like the op parser's.
        raise InvalidOperation(f"unknown field viewport.{unknown[0]}", field=f"viewport.{unknown[0]}")
    values = {}
    for name, default in _VIEWPORT_DEFAULTS.items():
        value = finite_float(raw.get(name, default))
        if value is None:
            raise ValueError(f"{name} must be a finite number")
        values[name] = value
    return Viewport(**values)
