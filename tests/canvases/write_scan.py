"""Static scan: ORM writes on canvas models anywhere but the canvasweb/canvases/services/ package.

Run as `python -m tests.canvases.write_scan` (prints the offenders as JSON, exit 1 if any); the test runs
it in a fresh interpreter because CPython 3.11's ast.parse can fail after other threads ran
(python/cpython#106905).
"""

from __future__ import annotations

import ast
import json
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2] / "canvasweb"
CANVAS_MODELS = {"Canvas", "Membership", "Node", "Edge", "OpReceipt", "ChangeLogEntry"}
# Related managers onto canvas models: canvas.nodes.update(...), canvas.memberships.all().delete(), ...
RELATED_MANAGERS = {
    "nodes",
    "edges",
    "memberships",
    "change_log",
    "canvas_memberships",
    "outgoing_edges",
    "incoming_edges",
}
WRITE_METHODS = {
    "create",
    "update",
    "delete",
    "bulk_create",
    "bulk_update",
    "get_or_create",
    "update_or_create",
    "save",
}
SERVICES = ROOT / "canvases" / "services"


def orm_writes(path: pathlib.Path) -> list[str]:
    """Calls like Node.objects.create(...), Edge.objects.filter(...).update(...), canvas.nodes.update(...)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    hits = []
    for call in ast.walk(tree):
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)):
            continue
        if call.func.attr not in WRITE_METHODS:
            continue
        # Walk down the receiver chain looking for a canvas model name or a related manager.
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
        if (CANVAS_MODELS | RELATED_MANAGERS) & set(names):
            hits.append(f"{path}:{call.lineno} {'.'.join(reversed(names))}.{call.func.attr}()")
    return hits


def scan() -> list[str]:
    offenders: list[str] = []
    for path in sorted(ROOT.rglob("*.py")):
        if path.is_relative_to(SERVICES) or "migrations" in path.parts:
            continue
        offenders += orm_writes(path)
    return offenders


if __name__ == "__main__":
    found = scan()
    print(json.dumps(found))
    sys.exit(1 if found else 0)
