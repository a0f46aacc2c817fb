"""Pending.select (a cached ORM SELECT with a hand-written WHERE) against the ORM's own queryset:
the same rows, converted the same way (UUIDs, JSON, datetimes, a joined creator). Used by
test_pipeline_select.py on SQLite and by pg_pipeline_script.py on PostgreSQL."""

from __future__ import annotations

from typing import Any

from django.db import transaction

from canvasweb.canvases.models import Canvas, Membership, Node, OpReceipt
from canvasweb.canvases.serialization import node_to_dict
from canvasweb.canvases.services.pipeline import Pending, column, equals, one_of, pipelined


def _node_state(node: Node) -> dict[str, Any]:
    creator = node.created_by
    return {**node_to_dict(node), "creator": None if creator is None else (creator.pk, creator.username)}


def differences(canvas_id: int) -> list[str]:
    """What differs between the two reads of the canvas's rows (empty when they agree)."""
    nodes = list(Node.objects.filter(canvas_id=canvas_id).select_related("created_by"))
    node_ids = [n.pk for n in nodes]
    users = list(Membership.objects.filter(canvas_id=canvas_id).values_list("user_id", flat=True))
    op_ids = list(OpReceipt.objects.filter(canvas_id=canvas_id).values_list("client_op_id", flat=True))
    found: list[str] = []
    with transaction.atomic(), pipelined():
        locked = Pending.select(
            "check: canvas",
            Canvas.objects.all,
            [equals(Canvas, "id", canvas_id), (f"{column(Canvas, 'deleted_at')} IS NULL", [])],
            for_update=True,
        )
        members = Pending.select(
            "check: memberships",
            lambda: Membership.objects.values_list("user_id", "role"),
            [equals(Membership, "canvas", canvas_id), one_of(Membership, "user", users)],
        )
        receipts = Pending.select(
            "check: receipts",
            lambda: OpReceipt.objects.values_list("user_id", "client_op_id", "revision", "changes"),
            [
                equals(OpReceipt, "canvas", canvas_id),
                one_of(OpReceipt, "user", users),
                one_of(OpReceipt, "client_op_id", op_ids),
            ],
        )
        read = Pending.select(
            "check: nodes",
            lambda: Node.objects.select_related("created_by"),
            [equals(Node, "canvas", canvas_id), one_of(Node, "id", [str(i) for i in node_ids] + node_ids)],
        )
        [canvas] = locked.instances()
        if (canvas.pk, canvas.revision, canvas.name) != Canvas.objects.values_list(
            "pk", "revision", "name"
        ).get(pk=canvas_id):
            found.append("canvas")
        if sorted(members.rows()) != sorted(
            Membership.objects.filter(canvas_id=canvas_id).values_list("user_id", "role")
        ):
            found.append("memberships")
        orm_receipts = OpReceipt.objects.filter(canvas_id=canvas_id).values_list(
            "user_id", "client_op_id", "revision", "changes"
        )
        if sorted(receipts.rows(), key=repr) != sorted(orm_receipts, key=repr):
            found.append("receipts")
        by_id = {n.pk: _node_state(n) for n in read.instances(related="created_by")}
        if by_id != {n.pk: _node_state(n) for n in nodes}:
            found.append("nodes")
    return found
