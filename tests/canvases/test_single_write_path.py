"""Nothing but canvasweb/canvases/services.py writes canvas rows.

Two nets: the runtime guard (tests/write_guard.py, active in every test) and a
static scan of the source for ORM writes on canvas models anywhere else.
"""
from __future__ import annotations

import ast
import pathlib

import pytest

from canvasweb.canvases.models import Node
from tests.conftest import node_op
from tests.write_guard import WriteOutsideServiceError

ROOT = pathlib.Path(__file__).resolve().parents[2] / "canvasweb"
CANVAS_MODELS = {"Canvas", "Membership", "Node", "Edge", "OpReceipt", "ChangeLogEntry"}
WRITE_METHODS = {"create", "update", "delete", "bulk_create", "bulk_update", "get_or_create", "update_or_create",
                 "save"}
ALLOWED = {ROOT / "canvases" / "services.py"}


@pytest.mark.django_db
def test_runtime_guard_catches_a_direct_save(canvas, apply, bob):
    node_id = apply(bob, node_op("through the service")).changes[0]["id"]
    node = Node.objects.get(pk=node_id)
    node.content = "sneaky"
    with pytest.raises(WriteOutsideServiceError):
        node.save()
    with pytest.raises(WriteOutsideServiceError):
        node.delete()
    with pytest.raises(WriteOutsideServiceError):
        Node.objects.create(canvas=canvas, content="sneaky", x=0, y=0)


def _orm_writes(path: pathlib.Path) -> list[str]:
    """Calls like Node.objects.create(...), Edge.objects.filter(...).update(...), node.save()."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    hits = []
    for call in ast.walk(tree):
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)):
            continue
        if call.func.attr not in WRITE_METHODS:
            continue
        # Walk down the receiver chain looking for a canvas model name.
        receiver = call.func.value
        names = []
        while True:
            if isinstance(receiver, ast.Call):
                receiver = receiver.func
            elif isinstance(receiver, ast.Attribute):
                names.append(receiver.attr)
                receiver = receiver.value
            elif isinstance(receiver, ast.Name):
                names.append(receiver.id)
                break
            else:
                break
        if CANVAS_MODELS & set(names):
            hits.append(f"{path}:{call.lineno} {'.'.join(reversed(names))}."
                        f"{call.func.attr}()")
    return hits


def test_no_module_but_the_services_writes_canvas_models():
    offenders = []
    for path in ROOT.rglob("*.py"):
        if path in ALLOWED or "migrations" in path.parts:
            continue
        offenders += _orm_writes(path)
    assert offenders == [], "canvas rows written outside the write path:\n" + "\n".join(offenders)


def test_the_scan_would_notice_an_offender(tmp_path):
    sample = tmp_path / "bad.py"
    sample.write_text("def f(c):\n    Node.objects.filter(canvas=c).update(x=1)\n    Edge.objects.create()\n")
    assert len(_orm_writes(sample)) == 2
