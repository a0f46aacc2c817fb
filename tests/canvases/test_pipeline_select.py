"""Pending.select: the group commit's reads without compiling a queryset per call."""

from __future__ import annotations

import pytest

from canvasweb.canvases.models import Node, OpReceipt
from canvasweb.canvases.services.pipeline import Pending, one_of
from tests.canvases.pipeline_select_check import differences
from tests.conftest import node_op

pytestmark = pytest.mark.django_db


def test_rows_and_instances_match_the_orm(canvas, alice, bob, apply):
    apply(alice, node_op("仓库地址 warehouse 7", tags=["物流", "ops"], pinned=True), client_op_id="r1")
    apply(bob, node_op("第二条 second note", x=-3.5, y=2.25), client_op_id="r2")
    assert differences(canvas.pk) == []


def test_a_differing_read_is_reported(canvas, alice, apply, monkeypatch):
    # The check itself must be able to fail: receipts read without their JSON conversion are noticed.
    apply(alice, node_op("未转换 raw row"), client_op_id="r3")
    converted = Pending.rows

    def receipts_unconverted(self):
        if self.model is OpReceipt:
            self.converters = {}
        return converted(self)

    monkeypatch.setattr(Pending, "rows", receipts_unconverted)
    assert differences(canvas.pk) == ["receipts"]


def test_a_base_select_with_a_where_is_refused(canvas):
    with pytest.raises(ValueError, match="plain SELECT"):
        Pending.select("filtered base", lambda: Node.objects.filter(pinned=True), [])


def test_one_of_needs_values():
    with pytest.raises(ValueError):
        one_of(Node, "id", [])
