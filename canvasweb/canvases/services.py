"""The one write path for canvases.

Every change — REST, WebSocket, agent, import, revert, undo — goes through
`apply_operation` (node and edge operations) or the canvas/member services
below, which all share `_commit`:

    lock canvas → check permission → validate → write → revision + 1
    → change log entries (hash-chained) → broadcast after commit

Refusals change nothing and are written to the security log.
"""
from __future__ import annotations

import logging
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from canvasweb.common.errors import CanvasError, Conflict, EditConflict, Forbidden, InvalidOperation, NotFound
from canvasweb.history.chain import entry_digest
from canvasweb.history.models import ChangeLogEntry
from canvasweb.history.security_log import record_security_event

from . import permissions
from .actors import Actor
from .models import AuthorKind, Canvas, Edge, Membership, Node, OpReceipt, Relation, Role
from .operations import EDGE_FIELDS, NODE_FIELDS, Operation, parse_operation
from .serialization import agent_policy_to_dict, canvas_to_dict, edge_to_dict, iso, node_to_dict, user_ref

logger = logging.getLogger(__name__)

# Fields that do not change a node's identity for versioning purposes are none:
# every accepted change bumps `version`, which keys the token cache.
POLICY_FIELDS = {"mode": "agent_mode", "scope": "agent_scope", "protect_pinned": "agent_protect_pinned",
                 "allow_archive": "agent_may_archive", "external_access": "agent_external_access"}


@dataclass
class ApplyResult:
    revision: int
    duplicate: bool
    # Unfiltered change records (with `_vb`/`_va` visibility keys); filter with
    # canvases.visibility before showing them to anyone.
    changes: list[dict]
    event: dict | None = None


@dataclass
class _Write:
    canvas: Canvas
    actor: Actor
    role: str
    op_type: str
    records: list[dict] = field(default_factory=list)
    # Group commit (apply_operations): nodes fetched for the batch, and node updates whose
    # row writes wait for one bulk_update at the end of the batch ({pk: (node, fields)}).
    node_cache: dict | None = None
    deferred: dict | None = None

    def record(self, *, entity: str, action: str, target_id: str, fields: list[str], before: dict | None,
               after: dict | None, vb: int | None, va: int | None) -> None:
        self.records.append({
            "entity": entity, "action": action, "id": target_id, "fields": fields, "data": after,
            "_before": before, "_vb": vb, "_va": va, "_op": self.op_type,
        })


# --- public services -------------------------------------------------------------


def apply_operation(*, actor: Actor, canvas_id: int, op: dict | Operation, client_op_id: str | None = None
                    ) -> ApplyResult:
    """Apply one node/edge operation or a batch atomically, as `actor` (a group commit of one)."""
    outcome = apply_operations(canvas_id=canvas_id, requests=[OpRequest(actor=actor, op=op,
                                                                        client_op_id=client_op_id)],
                               broadcast=True).results[0]
    if isinstance(outcome, BaseException):
        raise outcome
    return outcome


@dataclass
class OpRequest:
    actor: Actor
    op: Any
    client_op_id: str | None = None


@dataclass
class BatchOutcome:
    # Per request, in order: its ApplyResult, or the error that refused it (CanvasError) or broke it.
    results: list[Any]
    # The committed change events in revision order (one per op that changed something).
    events: list[dict]


# Ops whose only writes are plain node fields: applied from the batch's node cache, their rows
# written together by one bulk_update, no savepoint needed (every check runs before any change).
_FAST_OPS = ("node.move", "node.update")


def apply_operations(*, canvas_id: int, requests: list[OpRequest], broadcast: bool = False) -> BatchOutcome:
    """Group commit: apply many node/edge operations (from any actors) on one canvas in one transaction.

    One canvas lock, one membership query, one receipt query, the targeted nodes fetched together,
    one bulk_update of the changed node fields, one bulk INSERT of log entries, one revision UPDATE
    and one receipts INSERT (ON CONFLICT DO NOTHING) for the whole batch. Each op still gets its own
    revision, log entries, receipt and change event, in request order, so the protocol is unchanged.
    One op's refusal does not touch the others: fast ops are fully checked before they change
    anything; every other op runs in its own savepoint. With `broadcast`, events go to the channel
    layer on commit from this thread; otherwise the caller broadcasts `events` after it returns.
    """
    results: list[Any] = [None] * len(requests)
    todo = []
    for i, request in enumerate(requests):
        try:
            _check_client_op_id(request.client_op_id)
            todo.append(i)
        except CanvasError as exc:
            results[i] = exc
    events: list[dict] = []
    if todo:
        try:
            with transaction.atomic():
                events = _apply_batch(canvas_id=canvas_id, requests=requests, todo=todo, results=results)
                if broadcast and events:
                    committed = list(events)
                    transaction.on_commit(lambda: [_broadcast(canvas_id, event) for event in committed])
        except CanvasError as exc:  # the canvas itself is gone: every op gets the same answer
            for i in todo:
                results[i] = exc
            events = []
    for i, request in enumerate(requests):
        if isinstance(results[i], CanvasError):
            _record_refusal(actor=request.actor, canvas_id=canvas_id, op_type=_raw_type(request.op),
                            error=results[i], client_op_id=request.client_op_id)
    return BatchOutcome(results=results, events=events)


def _raw_type(op: Any) -> str:
    raw = op.type if isinstance(op, Operation) else (op.get("type") if isinstance(op, dict) else None)
    return str(raw or "invalid")


def _check_client_op_id(client_op_id: Any) -> None:
    if client_op_id is not None and (not isinstance(client_op_id, str) or not 1 <= len(client_op_id) <= 64):
        raise InvalidOperation("client_op_id must be a string of 1-64 characters", field="client_op_id")


def _member_role(*, actor: Actor, roles: dict[int, str]) -> str | None:
    role = roles.get(actor.user.pk)
    if role is None and actor.channel == "admin" and actor.user.is_staff and not actor.is_agent:
        # Site staff manage canvases and memberships from the Django admin.
        role = Role.OWNER
    return role


def _op_handler(actor: Actor, parsed: Operation) -> Callable[[_Write], None]:
    def handler(write: _Write) -> None:
        for single in parsed.flat():
            write.op_type = single.type
            permissions.require_role(actor=actor, role=write.role, operation=single.type)
            permissions.require_agent_may_write(actor=actor, canvas=write.canvas)
            _OP_HANDLERS[single.type](write, single)
        write.op_type = parsed.type

    return handler


def _apply_batch(*, canvas_id: int, requests: list[OpRequest], todo: list[int], results: list[Any]) -> list[dict]:
    canvas = Canvas.objects.select_for_update().filter(pk=canvas_id, deleted_at__isnull=True).first()
    if canvas is None:
        raise NotFound("no such canvas", field="canvas_id")
    user_ids = {requests[i].actor.user.pk for i in todo}
    roles = dict(Membership.objects.filter(canvas=canvas, user_id__in=user_ids).values_list("user_id", "role"))
    receipts: dict[tuple, ApplyResult] = {}
    op_ids = {requests[i].client_op_id for i in todo if requests[i].client_op_id}
    if op_ids:
        for user_id, op_id, revision, changes in OpReceipt.objects.filter(
                canvas=canvas, user_id__in=user_ids, client_op_id__in=op_ids).values_list(
                "user_id", "client_op_id", "revision", "changes"):
            receipts[(user_id, op_id)] = ApplyResult(revision=revision, duplicate=True, changes=changes)
    parsed: dict[int, Operation] = {}
    for i in todo:
        op = requests[i].op
        try:
            parsed[i] = op if isinstance(op, Operation) else parse_operation(op)
        except CanvasError as exc:
            results[i] = exc
    fast_ids = {parsed[i].target_id for i in parsed if parsed[i].type in _FAST_OPS}
    node_cache = {n.pk: n for n in Node.objects.filter(canvas=canvas, pk__in=fast_ids).select_related(
        "created_by")} if fast_ids else {}
    batch = _Batch(canvas=canvas)
    for i in todo:
        if i not in parsed:
            continue
        request, op = requests[i], parsed[i]
        role = _member_role(actor=request.actor, roles=roles)
        if role is None:
            # Same answer as for a missing canvas: non-members learn nothing.
            results[i] = NotFound("no such canvas", field="canvas_id")
            continue
        key = (request.actor.user.pk, request.client_op_id)
        if request.client_op_id and key in receipts:
            results[i] = receipts[key]
            continue
        fast = op.type in _FAST_OPS
        write = _Write(canvas=canvas, actor=request.actor, role=role, op_type=op.type,
                       node_cache=node_cache if fast else None, deferred=batch.deferred if fast else None)
        handler = _op_handler(request.actor, op)
        try:
            if fast:
                handler(write)
            else:
                # A general op reads and writes rows directly: it sees the batch's node writes so far,
                # and the cached node objects may be stale after it.
                batch.flush_nodes()
                node_cache.clear()
                with transaction.atomic():  # a savepoint: a refusal half-way leaves nothing behind
                    handler(write)
        except CanvasError as exc:
            results[i] = exc
            continue
        except Exception as exc:  # a bug or a database error in one op must not fail the others
            if fast:
                raise  # no savepoint to roll back to: the batch fails as a whole
            logger.exception("op %s failed on canvas %s", op.type, canvas_id)
            results[i] = exc
            continue
        result = batch.add(write, client_op_id=request.client_op_id)
        if request.client_op_id:
            receipts[key] = ApplyResult(revision=result.revision, duplicate=True, changes=result.changes)
        results[i] = result
    batch.finish()
    return batch.events


def _update_node_rows(nodes: list[Node], fields: tuple[str, ...]) -> None:
    """bulk_update of `fields` as one parameterized UPDATE run for every node (executemany).

    Django's bulk_update builds a CASE WHEN per field and row, which costs more CPU than the
    database spends on it (~6 ms per node at batch size 50); this is the same write, cheaper.
    """
    connection = transaction.get_connection()
    columns = [Node._meta.get_field(name) for name in fields]
    pk = Node._meta.pk
    qn = connection.ops.quote_name
    # Identifiers come from the model's own metadata (quoted); every value is a parameter.
    assignments = ", ".join(f"{qn(column.column)} = %s" for column in columns)
    sql = f"UPDATE {qn(Node._meta.db_table)} SET {assignments} WHERE {qn(pk.column)} = %s"  # nosec B608
    rows = [[column.get_db_prep_save(getattr(node, column.attname), connection) for column in columns]
            + [pk.get_db_prep_value(node.pk, connection)] for node in nodes]
    with connection.cursor() as cursor:
        cursor.executemany(sql, rows)


class _Batch:
    """Revisions, log entries and receipts of a group commit, written together by `finish`."""

    def __init__(self, *, canvas: Canvas) -> None:
        self.canvas = canvas
        self.entries: list[ChangeLogEntry] = []
        self.receipts: list[OpReceipt] = []
        self.events: list[dict] = []
        self.deferred: dict = {}
        self.first_revision = canvas.revision

    def add(self, write: _Write, *, client_op_id: str | None) -> ApplyResult:
        if not write.records:
            # Nothing changed (e.g. a field set to its current value): no revision.
            result = ApplyResult(revision=self.canvas.revision, duplicate=False, changes=[])
        else:
            result = _log_and_bump(write, client_op_id=client_op_id, entries=self.entries)
            self.events.append(result.event)
        if client_op_id:
            self.receipts.append(OpReceipt(canvas=self.canvas, user=write.actor.user, client_op_id=client_op_id,
                                           revision=result.revision, changes=result.changes))
        return result

    def flush_nodes(self) -> None:
        by_fields: dict[tuple, list[Node]] = {}
        for node, fields in self.deferred.values():
            by_fields.setdefault(tuple(sorted(fields)), []).append(node)
        for fields, nodes in by_fields.items():
            _update_node_rows(nodes, fields)
        self.deferred.clear()

    def finish(self) -> None:
        self.flush_nodes()
        if self.entries:
            ChangeLogEntry.objects.bulk_create(self.entries)
        if self.canvas.revision != self.first_revision:
            Canvas.objects.filter(pk=self.canvas.pk).update(revision=self.canvas.revision,
                                                            last_hash=self.canvas.last_hash,
                                                            updated_at=timezone.now())
        if self.receipts:
            # The canvas lock already serializes receipts; ON CONFLICT DO NOTHING is the backstop.
            OpReceipt.objects.bulk_create(self.receipts, ignore_conflicts=True)


def canvas_create(*, user, name: str, description: str = "") -> Canvas:
    """Create a canvas owned by `user` (revision 1 records its creation)."""
    name = _clean_name(name)
    description = _clean_description(description)
    actor = Actor(user=user, kind="user", channel="rest")
    # One transaction: the canvas, its first owner and the log entries, or nothing.
    with transaction.atomic():
        canvas = Canvas.objects.create(name=name, description=description, created_by=user)
        Membership.objects.create(canvas=canvas, user=user, role=Role.OWNER)

        def handler(write: _Write) -> None:
            write.record(entity="canvas", action="created", target_id=str(canvas.pk), fields=[], before=None,
                         after=canvas_to_dict(canvas), vb=0, va=0)
            write.record(entity="member", action="created", target_id=str(user.pk), fields=[], before=None,
                         after={"user": user_ref(user), "role": Role.OWNER}, vb=0, va=0)

        _commit(actor=actor, canvas_id=canvas.pk, op_type="canvas.create", handler=handler)
    canvas.refresh_from_db()
    return canvas


def canvas_update(*, actor: Actor, canvas_id: int, name: str | None = None, description: str | None = None,
                  agent_policy: dict | None = None) -> ApplyResult:
    def handler(write: _Write) -> None:
        permissions.require_role(actor=actor, role=write.role, operation="canvas.update")
        canvas = write.canvas
        before = canvas_to_dict(canvas)
        changed: list[str] = []
        if name is not None and _clean_name(name) != canvas.name:
            canvas.name = _clean_name(name)
            changed.append("name")
        if description is not None and _clean_description(description) != canvas.description:
            canvas.description = _clean_description(description)
            changed.append("description")
        if agent_policy is not None:
            for key, value in _clean_policy(agent_policy).items():
                if getattr(canvas, POLICY_FIELDS[key]) != value:
                    setattr(canvas, POLICY_FIELDS[key], value)
                    changed.append(f"agent_policy.{key}")
        if changed:
            canvas.save()
            write.record(entity="canvas", action="updated", target_id=str(canvas.pk), fields=changed,
                         before=before, after=canvas_to_dict(canvas), vb=0, va=0)

    return _commit(actor=actor, canvas_id=canvas_id, op_type="canvas.update", handler=handler)


def canvas_delete(*, actor: Actor, canvas_id: int) -> ApplyResult:
    """Hide the canvas; its change log stays (append-only)."""
    def handler(write: _Write) -> None:
        permissions.require_role(actor=actor, role=write.role, operation="canvas.delete")
        before = canvas_to_dict(write.canvas)
        write.canvas.deleted_at = timezone.now()
        write.canvas.save()
        write.record(entity="canvas", action="deleted", target_id=str(write.canvas.pk), fields=[],
                     before=before, after=None, vb=0, va=None)

    return _commit(actor=actor, canvas_id=canvas_id, op_type="canvas.delete", handler=handler)


def member_set(*, actor: Actor, canvas_id: int, role: str, username: str | None = None,
               user_id: int | None = None) -> ApplyResult:
    """Add a member or change a member's role (owners only)."""
    if role not in Role.values:
        raise InvalidOperation(f"role must be one of {', '.join(Role.values)}", field="role")

    def handler(write: _Write) -> None:
        permissions.require_role(actor=actor, role=write.role, operation="member.manage")
        user = _find_user(username=username, user_id=user_id)
        membership = Membership.objects.filter(canvas=write.canvas, user=user).first()
        if membership is None:
            Membership.objects.create(canvas=write.canvas, user=user, role=role)
            write.record(entity="member", action="created", target_id=str(user.pk), fields=[], before=None,
                         after={"user": user_ref(user), "role": role}, vb=0, va=0)
        elif membership.role != role:
            if membership.role == Role.OWNER:
                _require_another_owner(write.canvas, user)
            before = {"user": user_ref(user), "role": membership.role}
            membership.role = role
            membership.save(update_fields=["role"])
            write.record(entity="member", action="updated", target_id=str(user.pk), fields=["role"],
                         before=before, after={"user": user_ref(user), "role": role}, vb=0, va=0)

    return _commit(actor=actor, canvas_id=canvas_id, op_type="member.set", handler=handler)


def member_remove(*, actor: Actor, canvas_id: int, user_id: int) -> ApplyResult:
    def handler(write: _Write) -> None:
        permissions.require_role(actor=actor, role=write.role, operation="member.manage")
        membership = Membership.objects.filter(canvas=write.canvas, user_id=user_id).select_related("user").first()
        if membership is None:
            raise NotFound("no such member", field="user_id")
        if membership.role == Role.OWNER:
            _require_another_owner(write.canvas, membership.user)
        before = {"user": user_ref(membership.user), "role": membership.role}
        membership.delete()
        write.record(entity="member", action="deleted", target_id=str(user_id), fields=[], before=before,
                     after=None, vb=0, va=None)

    return _commit(actor=actor, canvas_id=canvas_id, op_type="member.remove", handler=handler)


# --- the shared commit ------------------------------------------------------------


def _commit(*, actor: Actor, canvas_id: int, op_type: str, handler: Callable[[_Write], None],
            client_op_id: str | None = None) -> ApplyResult:
    try:
        return _commit_or_raise(actor=actor, canvas_id=canvas_id, op_type=op_type, handler=handler,
                                client_op_id=client_op_id)
    except CanvasError as exc:
        _record_refusal(actor=actor, canvas_id=canvas_id, op_type=op_type, error=exc, client_op_id=client_op_id)
        raise


def _commit_or_raise(*, actor: Actor, canvas_id: int, op_type: str, handler: Callable[[_Write], None],
                     client_op_id: str | None) -> ApplyResult:
    _check_client_op_id(client_op_id)
    with transaction.atomic():
        canvas = Canvas.objects.select_for_update().filter(pk=canvas_id, deleted_at__isnull=True).first()
        if canvas is None:
            raise NotFound("no such canvas", field="canvas_id")
        roles = dict(Membership.objects.filter(canvas=canvas, user=actor.user).values_list("user_id", "role"))
        role = _member_role(actor=actor, roles=roles)
        if role is None:
            # Same answer as for a missing canvas: non-members learn nothing.
            raise NotFound("no such canvas", field="canvas_id")
        if client_op_id:
            receipt = OpReceipt.objects.filter(canvas=canvas, user=actor.user, client_op_id=client_op_id).first()
            if receipt is not None:
                return ApplyResult(revision=receipt.revision, duplicate=True, changes=receipt.changes)

        write = _Write(canvas=canvas, actor=actor, role=role, op_type=op_type)
        handler(write)
        batch = _Batch(canvas=canvas)
        result = batch.add(write, client_op_id=client_op_id)
        batch.finish()
        if result.event is not None:
            event = result.event
            transaction.on_commit(lambda: _broadcast(canvas.pk, event))
        return result


def _log_and_bump(write: _Write, *, client_op_id: str | None, entries: list) -> ApplyResult:
    """Next revision for `write`: its log entries (chained from canvas.last_hash) go into `entries`;
    the caller writes them and the canvas row (`_Batch.finish`)."""
    canvas = write.canvas
    canvas.revision += 1
    now = timezone.now()
    prev_hash = canvas.last_hash or ""
    actor = write.actor
    for seq, record in enumerate(write.records):
        entry = ChangeLogEntry(
            canvas=canvas, revision=canvas.revision, seq=seq, op_type=record["_op"], entity=record["entity"],
            action=record["action"], target_id=record["id"], fields=record["fields"], before=record["_before"],
            after=record["data"], visibility_before=record["_vb"], visibility_after=record["_va"],
            actor_kind=actor.kind, actor_user=actor.user, actor_username=actor.user.get_username(),
            approved_by=actor.approved_by, conversation_id=actor.conversation_id, message_id=actor.message_id,
            agent_run_id=actor.agent_run_id, reason=actor.reason, client_op_id=client_op_id or "", created_at=now,
            prev_hash=prev_hash,
        )
        entry.hash = entry_digest(entry, prev_hash)
        prev_hash = entry.hash
        entries.append(entry)
    canvas.last_hash = prev_hash
    changes = [_public_record(r) for r in write.records]
    event = {
        "type": "change",
        "revision": canvas.revision,
        "client_op_id": client_op_id,
        "actor": actor_to_dict(actor),
        "at": iso(now),
        "changes": changes,
    }
    return ApplyResult(revision=canvas.revision, duplicate=False, changes=changes, event=event)


def _public_record(record: dict) -> dict:
    return {k: v for k, v in record.items() if k not in ("_before", "_op")}


def actor_to_dict(actor: Actor) -> dict:
    return {
        "kind": actor.kind,
        "user": user_ref(actor.user),
        "on_behalf_of": user_ref(actor.user) if actor.is_agent else None,
        "approved_by": user_ref(actor.approved_by),
        "conversation_id": actor.conversation_id,
        "reason": actor.reason or None,
        "via": actor.via or None,
    }


def _broadcast(canvas_id: int, event: dict) -> None:
    # Imported here: the realtime package imports services for its consumers.
    from .realtime.broadcast import broadcast_change

    broadcast_change(canvas_id=canvas_id, event=event)


def _record_refusal(*, actor: Actor, canvas_id: int, op_type: str, error: CanvasError,
                    client_op_id: str | None) -> None:
    try:
        record_security_event(  # identical refusals in a short window share one row
            canvas_id_ref=canvas_id if isinstance(canvas_id, int) else None,
            user=actor.user, actor_kind=actor.kind, channel=actor.channel, op_type=op_type[:40], code=error.code,
            reason=error.message, detail={"field": error.field, "client_op_id": client_op_id},
            conversation_id=actor.conversation_id,
        )
    except Exception:  # the refusal itself must still reach the caller
        logger.exception("could not record a security event")


# --- node and edge handlers ---------------------------------------------------------


def _node_level(node: Node) -> int:
    return permissions.sensitivity_level(node.sensitivity)


def _edge_level(source: Node, target: Node) -> int:
    return max(_node_level(source), _node_level(target))


def _get_node(write: _Write, node_id: uuid.UUID, *, field_name: str = "id") -> Node:
    cache = write.node_cache
    node = cache.get(node_id) if cache is not None else None
    if node is None:
        node = Node.objects.filter(pk=node_id, canvas=write.canvas).select_related("created_by").first()
        if node is not None and cache is not None:
            cache[node.pk] = node
    if node is None or not permissions.can_see(write.role, node.sensitivity):
        # A node of another canvas answers exactly like an unknown id: ids leak nothing.
        raise NotFound(f"no node {node_id} on this canvas", field=field_name)
    return node


def _get_edge(write: _Write, edge_id: uuid.UUID) -> Edge:
    edge = Edge.objects.filter(pk=edge_id, canvas=write.canvas).select_related("source", "target", "created_by"
                                                                                ).first()
    if edge is None or _edge_level(edge.source, edge.target) > permissions.role_level(write.role):
        raise NotFound(f"no edge {edge_id} on this canvas", field="id")
    return edge


def _create_node(write: _Write, body: dict, *, field_prefix: str = "node.") -> Node:
    permissions.require_sensitivity_allowed(role=write.role, sensitivity=body["sensitivity"],
                                            field=f"{field_prefix}sensitivity")
    permissions.require_agent_may_set(actor=write.actor, canvas=write.canvas, fields=body)
    if Node.objects.filter(pk=body["id"]).exists() or Edge.objects.filter(pk=body["id"]).exists():
        raise Conflict(f"id {body['id']} already exists", field=f"{field_prefix}id")
    actor = write.actor
    node = Node.objects.create(
        id=body["id"], canvas=write.canvas, content=body["content"], kind=body["kind"], x=body["x"], y=body["y"],
        weight=body["weight"], tags=body["tags"], pinned=body["pinned"], sensitivity=body["sensitivity"],
        created_by=actor.user, author_kind=AuthorKind.AGENT if actor.is_agent else AuthorKind.USER,
        provenance=_agent_provenance(actor),
    )
    write.record(entity="node", action="created", target_id=str(node.id), fields=[], before=None,
                 after=node_to_dict(node), vb=None, va=_node_level(node))
    return node


def _agent_provenance(actor: Actor) -> dict | None:
    if not actor.is_agent:
        return None
    return {
        "on_behalf_of": user_ref(actor.user),
        "conversation_id": actor.conversation_id,
        "message_id": actor.message_id,
        "agent_run_id": actor.agent_run_id or None,
        "approved_by": user_ref(actor.approved_by),
        "via": actor.via or None,
    }


def _update_node_fields(write: _Write, node: Node, fields: dict[str, Any]) -> None:
    if "sensitivity" in fields:
        permissions.require_sensitivity_allowed(role=write.role, sensitivity=fields["sensitivity"],
                                                field="fields.sensitivity")
    permissions.require_agent_may_set(actor=write.actor, canvas=write.canvas, fields=fields)
    before = node_to_dict(node)
    before_level = _node_level(node)
    changed = [name for name in NODE_FIELDS if name in fields and getattr(node, name) != fields[name]]
    changed += [name for name in ("archived", "superseded_by") if name in fields
                and getattr(node, name if name != "superseded_by" else "superseded_by_id") != fields[name]]
    if not changed:
        return
    for name in changed:
        setattr(node, name if name != "superseded_by" else "superseded_by_id", fields[name])
    node.version += 1
    if write.deferred is not None and all(name in NODE_FIELDS for name in changed):
        # Group commit: written by the batch's bulk_update (changed fields only).
        node.updated_at = timezone.now()
        _, pending = write.deferred.setdefault(node.pk, (node, set()))
        pending.update(changed, ("version", "updated_at"))
    else:
        node.save(update_fields=[*changed, "version", "updated_at"])
    write.record(entity="node", action="updated", target_id=str(node.id), fields=changed, before=before,
                 after=node_to_dict(node), vb=before_level, va=_node_level(node))
    if _node_level(node) != before_level:
        _record_edge_visibility(write, node, before_level)


def _record_edge_visibility(write: _Write, node: Node, before_level: int) -> None:
    """The node's sensitivity changed, so may its edges' levels: each edge whose level changed gets a record
    with empty `fields`, so a role that loses (or regains) the node loses (or regains) its edges in the
    same event (canvases/visibility.py turns it into `removed` / `created`; others skip it)."""
    after_level = _node_level(node)
    for edge in Edge.objects.filter(Q(source=node) | Q(target=node)).select_related("source", "target",
                                                                                     "created_by"):
        other_level = _node_level(edge.target if edge.source_id == node.pk else edge.source)
        vb, va = max(before_level, other_level), max(after_level, other_level)
        if vb != va:
            data = edge_to_dict(edge)
            write.record(entity="edge", action="updated", target_id=str(edge.id), fields=[], before=data,
                         after=data, vb=vb, va=va)


def _op_node_create(write: _Write, op: Operation) -> None:
    _create_node(write, op.body)


def _op_node_update(write: _Write, op: Operation) -> None:
    node = _get_node(write, op.target_id)
    permissions.require_agent_may_touch(actor=write.actor, canvas=write.canvas, node=node, operation=op.type)
    if op.base_version is not None:
        _require_fresh_content_base(write, node, op)
    _update_node_fields(write, node, op.fields)


def _require_fresh_content_base(write: _Write, node: Node, op: Operation) -> None:
    """Refuse a content edit whose base another writer's content change has overtaken (docs/protocol.md).

    Only `content` is checked: other fields stay last-writer-wins. The actor's own
    later versions never conflict, so queued offline edits of one person apply in order.
    """
    if op.base_version > node.version:
        raise InvalidOperation(f"base_version {op.base_version} is newer than the node (version {node.version})",
                               field="base_version")
    if "content" not in op.fields or op.fields["content"] == node.content or op.base_version == node.version:
        return
    newer = ChangeLogEntry.objects.filter(canvas=write.canvas, entity="node", target_id=str(node.id)).order_by(
        "-revision", "-seq").values_list("fields", "after", "actor_kind", "actor_user_id")
    for fields, after, actor_kind, actor_user_id in newer.iterator():
        version = (after or {}).get("version")
        if not isinstance(version, int) or version <= op.base_version:
            return
        own = actor_kind == write.actor.kind == "user" and actor_user_id == write.actor.user.pk
        if "content" in fields and not own:
            raise EditConflict(
                f"node {node.id} was edited by someone else since version {op.base_version} "
                f"(now version {node.version}); your text was not saved",
                field="fields.content", current=node_to_dict(node))


def _op_node_delete(write: _Write, op: Operation) -> None:
    node = _get_node(write, op.target_id)
    node_level = _node_level(node)
    # Edges first (each logged, deleted in one statement), then successors' back-references, then the node.
    edges = list(Edge.objects.filter(Q(source=node) | Q(target=node)).select_related("source", "target",
                                                                                      "created_by"))
    for edge in edges:
        before = edge_to_dict(edge)
        write.record(entity="edge", action="deleted", target_id=before["id"], fields=[], before=before,
                     after=None, vb=_edge_level(edge.source, edge.target), va=None)
    if edges:
        Edge.objects.filter(pk__in=[edge.pk for edge in edges]).delete()
    for predecessor in Node.objects.filter(superseded_by=node).select_related("created_by"):
        _update_node_fields(write, predecessor, {"superseded_by": None})
    before = node_to_dict(node)
    node.delete()
    write.record(entity="node", action="deleted", target_id=before["id"], fields=[], before=before, after=None,
                 vb=node_level, va=None)


def _op_node_supersede(write: _Write, op: Operation) -> None:
    old = _get_node(write, op.target_id)
    permissions.require_agent_may_touch(actor=write.actor, canvas=write.canvas, node=old, operation=op.type)
    if old.superseded_by_id is not None:
        raise InvalidOperation(f"node {old.id} is already superseded by {old.superseded_by_id}", field="id")
    new = _create_node(write, op.body)
    _update_node_fields(write, old, {"superseded_by": new.id})
    edge = Edge.objects.create(canvas=write.canvas, source=new, target=old, relation=Relation.SUPERSEDES,
                               created_by=write.actor.user,
                               author_kind=AuthorKind.AGENT if write.actor.is_agent else AuthorKind.USER)
    write.record(entity="edge", action="created", target_id=str(edge.id), fields=[], before=None,
                 after=edge_to_dict(edge), vb=None, va=_edge_level(new, old))


def _op_node_archive(write: _Write, op: Operation) -> None:
    node = _get_node(write, op.target_id)
    permissions.require_agent_may_touch(actor=write.actor, canvas=write.canvas, node=node, operation=op.type)
    _update_node_fields(write, node, {"archived": op.fields["archived"]})


def _op_edge_create(write: _Write, op: Operation) -> None:
    body = op.body
    source = _get_node(write, body["source"], field_name="edge.source")
    target = _get_node(write, body["target"], field_name="edge.target")
    if write.actor.is_agent:
        # In a restricted scope the agent may link only from nodes it may change.
        permissions.require_agent_may_touch(actor=write.actor, canvas=write.canvas, node=source, operation=op.type)
    if Edge.objects.filter(pk=body["id"]).exists() or Node.objects.filter(pk=body["id"]).exists():
        raise Conflict(f"id {body['id']} already exists", field="edge.id")
    edge = Edge.objects.create(
        id=body["id"], canvas=write.canvas, source=source, target=target, relation=body["relation"],
        label=body["label"], created_by=write.actor.user,
        author_kind=AuthorKind.AGENT if write.actor.is_agent else AuthorKind.USER,
    )
    write.record(entity="edge", action="created", target_id=str(edge.id), fields=[], before=None,
                 after=edge_to_dict(edge), vb=None, va=_edge_level(source, target))


def _op_edge_update(write: _Write, op: Operation) -> None:
    edge = _get_edge(write, op.target_id)
    if write.actor.is_agent:
        permissions.require_agent_may_touch(actor=write.actor, canvas=write.canvas, node=edge.source,
                                            operation=op.type)
    changed = [name for name in EDGE_FIELDS if name in op.fields and getattr(edge, name) != op.fields[name]]
    if not changed:
        return
    before = edge_to_dict(edge)
    for name in changed:
        setattr(edge, name, op.fields[name])
    edge.version += 1
    edge.save()
    level = _edge_level(edge.source, edge.target)
    write.record(entity="edge", action="updated", target_id=str(edge.id), fields=changed, before=before,
                 after=edge_to_dict(edge), vb=level, va=level)


def _op_edge_delete(write: _Write, op: Operation) -> None:
    edge = _get_edge(write, op.target_id)
    before = edge_to_dict(edge)
    level = _edge_level(edge.source, edge.target)
    edge.delete()
    write.record(entity="edge", action="deleted", target_id=before["id"], fields=[], before=before, after=None,
                 vb=level, va=None)


_OP_HANDLERS: dict[str, Callable[[_Write, Operation], None]] = {
    "node.create": _op_node_create,
    "node.update": _op_node_update,
    "node.move": _op_node_update,
    "node.delete": _op_node_delete,
    "node.supersede": _op_node_supersede,
    "node.archive": _op_node_archive,
    "edge.create": _op_edge_create,
    "edge.update": _op_edge_update,
    "edge.delete": _op_edge_delete,
}


# --- small validators for canvas and member services ---------------------------------


def _clean_name(name: Any) -> str:
    if not isinstance(name, str) or not name.strip():
        raise InvalidOperation("name must be a non-empty string", field="name")
    if len(name.strip()) > 200:
        raise InvalidOperation("name must be at most 200 characters", field="name")
    return name.strip()


def _clean_description(description: Any) -> str:
    if not isinstance(description, str) or len(description) > 2000:
        raise InvalidOperation("description must be a string of at most 2000 characters", field="description")
    return description


def _clean_policy(policy: Any) -> dict:
    from .models import AgentMode, AgentScope

    if not isinstance(policy, dict):
        raise InvalidOperation("agent_policy must be an object", field="agent_policy")
    unknown = set(policy) - set(POLICY_FIELDS)
    if unknown:
        raise InvalidOperation(f"unknown field agent_policy.{sorted(unknown)[0]}", field="agent_policy")
    clean = {}
    if "mode" in policy:
        if policy["mode"] not in AgentMode.values:
            raise InvalidOperation(f"mode must be one of {', '.join(AgentMode.values)}", field="agent_policy.mode")
        clean["mode"] = policy["mode"]
    if "scope" in policy:
        if policy["scope"] not in AgentScope.values:
            raise InvalidOperation(f"scope must be one of {', '.join(AgentScope.values)}",
                                   field="agent_policy.scope")
        clean["scope"] = policy["scope"]
    for flag in ("protect_pinned", "allow_archive", "external_access"):
        if flag in policy:
            if not isinstance(policy[flag], bool):
                raise InvalidOperation(f"{flag} must be true or false", field=f"agent_policy.{flag}")
            clean[flag] = policy[flag]
    return clean


def _find_user(*, username: str | None, user_id: int | None):
    User = get_user_model()
    if username is not None:
        if not isinstance(username, str):
            raise InvalidOperation("username must be a string", field="username")
        user = User.objects.filter(username=username, is_active=True).first()
        if user is None:
            raise NotFound(f"no user named {username!r}", field="username")
        return user
    user = User.objects.filter(pk=user_id, is_active=True).first()
    if user is None:
        raise NotFound("no such user", field="user_id")
    return user


def _require_another_owner(canvas: Canvas, leaving) -> None:
    if not Membership.objects.filter(canvas=canvas, role=Role.OWNER).exclude(user=leaving).exists():
        raise InvalidOperation("a canvas must keep at least one owner", field="role")


# --- deleting a user ----------------------------------------------------------------------


def user_delete(*, user, transfer: bool = True) -> dict:
    """Delete a user account through the write path (Membership.user is PROTECT: nothing else can).

    On every live canvas the user leaves as a logged, broadcast revision. Where they are the last owner,
    ownership passes first to the longest-standing editor (else viewer) when `transfer`, or the deletion
    is refused (nothing changed). A canvas where they are the only member is deleted (soft, logged).
    The hash-chained change log names its actors (actor_user_id is hashed, and PROTECT): a user who
    appears in it is deactivated (no password, no token, inactive) instead of removed; others are deleted.
    """
    memberships = list(Membership.objects.filter(user=user).select_related("canvas").order_by("canvas_id"))
    plan: list[tuple[Membership, Membership | None]] = []
    for membership in memberships:
        canvas = membership.canvas
        heir = None
        if canvas.deleted_at is None and membership.role == Role.OWNER and not Membership.objects.filter(
                canvas=canvas, role=Role.OWNER).exclude(user=user).exists():
            heir = (Membership.objects.filter(canvas=canvas).exclude(user=user).select_related("user")
                    .order_by(models_role_rank(), "id").first())
            if heir is not None and not transfer:
                raise Conflict(f"{user.get_username()} is the last owner of canvas {canvas.pk}; transfer "
                               "ownership first", field="user")
        plan.append((membership, heir))
    actor = Actor(user=user, kind="user", channel="admin", reason="account deleted")
    report: dict[str, Any] = {"left": [], "transferred": [], "deleted_canvases": []}
    with transaction.atomic():
        for membership, heir in plan:
            canvas_id = membership.canvas_id
            if membership.canvas.deleted_at is not None:
                membership.delete()  # the canvas is gone: nobody to tell
                continue
            if heir is not None:
                member_set(actor=actor, canvas_id=canvas_id, user_id=heir.user_id, role=Role.OWNER)
                report["transferred"].append({"canvas_id": canvas_id, "to": heir.user_id})
            elif membership.role == Role.OWNER and not Membership.objects.filter(
                    canvas_id=canvas_id).exclude(user=user).exists():
                canvas_delete(actor=actor, canvas_id=canvas_id)
                Membership.objects.filter(canvas_id=canvas_id, user=user).delete()
                report["deleted_canvases"].append(canvas_id)
                continue
            _commit(actor=actor, canvas_id=canvas_id, op_type="member.remove",
                    handler=lambda write, uid=user.pk: _leave(write, uid))
            report["left"].append(canvas_id)
        if ChangeLogEntry.objects.filter(Q(actor_user=user) | Q(approved_by=user)).exists():
            from rest_framework.authtoken.models import Token

            user.is_active = False
            user.set_unusable_password()
            user.save(update_fields=["is_active", "password"])
            Token.objects.filter(user=user).delete()
            report["deactivated"] = True
        else:
            user.delete()
            report["deactivated"] = False
    return report


def receipts_prune(*, before) -> int:
    """Retention (canvasweb/history/retention.py): op receipts created before `before` are dropped."""
    return OpReceipt.objects.filter(created_at__lt=before).delete()[0]


def models_role_rank():
    from django.db.models import Case, IntegerField, Value, When

    return Case(When(role=Role.OWNER, then=Value(0)), When(role=Role.EDITOR, then=Value(1)), default=Value(2),
                output_field=IntegerField())


def _leave(write: _Write, user_id: int) -> None:
    """A member leaving (their account is deleted): allowed for every role, unlike member_remove."""
    membership = Membership.objects.filter(canvas=write.canvas, user_id=user_id).select_related("user").first()
    if membership is None:
        return
    if membership.role == Role.OWNER:
        _require_another_owner(write.canvas, membership.user)
    before = {"user": user_ref(membership.user), "role": membership.role}
    membership.delete()
    write.record(entity="member", action="deleted", target_id=str(user_id), fields=[], before=before, after=None,
                 vb=0, va=None)


__all__ = [
    "ApplyResult",
    "BatchOutcome",
    "Forbidden",
    "OpRequest",
    "actor_to_dict",
    "agent_policy_to_dict",
    "apply_operation",
    "apply_operations",
    "canvas_create",
    "canvas_delete",
    "canvas_update",
    "member_remove",
    "member_set",
    "user_delete",
]
