"""insert_rows / update_row (statements compiled through the ORM once, then reused) against the ORM's
own statements for the same objects: the same SQL and parameters. Used by test_pipeline_select.py on
SQLite and by pg_pipeline_script.py on PostgreSQL."""

from __future__ import annotations

from unittest import mock

from django.db import connection
from django.db.models.sql import UpdateQuery
from django.utils import timezone

from canvasweb.canvases.models import Canvas, Node, OpReceipt
from canvasweb.canvases.services import pipeline
from canvasweb.history.models import ChangeLogEntry


def _comparable(statement):
    """(sql, params) with adapter-wrapped values (psycopg's Jsonb on PostgreSQL) compared by content."""
    sql, params = statement
    return sql, [(type(value).__name__, getattr(value, "obj", value)) for value in params]


def _orm_statement(model, objs, *, ignore_conflicts: bool, stamped: bool):
    fields = pipeline._insert_fields(model)
    compiler = pipeline._insert_compiler(
        model, fields, objs, ignore_conflicts=ignore_conflicts, stamped=stamped
    )
    [(sql, params)] = compiler.as_sql()
    return sql, list(params)


def write_differences(canvas_id: int) -> list[str]:
    """What differs between the fast statements and the ORM's for the canvas's rows (empty: none)."""
    found: list[str] = []
    now = timezone.now()
    cases = [
        ("receipts", OpReceipt, list(OpReceipt.objects.filter(canvas_id=canvas_id)), True, False),
        (
            "log entries",
            ChangeLogEntry,
            list(ChangeLogEntry.objects.filter(canvas_id=canvas_id)),
            False,
            False,
        ),
        ("nodes", Node, list(Node.objects.filter(canvas_id=canvas_id)), False, True),
    ]
    with mock.patch("django.utils.timezone.now", return_value=now):  # auto_now(_add) stamps agree
        for name, model, objs, ignore_conflicts, stamped in cases:
            if len(objs) < 2:
                found.append(f"{name}: too few rows to compare")
                continue
            for chunk in (objs[:1], objs):
                ours = pipeline.insert_statement(
                    model, chunk, ignore_conflicts=ignore_conflicts, stamped=stamped
                )
                theirs = _orm_statement(model, chunk, ignore_conflicts=ignore_conflicts, stamped=stamped)
                if ours is None or _comparable(ours) != _comparable(theirs):
                    found.append(f"{name} ({len(chunk)} rows)")
    canvas = Canvas.objects.get(pk=canvas_id)
    values = {"revision": canvas.revision + 1, "last_hash": canvas.last_hash, "updated_at": now}
    query = Canvas.objects.filter(pk=canvas_id).query.chain(UpdateQuery)  # as QuerySet.update() does
    query.add_update_values(values)
    sql, params = query.get_compiler(connection.alias).as_sql()
    ours = pipeline.update_statement(Canvas, canvas_id, **values)
    if _comparable(ours) != _comparable((sql, params)):
        found.append("canvas update")
    return found
