"""The owner's audit view: the change log with filters, node text instead of ids, and a chain check.

Owners read at their own level (the owner sees every sensitivity), so the view
shows everything the owner could see on the canvas anyway; nothing here widens
what a role may read. Entries are shaped by `entry_to_timeline_item`, the same
function as the activity feed, plus what a reviewer needs: the entry's hash,
the texts of the nodes an edge joins, and the agent run it came from.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db.models import Q

from canvasweb.canvases import permissions
from canvasweb.canvases.models import Canvas, Role
from canvasweb.common.errors import Forbidden, InvalidOperation

from .audit import verify_chain
from .models import ChangeLogEntry
from .selectors import ACTOR_KINDS, MAX_ACTIVITY, _undo_refs, attach_edge_texts, entry_to_timeline_item

DEFAULT_AUDIT_PAGE = 50


@dataclass(frozen=True)
class AuditFilters:
    actor_user_id: int | None = None
    actor_kind: str | None = None
    node_id: str | None = None
    since: datetime | None = None
    until: datetime | None = None

    def __post_init__(self) -> None:
        if self.actor_kind is not None and self.actor_kind not in ACTOR_KINDS:
            raise InvalidOperation(f"actor_kind must be one of {', '.join(ACTOR_KINDS)}", field="actor_kind")
        if self.since and self.until and self.since > self.until:
            raise InvalidOperation("since must not be later than until", field="since")


def require_audit_reader(*, role: str, user) -> int:
    """The reading level for the audit view: owners and site staff only."""
    if role == Role.OWNER or getattr(user, "is_staff", False):
        return permissions.role_level(Role.OWNER)
    raise Forbidden("only the canvas owner may review the audit log", field="canvas_id")


def _query(canvas: Canvas, filters: AuditFilters):
    query = ChangeLogEntry.objects.filter(canvas=canvas)
    if filters.actor_kind:
        query = query.filter(actor_kind=filters.actor_kind)
    if filters.actor_user_id is not None:
        query = query.filter(Q(actor_user_id=filters.actor_user_id) | Q(approved_by_id=filters.actor_user_id))
    if filters.node_id:
        nid = filters.node_id
        query = query.filter(
            Q(entity="node", target_id=nid)
            | Q(entity="edge")
            & (Q(after__source=nid) | Q(after__target=nid) | Q(before__source=nid) | Q(before__target=nid))
        )
    if filters.since:
        query = query.filter(created_at__gte=filters.since)
    if filters.until:
        query = query.filter(created_at__lte=filters.until)
    return query


def canvas_audit(
    *,
    canvas: Canvas,
    level: int,
    filters: AuditFilters,
    limit: int = DEFAULT_AUDIT_PAGE,
    before: int | None = None,
) -> dict:
    """One page of the filtered change log, newest first; a revision is never split across pages."""
    limit = max(1, min(int(limit), MAX_ACTIVITY))
    query = _query(canvas, filters)
    if before is not None:
        query = query.filter(revision__lt=before)
    pairs: list[tuple[ChangeLogEntry, dict]] = []
    more = False
    rows = query.select_related("actor_user", "approved_by").order_by("-revision", "-seq")
    for entry in rows.iterator(chunk_size=limit * 2):
        if len(pairs) >= limit and entry.revision != pairs[-1][0].revision:
            more = True
            break
        item = entry_to_timeline_item(entry, level=level)
        if item is not None:
            pairs.append((entry, item))
    refs = _undo_refs(canvas.pk, {e.revision for e, i in pairs if i["reason"] in ("undo", "redo")})
    attach_edge_texts(canvas=canvas, items=[i for _, i in pairs], level=level)
    items = []
    for entry, item in pairs:
        item["undo_of"] = refs.get(entry.revision)
        item["hash"] = entry.hash
        item["prev_hash"] = entry.prev_hash
        item["agent_run_id"] = entry.agent_run_id or None
        item["message_id"] = entry.message_id
        items.append(item)
    next_before = pairs[-1][0].revision if more and pairs else None
    return {
        "revision": Canvas.objects.filter(pk=canvas.pk).values_list("revision", flat=True).first(),
        "items": items,
        "next_before": next_before,
    }


def canvas_audit_actors(*, canvas: Canvas) -> list[dict]:
    """Everyone who appears in the canvas's log (as actor, the person an agent acted for, or approver)."""
    seen: dict[int, str] = {}
    rows = (
        ChangeLogEntry.objects.filter(canvas=canvas, actor_user__isnull=False)
        .values_list("actor_user_id", "actor_user__username")
        .distinct()
    )
    for user_id, username in rows:
        seen[user_id] = username
    approvers = (
        ChangeLogEntry.objects.filter(canvas=canvas, approved_by__isnull=False)
        .values_list("approved_by_id", "approved_by__username")
        .distinct()
    )
    for user_id, username in approvers:
        seen.setdefault(user_id, username)
    return [{"id": uid, "username": name} for uid, name in sorted(seen.items(), key=lambda kv: kv[1].lower())]


def verify_canvas_chain(*, canvas: Canvas) -> dict:
    """The hash-chain check of the CLI's verify_audit, as JSON."""
    report = verify_chain(canvas_id=canvas.pk)
    problem = report.problem
    return {
        "ok": report.ok,
        "entries": report.entries,
        "problem": None
        if problem is None
        else {
            "revision": problem.revision,
            "seq": problem.seq,
            "problem": problem.problem,
            "expected": problem.expected or None,
            "stored": problem.stored or None,
        },
    }
