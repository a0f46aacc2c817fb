"""Tamper evidence: verify_audit finds a rewritten row; replay_audit rebuilds the canvas from the log alone."""

from __future__ import annotations

import io
import json
import random
import uuid

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection

from canvasweb.canvases import services
from canvasweb.canvases.actors import agent_actor, user_actor
from canvasweb.canvases.models import Edge, Node
from canvasweb.common.errors import CanvasError
from canvasweb.history import services as history_services
from canvasweb.history.audit import replay_canvas, verify_chain
from canvasweb.history.models import ChangeLogEntry
from tests.conftest import node_op

pytestmark = pytest.mark.django_db


def run(command, *args):
    out = io.StringIO()
    try:
        call_command(command, *args, stdout=out)
    except CommandError as exc:
        return exc.returncode, out.getvalue() + str(exc)
    return 0, out.getvalue()


def some_history(canvas, apply, as_agent, alice, bob):
    a = apply(bob, node_op("port 5432")).changes[0]["id"]
    b = apply(bob, node_op("pgbouncer")).changes[0]["id"]
    apply(bob, {"type": "edge.create", "edge": {"source": a, "target": b}})
    as_agent(alice, {"type": "node.update", "id": a, "fields": {"content": "port 5433"}})
    apply(alice, {"type": "node.delete", "id": b})
    return a


def test_verify_audit_passes_on_an_untouched_log(canvas, apply, as_agent, alice, bob):
    some_history(canvas, apply, as_agent, alice, bob)
    code, output = run("verify_audit")
    assert code == 0 and f"canvas {canvas.pk}: OK" in output
    code, output = run("verify_audit", "--canvas", str(canvas.pk))
    assert code == 0 and "1 of 1 canvas(es) verified" in output


@pytest.mark.allow_direct_writes  # tampers with rows on purpose, behind the write path
def test_raw_sql_tampering_fails_verify_audit_at_exactly_that_entry(canvas, apply, as_agent, alice, bob):
    node = some_history(canvas, apply, as_agent, alice, bob)
    other = services.canvas_create(user=alice, name="untouched")
    target = ChangeLogEntry.objects.get(canvas=canvas, target_id=node, op_type="node.update")
    later = ChangeLogEntry.objects.filter(canvas=canvas, revision__gt=target.revision).count()
    assert later > 0
    forged = {**target.after, "content": "port 5432"}  # pretend the agent never changed the port
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE history_changelogentry SET after = %s WHERE id = %s", [json.dumps(forged), target.pk]
        )

    code, output = run("verify_audit", "--canvas", str(canvas.pk))
    assert code == 1
    assert f"canvas {canvas.pk} revision {target.revision} seq {target.seq} (entry id {target.pk})" in output
    assert "hash does not match the entry's content" in output
    assert f"stored   {target.hash}" in output
    report = verify_chain(canvas_id=canvas.pk)
    assert (report.problem.revision, report.problem.seq, report.problem.stored) == (
        target.revision,
        target.seq,
        target.hash,
    )
    assert report.problem.expected != target.hash
    # Other canvases still verify; the full run fails because of this one.
    code, output = run("verify_audit")
    assert code == 1 and f"canvas {other.pk}: OK" in output and f"canvas {canvas.pk}: FAILED" in output


@pytest.mark.allow_direct_writes  # tampers with rows on purpose, behind the write path
def test_deleted_or_rehashed_rows_are_found(canvas, apply, as_agent, alice, bob):
    some_history(canvas, apply, as_agent, alice, bob)
    entries = list(ChangeLogEntry.objects.filter(canvas=canvas).order_by("revision", "seq"))
    middle, last = entries[len(entries) // 2], entries[-1]
    with connection.cursor() as cursor:
        cursor.execute("DELETE FROM history_changelogentry WHERE id = %s", [middle.pk])
    problem = verify_chain(canvas_id=canvas.pk).problem
    assert problem is not None and problem.revision in (middle.revision, middle.revision + 1)

    # Rewriting a row and recomputing its hash breaks the link from the next row instead.
    canvas2 = services.canvas_create(user=alice, name="second")
    services.member_set(actor=user_actor(alice), canvas_id=canvas2.pk, username="bob", role="editor")
    apply(bob, node_op("x"), canvas_id=canvas2.pk)
    apply(bob, node_op("y"), canvas_id=canvas2.pk)
    first_node = ChangeLogEntry.objects.filter(canvas=canvas2, entity="node").order_by("revision").first()
    with connection.cursor() as cursor:
        cursor.execute("UPDATE history_changelogentry SET hash = %s WHERE id = %s", ["0" * 64, first_node.pk])
    problem = verify_chain(canvas_id=canvas2.pk).problem
    assert problem.revision == first_node.revision and problem.stored == "0" * 64

    # Cutting off the newest entries: the canvas revision gives it away.
    with connection.cursor() as cursor:
        cursor.execute(
            "DELETE FROM history_changelogentry WHERE canvas_id = %s AND revision = %s",
            [canvas.pk, last.revision],
        )
    assert verify_chain(canvas_id=canvas.pk).problem is not None
    assert run("verify_audit", "--canvas", "999999")[0] == 1


def _random_op(rng, nodes, edges):
    kind = rng.choice(
        [
            "create",
            "create",
            "update",
            "update",
            "move",
            "delete",
            "supersede",
            "archive",
            "edge",
            "edge",
            "edge_update",
            "edge_delete",
            "batch",
        ]
    )
    nid = rng.choice(nodes) if nodes else None
    if kind == "create" or nid is None:
        return {
            "type": "node.create",
            "node": {
                "content": f"fact {rng.randint(0, 10**6)} 中文",
                "x": rng.uniform(-1000, 1000),
                "y": rng.uniform(-1000, 1000),
                "kind": rng.choice(["fact", "config", "note", "requirement"]),
                "weight": round(rng.uniform(0.1, 10), 2),
                "tags": rng.sample(["db", "auth", "ops", "agent-writable"], rng.randint(0, 2)),
                "sensitivity": rng.choice(["public", "public", "internal", "secret"]),
                "pinned": rng.random() < 0.1,
            },
        }
    if kind == "update":
        fields = rng.choice(
            [
                {"content": f"edited {rng.random()}"},
                {"tags": ["x", "y"]},
                {"weight": 2.5},
                {"pinned": rng.random() < 0.5},
                {"sensitivity": rng.choice(["public", "internal"])},
                {"kind": "decision", "content": "both"},
            ]
        )
        return {"type": "node.update", "id": nid, "fields": fields}
    if kind == "move":
        return {"type": "node.move", "id": nid, "x": rng.randint(-500, 500), "y": rng.uniform(-5, 5)}
    if kind == "delete":
        return {"type": "node.delete", "id": nid}
    if kind == "supersede":
        return {"type": "node.supersede", "id": nid, "node": {"content": "newer", "x": 1, "y": 2}}
    if kind == "archive":
        return {"type": "node.archive", "id": nid, "archived": rng.random() < 0.7}
    if kind == "edge" and len(nodes) > 1:
        source, target = rng.sample(nodes, 2)
        return {
            "type": "edge.create",
            "edge": {
                "source": source,
                "target": target,
                "relation": rng.choice(["depends_on", "causes", "relates_to"]),
            },
        }
    if kind == "edge_update" and edges:
        return {"type": "edge.update", "id": rng.choice(edges), "fields": {"label": f"l{rng.randint(0, 9)}"}}
    if kind == "edge_delete" and edges:
        return {"type": "edge.delete", "id": rng.choice(edges)}
    ids = [str(uuid.uuid4()) for _ in range(3)]
    return {
        "type": "batch",
        "ops": [
            {"type": "node.create", "node": {"id": ids[0], "content": "b0", "x": 0, "y": 0}},
            {"type": "node.create", "node": {"id": ids[1], "content": "b1", "x": 5, "y": 5}},
            {
                "type": "edge.create",
                "edge": {"id": ids[2], "source": ids[0], "target": ids[1], "label": "batch"},
            },
        ],
    }


@pytest.mark.allow_direct_writes  # tampers with rows on purpose, behind the write path
def test_replay_of_a_random_history_equals_the_database(canvas, alice, bob, auto_agent):
    rng = random.Random(20261130)
    actors = [
        user_actor(alice),
        user_actor(bob),
        user_actor(bob, channel="websocket"),
        agent_actor(alice, conversation_id=3),
        agent_actor(bob, conversation_id=4),
    ]
    applied = refused = 0
    for step in range(300):
        nodes = [str(pk) for pk in Node.objects.filter(canvas=canvas).values_list("pk", flat=True)]
        edges = [str(pk) for pk in Edge.objects.filter(canvas=canvas).values_list("pk", flat=True)]
        actor = rng.choice(actors)
        try:
            if step % 37 == 36:
                history_services.undo(actor=user_actor(rng.choice([alice, bob])), canvas_id=canvas.pk)
            elif step % 53 == 52:
                history_services.redo(actor=user_actor(rng.choice([alice, bob])), canvas_id=canvas.pk)
            else:
                services.apply_operation(actor=actor, canvas_id=canvas.pk, op=_random_op(rng, nodes, edges))
            applied += 1
        except CanvasError:
            refused += 1
    assert applied > 200 and Node.objects.filter(canvas=canvas).count() > 10 and Edge.objects.count() > 3

    report = replay_canvas(canvas_id=canvas.pk)
    assert report.differences == [] and report.entries > 300
    code, output = run("replay_audit", "--canvas", str(canvas.pk))
    assert code == 0 and "matches the database" in output
    assert run("verify_audit", "--canvas", str(canvas.pk))[0] == 0

    # A row changed behind the write path's back shows up as a difference.
    victim = Node.objects.filter(canvas=canvas).order_by("pk").first()
    with connection.cursor() as cursor:
        cursor.execute("UPDATE canvases_node SET content = %s WHERE id = %s", ["rewritten", victim.pk.hex])
    code, output = run("replay_audit", "--canvas", str(canvas.pk))
    assert code == 1
    assert f"node {victim.pk} content: log has {victim.content!r}, database has 'rewritten'" in output
