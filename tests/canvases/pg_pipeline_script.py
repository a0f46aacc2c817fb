"""Run by test_group_commit_postgres.py in a subprocess against a throwaway PostgreSQL database:
a group commit in psycopg pipeline mode, printed as JSON for the test to check."""

from __future__ import annotations

import json
import uuid

import django

django.setup()

from django.contrib.auth.models import User  # noqa: E402
from django.db import connection, transaction  # noqa: E402
from django.test.utils import CaptureQueriesContext  # noqa: E402

from canvasweb.canvases import selectors, services  # noqa: E402
from canvasweb.canvases.actors import user_actor  # noqa: E402
from canvasweb.canvases.models import Canvas, Node  # noqa: E402
from canvasweb.canvases.serialization import node_to_dict  # noqa: E402
from canvasweb.canvases.services import batch as batch_module  # noqa: E402
from canvasweb.history.audit import replay_canvas, verify_chain  # noqa: E402
from tests.canvases.pipeline_select_check import differences  # noqa: E402
from tests.canvases.pipeline_write_check import write_differences  # noqa: E402

COMMITTED_IN_PIPELINE: list[bool] = []


def _recording_commit_in_pipeline(real=batch_module.commit_in_pipeline) -> bool:
    COMMITTED_IN_PIPELINE.append(real())
    return COMMITTED_IN_PIPELINE[-1]


batch_module.commit_in_pipeline = _recording_commit_in_pipeline


def _nodes_seen_elsewhere(canvas_id: int) -> int:
    """Nodes of the canvas as another connection sees them: only what has committed."""
    import psycopg

    settings = connection.settings_dict
    with psycopg.connect(
        host=settings["HOST"], port=settings["PORT"], user=settings["USER"], dbname=settings["NAME"]
    ) as other:
        row = other.execute("SELECT count(*) FROM canvases_node WHERE canvas_id = %s", [canvas_id]).fetchone()
        return int(row[0]) if row else -1


def main() -> None:
    owner, editor, viewer = (User.objects.create(username=name) for name in ("ping", "quan", "rui"))
    canvas = services.canvas_create(user=owner, name="管道 pipeline")
    for user, role in ((editor, "editor"), (viewer, "viewer")):
        services.member_set(actor=user_actor(owner), canvas_id=canvas.pk, user_id=user.pk, role=role)

    def request(user, op, op_id=None):
        return services.OpRequest(actor=user_actor(user, channel="websocket"), op=op, client_op_id=op_id)

    made = services.apply_operations(
        canvas_id=canvas.pk,
        requests=[
            request(owner, {"type": "node.create", "node": {"content": f"记忆 {i}", "x": 0, "y": 0}}, f"c{i}")
            for i in range(3)
        ],
    )
    ids = [r.changes[0]["id"] for r in made.results]
    start = Canvas.objects.get(pk=canvas.pk).revision
    fresh = str(uuid.uuid4())
    batch = [
        request(owner, {"type": "node.move", "id": ids[0], "x": 11.0, "y": 1.0}, "m1"),
        request(viewer, {"type": "node.move", "id": ids[1], "x": 12.0, "y": 1.0}, "m2"),  # a viewer: refused
        request(
            editor, {"type": "node.create", "node": {"id": ids[2], "content": "重复", "x": 0, "y": 0}}, "m3"
        ),
        request(
            editor, {"type": "node.create", "node": {"id": fresh, "content": "新的", "x": 5, "y": 5}}, "m4"
        ),
        request(editor, {"type": "node.move", "id": ids[1], "x": 13.0, "y": 2.0}, "m5"),
        request(owner, {"type": "node.move", "id": ids[0], "x": 11.0, "y": 1.0}, "c0"),  # a resent op id
        # A general op (savepoint, ORM save that checks its row count) after fast ones, then a fast one.
        request(editor, {"type": "node.archive", "id": ids[2], "archived": True}, "m7"),
        request(editor, {"type": "node.move", "id": ids[1], "x": 14.0, "y": 2.0}, "m8"),
    ]
    import psycopg

    bound: dict[str, set[str]] = {}  # statement head -> cursor classes that ran it

    def note_cursor(execute, sql, params, many, context):
        head = " ".join(str(sql).split()[:3])
        raw = context["cursor"].cursor
        bound.setdefault(head, set()).add(
            "RawCursor" if isinstance(raw, psycopg.RawCursor) else type(raw).__name__
        )
        return execute(sql, params, many, context)

    with CaptureQueriesContext(connection) as queries, connection.execute_wrapper(note_cursor):
        outcome = services.apply_operations(canvas_id=canvas.pk, requests=batch)
    again = services.apply_operations(canvas_id=canvas.pk, requests=[batch[0]]).results[0]
    with CaptureQueriesContext(connection) as lone:
        services.apply_operations(
            canvas_id=canvas.pk,
            requests=[request(owner, {"type": "node.move", "id": ids[2], "x": 3.0, "y": 3.0}, "m6")],
        )

    revision = Canvas.objects.get(pk=canvas.pk).revision
    seen_after_batches = _nodes_seen_elsewhere(canvas.pk)
    committed_alone = list(COMMITTED_IN_PIPELINE)
    # Inside a caller's transaction the batch must not commit: nothing is seen until the caller's end.
    with transaction.atomic():
        services.apply_operations(
            canvas_id=canvas.pk,
            requests=[request(owner, {"type": "node.create", "node": {"content": "外层", "x": 0, "y": 0}})],
        )
        seen_inside_outer = _nodes_seen_elsewhere(canvas.pk)
    seen_after_outer = _nodes_seen_elsewhere(canvas.pk)

    def describe(result):
        if isinstance(result, services.ApplyResult):
            return {"revision": result.revision, "duplicate": result.duplicate, "changes": result.changes}
        return {"error": getattr(result, "code", type(result).__name__)}

    print(
        json.dumps(
            {
                "vendor": connection.vendor,
                "start": start,
                "results": [describe(r) for r in outcome.results],
                "event_revisions": [e["revision"] for e in outcome.events],
                "again": describe(again),
                "revision": revision,
                "positions": {str(n.pk): [n.x, n.y] for n in Node.objects.filter(canvas=canvas)},
                "archived": sorted(str(n.pk) for n in Node.objects.filter(canvas=canvas, archived=True)),
                "ids": ids,
                "fresh": fresh,
                "chain_ok": verify_chain(canvas_id=canvas.pk).ok,
                "select_differences": differences(canvas.pk),
                "write_differences": write_differences(canvas.pk),
                "replay_differences": len(replay_canvas(canvas_id=canvas.pk).differences),
                "batch_statements": len(queries.captured_queries),
                "batch_cursors": {head: sorted(kinds) for head, kinds in bound.items()},
                "lone_move_statements": len(lone.captured_queries),
                "committed_in_pipeline": committed_alone,
                "committed_in_pipeline_inside_outer": COMMITTED_IN_PIPELINE[len(committed_alone) :],
                "nodes_total": Node.objects.filter(canvas=canvas).count(),
                "seen_after_batches": seen_after_batches,
                "seen_inside_outer": seen_inside_outer,
                "seen_after_outer": seen_after_outer,
                # the snapshot reads stored uuids/datetimes itself (serialization.node_dicts)
                "snapshot_equals_models": selectors.canvas_snapshot(canvas=canvas, role="owner")["nodes"]
                == [
                    node_to_dict(n)
                    for n in selectors.visible_nodes(canvas=canvas, role="owner").order_by("created_at", "id")
                ],
            },
            ensure_ascii=False,
            default=str,
        )
    )


main()
