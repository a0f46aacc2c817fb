"""Nothing but the canvasweb/canvases/services/ package writes canvas rows.

Two nets: the runtime guard (tests/write_guard.py, active in every test; it sees every SQL statement)
and a static scan of the source for ORM writes on canvas models anywhere else (tests/canvases/write_scan.py,
run in a fresh interpreter: CPython 3.11's ast.parse can fail with "AST constructor recursion depth
mismatch" after other threads ran, python/cpython#106905).
"""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys

import pytest
from django.db import connection, transaction

from canvasweb.canvases.models import Node
from tests.canvases.write_scan import orm_writes
from tests.conftest import node_op
from tests.write_guard import WriteOutsideServiceError

REPO = pathlib.Path(__file__).resolve().parents[2]


def _refused(write) -> None:
    # A savepoint per attempt: the refused statement breaks its transaction, not the test's.
    with pytest.raises(WriteOutsideServiceError):
        with transaction.atomic():
            write()


@pytest.mark.django_db
def test_runtime_guard_catches_a_direct_save(canvas, apply, bob):
    node_id = apply(bob, node_op("through the service")).changes[0]["id"]
    node = Node.objects.get(pk=node_id)
    node.content = "sneaky"
    _refused(node.save)
    _refused(node.delete)
    _refused(lambda: Node.objects.create(canvas=canvas, content="sneaky", x=0, y=0))


@pytest.mark.django_db
def test_runtime_guard_sees_update_bulk_create_and_raw_sql(canvas, apply, bob):
    node_id = apply(bob, node_op("through the service")).changes[0]["id"]
    _refused(lambda: Node.objects.filter(pk=node_id).update(content="sneaky"))
    _refused(lambda: canvas.nodes.update(x=5))
    _refused(lambda: Node.objects.bulk_create([Node(canvas=canvas, content="s", x=0, y=0)]))

    def raw():
        with connection.cursor() as cursor:
            cursor.execute("UPDATE canvases_node SET content = %s", ["raw"])

    _refused(raw)
    assert Node.objects.get(pk=node_id).content == "through the service"


def test_no_module_but_the_services_writes_canvas_models():
    # A fresh interpreter: immune to the ast.parse bug that other threads of this process can trigger.
    result = subprocess.run(
        [sys.executable, "-m", "tests.canvases.write_scan"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode in (0, 1), result.stderr
    offenders = json.loads(result.stdout)
    assert offenders == [], "canvas rows written outside the write path:\n" + "\n".join(offenders)


def test_the_scan_would_notice_an_offender(tmp_path):
    sample = tmp_path / "bad.py"
    sample.write_text(
        "def f(c, canvas):\n    Node.objects.filter(canvas=c).update(x=1)\n    Edge.objects.create()\n"
        "    canvas.nodes.update(x=2)\n    canvas.memberships.all().delete()\n"
        "    c.edges.bulk_create([])\n    canvas.nodes.all()\n"
    )
    assert len(orm_writes(sample)) == 5
