"""Pending.select: the group commit's reads without compiling a queryset per call."""

from __future__ import annotations

import pytest

from canvasweb.canvases.models import Node, OpReceipt
from canvasweb.canvases.services import pipeline
from canvasweb.canvases.services.pipeline import Pending, one_of
from tests.canvases.pipeline_select_check import differences
from tests.canvases.pipeline_write_check import write_differences
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


def test_writes_without_per_call_compiling_match_the_orm(canvas, alice, bob, apply):
    apply(alice, node_op("first 第一"), client_op_id="w1")
    apply(bob, node_op("second", x=1.5), client_op_id="w2")
    assert write_differences(canvas.pk) == []


def test_a_differing_write_is_reported(canvas, alice, bob, apply, monkeypatch):
    apply(alice, node_op("first"), client_op_id="w3")
    apply(bob, node_op("second"), client_op_id="w4")
    monkeypatch.setattr(pipeline, "_INSERT_SHAPES", {})
    real = pipeline._insert_shape

    def shifted(*args):
        head, row, tail = real(*args)
        return head, row, tail + " "

    monkeypatch.setattr(pipeline, "_insert_shape", shifted)
    assert "receipts (1 rows)" in write_differences(canvas.pk)


def test_placeholders_are_numbered_for_server_side_binding():
    sql = 'INSERT INTO "t" ("a", "b") VALUES (%s, %s), (%s, %s) ON CONFLICT DO NOTHING'
    assert pipeline.native_sql(sql) == (
        'INSERT INTO "t" ("a", "b") VALUES ($1, $2), ($3, $4) ON CONFLICT DO NOTHING'
    )
    assert pipeline.native_sql('SELECT 1 FROM "t"') == 'SELECT 1 FROM "t"'
    # Anything else with a % (or a $ already) is left to psycopg's own parser.
    assert pipeline.native_sql("SELECT '100%%' WHERE a = %s") is None
    assert pipeline.native_sql("SELECT %(name)s") is None
    assert pipeline.native_sql("SELECT $1 WHERE a = %s") is None


def test_sqlite_runs_the_statements_on_djangos_own_cursor(db):
    from django.db import connection

    with pipeline.bound_cursor("SELECT %s") as cursor:
        assert type(cursor.cursor) is type(connection.cursor().cursor)
        cursor.execute("SELECT %s", [7])
        assert cursor.fetchone() == (7,)


def test_a_warm_batch_of_creates_and_moves_compiles_no_queryset(canvas, alice, apply, monkeypatch):
    # The ids asked for by node.create are checked with cached selects too (nodes, edges, the change
    # log), like the batch's other reads: compiling them through the ORM per batch cost more CPU than
    # the rest of a small batch's reads together.
    import uuid

    from django.db.models.sql.compiler import SQLCompiler

    from canvasweb.canvases import services
    from canvasweb.canvases.actors import user_actor

    moved = apply(alice, node_op("先有 first"), client_op_id="w0").changes[0]["id"]

    def batch(tag):
        actor = user_actor(alice, channel="websocket")
        return services.apply_operations(
            canvas_id=canvas.pk,
            requests=[
                services.OpRequest(
                    actor=actor, op=node_op(f"新 {tag}", id=str(uuid.uuid4())), client_op_id=tag
                ),
                services.OpRequest(
                    actor=actor,
                    op={"type": "node.move", "id": moved, "x": 1.0, "y": 2.0},
                    client_op_id=tag + "m",
                ),
            ],
        )

    batch("w1")  # warms the per-process statement caches
    compiled = []
    real = SQLCompiler.as_sql

    def counting(self, *args, **kwargs):
        compiled.append(self.query.model.__name__)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(SQLCompiler, "as_sql", counting)
    outcome = batch("w2")
    assert [type(r).__name__ for r in outcome.results] == ["ApplyResult", "ApplyResult"]
    assert compiled == []
