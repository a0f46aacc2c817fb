"""Node and edge operations, one or many: `apply_operation` and the group commit `apply_operations`."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, cast

from django.db import transaction

from canvasweb.common.errors import CanvasError, NotFound
from canvasweb.history.models import ChangeLogEntry

from .. import permissions
from ..actors import Actor
from ..models import Canvas, Edge, Membership, Node, OpReceipt
from ..operations import Operation, parse_operation
from .commit import (
    ApplyResult,
    _Batch,
    _broadcast,
    _check_client_op_id,
    _member_role,
    _record_refusal,
    _Write,
)
from .edges import _op_edge_create, _op_edge_delete, _op_edge_update
from .new_ids import IdOwners
from .nodes import _op_node_archive, _op_node_create, _op_node_delete, _op_node_supersede, _op_node_update
from .pipeline import Pending, column, commit_in_pipeline, equals, one_of, pipelined

logger = logging.getLogger(__name__)


def apply_operation(
    *, actor: Actor, canvas_id: int, op: dict[str, Any] | Operation, client_op_id: str | None = None
) -> ApplyResult:
    """Apply one node/edge operation or a batch atomically, as `actor` (a group commit of one)."""
    outcome = apply_operations(
        canvas_id=canvas_id,
        requests=[OpRequest(actor=actor, op=op, client_op_id=client_op_id)],
        broadcast=True,
    ).results[0]
    if isinstance(outcome, BaseException):
        raise outcome
    return cast(ApplyResult, outcome)


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
    events: list[dict[str, Any]]


# Ops whose only writes are node rows: applied from the batch's node cache, new rows written by one
# INSERT and changed fields by one bulk_update, no savepoint needed (every check runs before any change).
_FAST_OPS = ("node.move", "node.update", "node.create")


def apply_operations(*, canvas_id: int, requests: list[OpRequest], broadcast: bool = False) -> BatchOutcome:
    """Group commit: apply many node/edge operations (from any actors) on one canvas in one transaction.

    One canvas lock, one membership query, one receipt query, the targeted nodes fetched together,
    the ids asked for by node.create checked together (one query each for nodes, edges and the change
    log), one INSERT of the new nodes, one bulk_update of the changed node fields, one bulk INSERT of log entries, one revision UPDATE
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
    events: list[dict[str, Any]] = []
    if todo:
        try:
            with transaction.atomic():
                events = _apply_batch(canvas_id=canvas_id, requests=requests, todo=todo, results=results)
                if broadcast and events:
                    committed = list(events)

                    def send_all(committed: list[dict[str, Any]] = committed) -> None:
                        for event in committed:
                            _broadcast(canvas_id, event)

                    transaction.on_commit(send_all)
        except CanvasError as exc:  # the canvas itself is gone: every op gets the same answer
            for i in todo:
                results[i] = exc
            events = []
    for i, request in enumerate(requests):
        if isinstance(results[i], CanvasError):
            _record_refusal(
                actor=request.actor,
                canvas_id=canvas_id,
                op_type=_raw_type(request.op),
                error=results[i],
                client_op_id=request.client_op_id,
            )
    return BatchOutcome(results=results, events=events)


def _raw_type(op: Any) -> str:
    raw = op.type if isinstance(op, Operation) else (op.get("type") if isinstance(op, dict) else None)
    return str(raw or "invalid")


def _op_handler(actor: Actor, parsed: Operation) -> Callable[[_Write], None]:
    def handler(write: _Write) -> None:
        for index, single in enumerate(parsed.flat()):
            write.op_type = single.type
            try:
                permissions.require_role(actor=actor, role=write.role, operation=single.type)
                permissions.require_agent_may_write(actor=actor, canvas=write.canvas)
                _OP_HANDLERS[single.type](write, single)
            except CanvasError as exc:
                if parsed.is_batch:
                    _name_batch_op(exc, index)
                raise
        write.op_type = parsed.type

    return handler


def _name_batch_op(exc: CanvasError, index: int) -> None:
    """Say which op of a batch failed, as the parser does for input errors: field `ops[1].id`."""
    exc.message = f"ops[{index}]: {exc.message}"
    exc.field = f"ops[{index}].{exc.field}" if exc.field else f"ops[{index}]"


def _apply_batch(
    *, canvas_id: int, requests: list[OpRequest], todo: list[int], results: list[Any]
) -> list[dict[str, Any]]:
    parsed: dict[int, Operation] = {}
    for i in todo:
        op = requests[i].op
        try:
            parsed[i] = op if isinstance(op, Operation) else parse_operation(op)
        except CanvasError as exc:
            results[i] = exc
    user_ids = {requests[i].actor.user.pk for i in todo}
    op_ids = {requests[i].client_op_id for i in todo if requests[i].client_op_id}
    fast_ids = {parsed[i].target for i in parsed if parsed[i].type in ("node.move", "node.update")}
    new_ids = IdOwners(parsed[i].body["id"] for i in parsed if parsed[i].type == "node.create")
    # The batch's reads go out together and their rows come back in one round trip (pipeline mode,
    # services/pipeline.py). The lock comes first, so every later read sees the canvas as the batch
    # before committed it.
    with pipelined():
        locked = Pending.select(
            "canvas",
            Canvas.objects.all,
            [equals(Canvas, "id", canvas_id), (f"{column(Canvas, 'deleted_at')} IS NULL", [])],
            for_update=True,
        )
        members = Pending.select(
            "memberships",
            lambda: Membership.objects.values_list("user_id", "role"),
            [equals(Membership, "canvas", canvas_id), one_of(Membership, "user", user_ids)],
        )
        seen = (
            Pending.select(
                "receipts",
                lambda: OpReceipt.objects.values_list("user_id", "client_op_id", "revision", "changes"),
                [
                    equals(OpReceipt, "canvas", canvas_id),
                    one_of(OpReceipt, "user", user_ids),
                    one_of(OpReceipt, "client_op_id", op_ids),
                ],
            )
            if op_ids
            else None
        )
        nodes = (
            Pending.select(
                "nodes with creators",
                lambda: Node.objects.select_related("created_by"),
                [equals(Node, "canvas", canvas_id), one_of(Node, "id", fast_ids)],
            )
            if fast_ids
            else None
        )
        taken = (
            (
                Pending.select(
                    "node ids taken",
                    lambda: Node.objects.values_list("id", "canvas_id", "sensitivity"),
                    [one_of(Node, "id", new_ids.free)],
                ),
                Pending.select(
                    "edge ids taken",
                    lambda: Edge.objects.values_list(
                        "id", "canvas_id", "source__sensitivity", "target__sensitivity"
                    ),
                    [one_of(Edge, "id", new_ids.free)],
                ),
                # Ids of deleted rows stay used (services/new_ids.py); target_id is indexed.
                Pending.select(
                    "ids in the change log",
                    lambda: ChangeLogEntry.objects.values_list("target_id", "canvas_id", "entity").distinct(),
                    [
                        one_of(ChangeLogEntry, "target_id", [str(i) for i in new_ids.free]),
                        one_of(ChangeLogEntry, "entity", ("node", "edge")),
                    ],
                ),
            )
            if new_ids.free
            else None
        )
    if taken is not None:
        new_ids.add_rows(taken[0].rows(), taken[1].rows())
        new_ids.add_log_rows(taken[2].rows())
    found = cast(list[Canvas], locked.instances())
    roles = dict(cast(list[tuple[int, str]], members.rows()))
    receipts: dict[tuple[Any, ...], ApplyResult] = {}
    for user_id, op_id, revision, changes in seen.rows() if seen is not None else []:
        receipts[(user_id, op_id)] = ApplyResult(revision=revision, duplicate=True, changes=changes)
    node_cache: dict[uuid.UUID, Node] = (
        {n.pk: cast(Node, n) for n in nodes.instances(related="created_by")} if nodes is not None else {}
    )
    if not found:
        raise NotFound("no such canvas", field="canvas_id")
    canvas = found[0]
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
        write = _Write(
            canvas=canvas,
            actor=request.actor,
            role=role,
            op_type=op.type,
            node_cache=node_cache if fast else None,
            deferred=batch.deferred if fast else None,
            new_nodes=batch.new_nodes if fast else None,
            new_ids=new_ids if fast else None,
            logged=batch.logged,
        )
        handler = _op_handler(request.actor, op)
        try:
            if fast:
                handler(write)
            else:
                # A general op reads and writes rows directly: it sees the batch's node writes so far,
                # and the cached node objects may be stale after it.
                batch.flush_nodes()
                node_cache.clear()
                new_ids.forget()  # it may take or free ids: later creates ask the database
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
    # Plain statements whose results nobody reads: one round trip in pipeline mode. (General ops run
    # outside it: the ORM checks row counts, which pipeline mode reports only after a sync.)
    # The COMMIT goes with them when this is the outermost transaction (nothing runs after it here).
    with pipelined():
        batch.finish()
        commit_in_pipeline()
    return batch.events


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
