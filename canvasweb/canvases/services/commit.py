"""The shared commit: lock → role → handler → revision + 1 → hash-chained log → broadcast on commit.

Every write of the package ends here: `_commit` for one service call, `_Batch` for a group commit
(canvases/services/batch.py). Refusals are written to the security log.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db import transaction
from django.db.models import Field
from django.utils import timezone

from canvasweb.common.errors import CanvasError, InvalidOperation, NotFound
from canvasweb.history.chain import entry_digest
from canvasweb.history.models import ChangeLogEntry
from canvasweb.history.security_log import record_security_event

from ..actors import Actor
from ..models import Canvas, Membership, Node, OpReceipt, Role
from ..serialization import iso, user_ref
from .new_ids import IdOwners
from .pipeline import bound_cursor, insert_rows, update_row

logger = logging.getLogger(__name__)


@dataclass
class ApplyResult:
    revision: int
    duplicate: bool
    # Unfiltered change records (with `_vb`/`_va` visibility keys); filter with
    # canvases.visibility before showing them to anyone.
    changes: list[dict[str, Any]]
    event: dict[str, Any] | None = None


@dataclass
class _Write:
    canvas: Canvas
    actor: Actor
    role: str
    op_type: str
    records: list[dict[str, Any]] = field(default_factory=list)
    # Group commit (apply_operations): nodes fetched for the batch, and node updates whose
    # row writes wait for one bulk_update at the end of the batch ({pk: (node, fields)}).
    node_cache: dict[uuid.UUID, Node] | None = None
    deferred: dict[uuid.UUID, tuple[Node, set[str]]] | None = None
    # Group commit: new nodes whose INSERT waits for the batch's (services/batch.py), and what the
    # batch knows of the ids its creates ask for (services/new_ids.py).
    new_nodes: list[Node] | None = None
    new_ids: IdOwners | None = None
    # Group commit: node/edge ids the batch's earlier ops logged, not yet in the database ({id: entity}).
    logged: dict[str, str] | None = None

    def record(
        self,
        *,
        entity: str,
        action: str,
        target_id: str,
        fields: list[str],
        before: dict[str, Any] | None,
        after: dict[str, Any] | None,
        vb: int | None,
        va: int | None,
    ) -> None:
        self.records.append(
            {
                "entity": entity,
                "action": action,
                "id": target_id,
                "fields": fields,
                "data": after,
                "_before": before,
                "_vb": vb,
                "_va": va,
                "_op": self.op_type,
            }
        )


def _commit(
    *,
    actor: Actor,
    canvas_id: int,
    op_type: str,
    handler: Callable[[_Write], None],
    client_op_id: str | None = None,
) -> ApplyResult:
    try:
        return _commit_or_raise(
            actor=actor, canvas_id=canvas_id, op_type=op_type, handler=handler, client_op_id=client_op_id
        )
    except CanvasError as exc:
        _record_refusal(
            actor=actor, canvas_id=canvas_id, op_type=op_type, error=exc, client_op_id=client_op_id
        )
        raise


def _commit_or_raise(
    *, actor: Actor, canvas_id: int, op_type: str, handler: Callable[[_Write], None], client_op_id: str | None
) -> ApplyResult:
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
            receipt = OpReceipt.objects.filter(
                canvas=canvas, user=actor.user, client_op_id=client_op_id
            ).first()
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


def _check_client_op_id(client_op_id: Any) -> None:
    if client_op_id is not None and (not isinstance(client_op_id, str) or not 1 <= len(client_op_id) <= 64):
        raise InvalidOperation("client_op_id must be a string of 1-64 characters", field="client_op_id")


def _member_role(*, actor: Actor, roles: dict[int, str]) -> str | None:
    role = roles.get(actor.user.pk)
    if role is None and actor.channel == "admin" and actor.user.is_staff and not actor.is_agent:
        # Site staff manage canvases and memberships from the Django admin.
        role = Role.OWNER
    return role


class _Batch:
    """Revisions, log entries and receipts of a group commit, written together by `finish`."""

    def __init__(self, *, canvas: Canvas) -> None:
        self.canvas = canvas
        self.entries: list[ChangeLogEntry] = []
        self.receipts: list[OpReceipt] = []
        self.events: list[dict[str, Any]] = []
        self.deferred: dict[uuid.UUID, tuple[Node, set[str]]] = {}
        self.new_nodes: list[Node] = []
        self.logged: dict[str, str] = {}  # see _Write.logged
        self.first_revision = canvas.revision

    def add(self, write: _Write, *, client_op_id: str | None) -> ApplyResult:
        if not write.records:
            # Nothing changed (e.g. a field set to its current value): no revision.
            result = ApplyResult(revision=self.canvas.revision, duplicate=False, changes=[])
        else:
            result = _log_and_bump(write, client_op_id=client_op_id, entries=self.entries)
            self.logged.update((r["id"], r["entity"]) for r in write.records)
            if result.event is not None:
                self.events.append(result.event)
        if client_op_id:
            self.receipts.append(
                OpReceipt(
                    canvas=self.canvas,
                    user=write.actor.user,
                    client_op_id=client_op_id,
                    revision=result.revision,
                    changes=result.changes,
                )
            )
        return result

    def flush_nodes(self) -> None:
        # New rows first: a node created in the batch may also have been moved in it.
        insert_rows(Node, self.new_nodes, stamped=True)
        self.new_nodes.clear()
        by_fields: dict[tuple[str, ...], list[Node]] = {}
        for node, fields in self.deferred.values():
            by_fields.setdefault(tuple(sorted(fields)), []).append(node)
        for columns, nodes in by_fields.items():
            _update_node_rows(nodes, columns)
        self.deferred.clear()

    def finish(self) -> None:
        # In pipeline mode (services/pipeline.py) these statements go out together; nothing here reads
        # a result back, so they cost one round trip with the caller's sync.
        self.flush_nodes()
        if self.canvas.revision != self.first_revision:
            update_row(
                Canvas,
                self.canvas.pk,
                revision=self.canvas.revision,
                last_hash=self.canvas.last_hash,
                updated_at=timezone.now(),
            )
        if self.receipts:
            # The canvas lock already serializes receipts; ON CONFLICT DO NOTHING is the backstop.
            insert_rows(OpReceipt, self.receipts, ignore_conflicts=True)
        if self.entries:
            insert_rows(ChangeLogEntry, self.entries)


def _update_node_rows(nodes: list[Node], fields: tuple[str, ...]) -> None:
    """bulk_update of `fields` as one parameterized UPDATE run for every node (executemany).

    Django's bulk_update builds a CASE WHEN per field and row, which costs more CPU than the
    database spends on it (~6 ms per node at batch size 50); this is the same write, cheaper.
    """
    connection = transaction.get_connection()
    columns: list[Field[Any, Any]] = []
    for name in fields:
        column = Node._meta.get_field(name)
        if not isinstance(column, Field):  # node fields by name are concrete columns
            raise TypeError(f"Node.{name} is not a column")
        columns.append(column)
    pk = Node._meta.pk
    qn = connection.ops.quote_name
    # Identifiers come from the model's own metadata (quoted); every value is a parameter.
    assignments = ", ".join(f"{qn(column.column)} = %s" for column in columns)
    sql = f"UPDATE {qn(Node._meta.db_table)} SET {assignments} WHERE {qn(pk.column)} = %s"  # nosec B608
    rows = [
        [column.get_db_prep_save(getattr(node, column.attname), connection) for column in columns]
        + [pk.get_db_prep_value(node.pk, connection)]
        for node in nodes
    ]
    with bound_cursor(sql) as cursor:
        cursor.executemany(sql, rows)


def _log_and_bump(write: _Write, *, client_op_id: str | None, entries: list[Any]) -> ApplyResult:
    """Next revision for `write`: its log entries (chained from canvas.last_hash) go into `entries`;
    the caller writes them and the canvas row (`_Batch.finish`)."""
    canvas = write.canvas
    canvas.revision += 1
    now = timezone.now()
    prev_hash = canvas.last_hash or ""
    actor = write.actor
    for seq, record in enumerate(write.records):
        entry = ChangeLogEntry(
            canvas=canvas,
            revision=canvas.revision,
            seq=seq,
            op_type=record["_op"],
            entity=record["entity"],
            action=record["action"],
            target_id=record["id"],
            fields=record["fields"],
            before=record["_before"],
            after=record["data"],
            visibility_before=record["_vb"],
            visibility_after=record["_va"],
            actor_kind=actor.kind,
            actor_user=actor.user,
            actor_username=actor.user.get_username(),
            approved_by=actor.approved_by,
            conversation_id=actor.conversation_id,
            message_id=actor.message_id,
            agent_run_id=actor.agent_run_id,
            reason=actor.reason,
            client_op_id=client_op_id or "",
            created_at=now,
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


def _public_record(record: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in record.items() if k not in ("_before", "_op")}


def actor_to_dict(actor: Actor) -> dict[str, Any]:
    return {
        "kind": actor.kind,
        "user": user_ref(actor.user),
        "on_behalf_of": user_ref(actor.user) if actor.is_agent else None,
        "approved_by": user_ref(actor.approved_by),
        "conversation_id": actor.conversation_id,
        "reason": actor.reason or None,
        "via": actor.via or None,
    }


def _broadcast(canvas_id: int, event: dict[str, Any]) -> None:
    # Imported here: the realtime package imports services for its consumers.
    from ..realtime.broadcast import broadcast_change

    broadcast_change(canvas_id=canvas_id, event=event)


def _record_refusal(
    *, actor: Actor, canvas_id: int, op_type: str, error: CanvasError, client_op_id: str | None
) -> None:
    try:
        record_security_event(  # identical refusals in a short window share one row
            canvas_id_ref=canvas_id if isinstance(canvas_id, int) else None,
            user=actor.user,
            actor_kind=actor.kind,
            channel=actor.channel,
            op_type=op_type[:40],
            code=error.code,
            reason=error.message,
            detail={"field": error.field, "client_op_id": client_op_id},
            conversation_id=actor.conversation_id,
        )
    except Exception:  # the refusal itself must still reach the caller
        logger.exception("could not record a security event")


def receipts_prune(*, before: datetime) -> int:
    """Retention (canvasweb/history/retention.py): op receipts created before `before` are dropped."""
    return OpReceipt.objects.filter(created_at__lt=before).delete()[0]
