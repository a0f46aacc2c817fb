"""Reads over the change log: node timelines (with the superseded chain) and the activity feed.

Everything here is filtered for the reader's role exactly like the live
broadcast: an entry's `visibility_before`/`visibility_after` levels decide
whether its before/after versions may be shown. Site staff (the admin) read
with `level=ADMIN_LEVEL`, which sees everything.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from django.db.models import Q

from canvasweb.canvases import permissions
from canvasweb.canvases.models import Canvas, Node
from canvasweb.canvases.selectors import entry_actor
from canvasweb.canvases.serialization import iso, node_to_dict
from canvasweb.common.errors import InvalidOperation, NotFound

from .models import ChangeLogEntry, UndoStep

ADMIN_LEVEL = 2
DEFAULT_ACTIVITY = 50
MAX_ACTIVITY = 200
# Fields shown in a node diff, in display order.
NODE_DIFF_FIELDS = (
    "content",
    "kind",
    "x",
    "y",
    "weight",
    "tags",
    "pinned",
    "sensitivity",
    "archived",
    "superseded_by",
)
EDGE_DIFF_FIELDS = ("source", "target", "relation", "label")
ACTOR_KINDS = ("user", "agent", "system")


def _can_see(level: int, sensitivity: str) -> bool:
    return permissions.sensitivity_level(sensitivity) <= level


def _ok(needed: int | None, level: int) -> bool:
    return needed is not None and needed <= level


def _diff(entry: ChangeLogEntry, before: dict | None, after: dict | None) -> list[dict]:
    names: Sequence[str] = NODE_DIFF_FIELDS if entry.entity == "node" else EDGE_DIFF_FIELDS
    if entry.action == "updated":
        names = [n for n in names if n in (entry.fields or [])]
    rows = []
    for name in names:
        old = before.get(name) if before else None
        new = after.get(name) if after else None
        if entry.action == "created" and new in (None, "", [], False) and name not in ("x", "y"):
            continue
        if entry.action == "deleted" and old in (None, "", [], False) and name not in ("x", "y"):
            continue
        rows.append({"field": name, "before": old, "after": new})
    return rows


def entry_to_timeline_item(
    entry: ChangeLogEntry, *, level: int, undo_refs: dict[int, dict] | None = None
) -> dict | None:
    """One change log entry as the timeline and activity feed show it, or None if the reader may not see it."""
    before_ok = _ok(entry.visibility_before, level)
    after_ok = _ok(entry.visibility_after, level)
    if not (before_ok or after_ok):
        return None
    before = entry.before if before_ok else None
    after = entry.after if after_ok else None
    action = entry.action
    if action not in ("deleted",) and not after_ok:
        # The entity became invisible to this reader with this change.
        action = "removed"
    data = after or before or {}
    node_id = (
        entry.target_id
        if entry.entity == "node"
        else (data.get("source") if entry.entity == "edge" else None)
    )
    item = {
        "revision": entry.revision,
        "seq": entry.seq,
        "at": iso(entry.created_at),
        "actor": entry_actor(entry),
        "op_type": entry.op_type,
        "reason": entry.reason or None,
        "entity": entry.entity,
        "action": action,
        "target_id": entry.target_id,
        "node_id": node_id,
        "fields": list(entry.fields or []) if action == "updated" else [],
        "diff": _diff(entry, before, after) if action != "removed" else [],
        "before": before,
        "after": after,
        "summary": _summary(entry, data) if action != "removed" else "",
        "undo_of": None,
    }
    if undo_refs and entry.revision in undo_refs:
        item["undo_of"] = undo_refs[entry.revision]
    return item


def _summary(entry: ChangeLogEntry, data: dict) -> str:
    if entry.entity == "node":
        text = (data.get("content") or "").strip().splitlines()
        return text[0][:120] if text else ""
    if entry.entity == "edge":
        label = f" “{data['label']}”" if data.get("label") else ""
        return f"{data.get('relation', '')}{label}"
    if entry.entity == "canvas":
        return (data.get("name") or "")[:120]
    if entry.entity == "member":
        user = (data.get("user") or {}).get("username", "")
        return f"{user} {data.get('role', '')}".strip()
    return ""


def _undo_refs(canvas_id: int, revisions: Iterable[int]) -> dict[int, dict]:
    revisions = set(revisions)
    if not revisions:
        return {}
    return {
        step.revision: {"kind": step.kind, "revision": step.inverted_revision}
        for step in UndoStep.objects.filter(canvas_id=canvas_id, revision__in=revisions)
        if step.revision is not None  # always true: revision__in never matches NULL
    }


# --- the superseded chain ------------------------------------------------------------------------------


def supersede_links(*, canvas: Canvas) -> dict[str, str]:
    """old node id → the node that superseded it, for every supersede ever logged on the canvas.

    Taken from the log, not the current rows, so deleted versions stay in the chain.
    If a node was superseded more than once (after its successor was deleted), the latest wins.
    """
    links: dict[str, str] = {}
    rows = (
        ChangeLogEntry.objects.filter(
            canvas=canvas, entity="node", action="updated", op_type="node.supersede"
        )
        .order_by("revision", "seq")
        .values_list("target_id", "after")
    )
    for target_id, after in rows:
        successor = (after or {}).get("superseded_by")
        if successor:
            links[target_id] = successor
    return links


def supersede_chain(*, canvas: Canvas, node_id: str) -> tuple[list[str], list[str]]:
    """(predecessors oldest first, successors nearest first) of a node."""
    links = supersede_links(canvas=canvas)
    back: dict[str, str] = {}
    for old, new in links.items():
        back.setdefault(new, old)
    before: list[str] = []
    seen = {node_id}
    current = node_id
    while current in back and back[current] not in seen:
        current = back[current]
        seen.add(current)
        before.append(current)
    after: list[str] = []
    current = node_id
    while current in links and links[current] not in seen:
        current = links[current]
        seen.add(current)
        after.append(current)
    return list(reversed(before)), after


def _last_known(canvas: Canvas, node_ids: list[str]) -> dict[str, ChangeLogEntry]:
    """The latest node entry (any action) per node id."""
    latest: dict[str, ChangeLogEntry] = {}
    for entry in ChangeLogEntry.objects.filter(canvas=canvas, entity="node", target_id__in=node_ids).order_by(
        "revision", "seq"
    ):
        latest[entry.target_id] = entry
    return latest


def _chain_item(
    node_id: str, position: str, entry: ChangeLogEntry | None, live: Node | None, level: int
) -> dict | None:
    if live is not None:
        if not _can_see(level, live.sensitivity):
            return None
        return {
            "id": node_id,
            "position": position,
            "deleted": False,
            "content": live.content,
            "kind": live.kind,
            "superseded_by": str(live.superseded_by_id) if live.superseded_by_id else None,
        }
    if entry is None:
        return None
    # Deleted: show the last version the reader may see.
    data = entry.before if entry.action == "deleted" else entry.after
    needed = entry.visibility_before if entry.action == "deleted" else entry.visibility_after
    if not data or not _ok(needed, level):
        return None
    return {
        "id": node_id,
        "position": position,
        "deleted": True,
        "content": data.get("content", ""),
        "kind": data.get("kind"),
        "superseded_by": data.get("superseded_by"),
    }


# --- timelines -------------------------------------------------------------------------------------------


def node_timeline(
    *,
    canvas: Canvas,
    level: int,
    node_id: str,
    actor_kind: str | None = None,
    include_chain: bool = True,
    include_edges: bool = True,
) -> dict:
    """A node's history: the node now, its superseded chain, and every change the reader may see.

    `entries` holds the node's own entries, those of the edges that touched it and (with
    include_chain) those of every version in its superseded chain, oldest first. Each entry
    names the node it belongs to (`node_id`), so a UI can offer "revert to this version".
    """
    node_id = str(node_id)
    if actor_kind is not None and actor_kind not in ACTOR_KINDS:
        raise InvalidOperation(f"actor_kind must be one of {', '.join(ACTOR_KINDS)}", field="actor_kind")
    live = Node.objects.filter(canvas=canvas, pk=node_id).select_related("created_by").first()
    own = ChangeLogEntry.objects.filter(canvas=canvas, entity="node", target_id=node_id)
    if live is None and not own.exists():
        raise NotFound("no such node", field="node_id")
    if live is not None and not _can_see(level, live.sensitivity):
        raise NotFound("no such node", field="node_id")

    before_ids, after_ids = supersede_chain(canvas=canvas, node_id=node_id)
    chain_ids = [*before_ids, node_id, *after_ids]
    live_nodes = {str(n.id): n for n in Node.objects.filter(canvas=canvas, pk__in=chain_ids)}
    last = _last_known(canvas, chain_ids)
    chain = []
    for nid in chain_ids:
        position = "current" if nid == node_id else ("before" if nid in before_ids else "after")
        item = _chain_item(nid, position, last.get(nid), live_nodes.get(nid), level)
        if item is not None:
            chain.append(item)
    visible_chain = [c["id"] for c in chain]
    node_ids = visible_chain if include_chain else [node_id]

    query = Q(entity="node", target_id__in=node_ids)
    if include_edges:
        for nid in node_ids:
            query |= Q(entity="edge") & (
                Q(after__source=nid) | Q(after__target=nid) | Q(before__source=nid) | Q(before__target=nid)
            )
    queryset = ChangeLogEntry.objects.filter(query, canvas=canvas)
    if actor_kind:
        queryset = queryset.filter(actor_kind=actor_kind)
    entries = list(queryset.select_related("actor_user", "approved_by").order_by("revision", "seq"))
    refs = _undo_refs(canvas.pk, (e.revision for e in entries if e.reason in ("undo", "redo")))
    items = []
    for entry in entries:
        item = entry_to_timeline_item(entry, level=level, undo_refs=refs)
        if item is None:
            continue
        if entry.entity == "node":
            item["node_id"] = entry.target_id
        # "Revert to this version": any version of a node that existed after the change.
        item["revertible"] = (
            entry.entity == "node" and item["action"] in ("created", "updated") and item["after"] is not None
        )
        items.append(item)
    attach_edge_texts(canvas=canvas, items=items, level=level)

    node: dict[str, Any] | None
    if live is not None:
        node = node_to_dict(live)
        deleted = False
    else:
        last_entry = last.get(node_id)
        node = (
            last_entry.before
            if last_entry is not None
            and last_entry.action == "deleted"
            and _ok(last_entry.visibility_before, level)
            else None
        )
        deleted = True
    return {"node": node, "deleted": deleted, "chain": chain, "entries": items}


def canvas_activity(
    *,
    canvas: Canvas,
    level: int,
    limit: int = DEFAULT_ACTIVITY,
    before: int | None = None,
    actor_kind: str | None = None,
) -> dict:
    """Recent changes on a canvas, newest first, as the reader may see them.

    `limit` counts entries (1-200); `before` pages back (entries with revision < before).
    """
    if actor_kind is not None and actor_kind not in ACTOR_KINDS:
        raise InvalidOperation(f"actor_kind must be one of {', '.join(ACTOR_KINDS)}", field="actor_kind")
    limit = max(1, min(int(limit), MAX_ACTIVITY))
    query = ChangeLogEntry.objects.filter(canvas=canvas)
    if before is not None:
        query = query.filter(revision__lt=before)
    if actor_kind:
        query = query.filter(actor_kind=actor_kind)
    # Invisible entries are dropped as they are read; a revision is never split across pages.
    items: list[dict] = []
    rows = query.select_related("actor_user", "approved_by").order_by("-revision", "-seq")
    more = False
    for entry in rows.iterator(chunk_size=limit * 2):
        if len(items) >= limit and entry.revision != items[-1]["revision"]:
            more = True
            break
        item = entry_to_timeline_item(entry, level=level)
        if item is not None:
            items.append(item)
    refs = _undo_refs(canvas.pk, {i["revision"] for i in items if i["reason"] in ("undo", "redo")})
    for item in items:
        item["undo_of"] = refs.get(item["revision"])
    attach_edge_texts(canvas=canvas, items=items, level=level)
    next_before = items[-1]["revision"] if more and items else None
    return {
        "revision": Canvas.objects.filter(pk=canvas.pk).values_list("revision", flat=True).first(),
        "items": items,
        "next_before": next_before,
    }


__all__ = [
    "ADMIN_LEVEL",
    "attach_edge_texts",
    "canvas_activity",
    "entry_to_timeline_item",
    "node_first_lines",
    "node_timeline",
    "supersede_chain",
    "supersede_links",
]

# --- naming the nodes an edge joins ------------------------------------------------------------------------

_TEXT_PREVIEW = 120


def node_first_lines(canvas: Canvas, node_ids: set[str], level: int) -> dict[str, str]:
    """First line of each node's current text (or its last logged text if deleted), for naming edge ends."""
    texts: dict[str, str] = {}
    if not node_ids:
        return texts
    for node in Node.objects.filter(canvas=canvas, pk__in=node_ids).only("id", "content", "sensitivity"):
        if permissions.sensitivity_level(node.sensitivity) <= level:
            texts[str(node.id)] = _first_line(node.content)
    missing = node_ids - texts.keys()
    if missing:
        rows = (
            ChangeLogEntry.objects.filter(canvas=canvas, entity="node", target_id__in=missing)
            .order_by("revision", "seq")
            .values_list("target_id", "before", "after", "visibility_before", "visibility_after")
        )
        for target_id, before, after, vis_before, vis_after in rows:
            data, vis = (after, vis_after) if after else (before, vis_before)
            if data and vis is not None and vis <= level and data.get("content"):
                texts[target_id] = _first_line(data["content"])
    return texts


def _first_line(text: str) -> str:
    lines = (text or "").strip().splitlines()
    return lines[0][:_TEXT_PREVIEW] if lines else ""


def attach_edge_texts(*, canvas: Canvas, items: list[dict], level: int) -> None:
    """Give every edge item `source_text` and `target_text` (the first line of each node, as the reader may see it)."""
    ends: set[str] = set()
    for item in items:
        if item["entity"] == "edge":
            data = item["after"] or item["before"] or {}
            ends.update(str(v) for v in (data.get("source"), data.get("target")) if v)
    texts = node_first_lines(canvas, ends, level)
    for item in items:
        if item["entity"] == "edge":
            data = item["after"] or item["before"] or {}
            item["source_text"] = texts.get(str(data.get("source")), "")
            item["target_text"] = texts.get(str(data.get("target")), "")
