"""The sync invariants, checked against the database through the ORM.

    I1 convergence   every client's confirmed state equals the snapshot for its role
    I2 durability    every acked client_op_id has one receipt at the acked revision and
                     its log entries sit in exactly that one revision (none for a no-op)
    I3 idempotency   no client_op_id is in the log under two revisions
    I4 no gaps       log revisions are exactly 1..canvas.revision, seq 0..k-1 in each,
                     and the hash chain verifies
    I5 integrity     no edge (in the database or in a client) touches a missing node;
                     superseded_by points at an existing node of the same canvas
    replay           folding the log's `after` images reproduces every node and edge row

`check_canvas` takes plain client reports (so the same check runs in-process for
the fuzz and inside `manage.py shell` of a server cluster for the real-stack
tests) and returns {"problems": [...], "figures": {...}}.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable
from typing import TYPE_CHECKING

from .sync_client import SyncClient, document_diff

if TYPE_CHECKING:
    from canvasweb.history.audit import ChainReport


def client_report(client: SyncClient, *, user_id: int | None = None) -> dict:
    return {
        "name": client.name,
        "user_id": user_id if user_id is not None else (client.user or {}).get("id"),
        "role": client.role,
        "revision": client.revision,
        "document": client.document(),
        "acked": {cid: rec.revision for cid, rec in client.acked.items()},
        "rejected": sorted(client.rejected),
        "pending": sorted(client.pending),
        "anomalies": list(client.anomalies),
        "dangling_edges": client.dangling_edges(),
    }


def check_canvas(canvas_id: int, reports: list[dict], *, require_settled: bool = True) -> dict:
    from canvasweb.canvases import selectors
    from canvasweb.canvases.models import Canvas, Edge, Membership, Node, OpReceipt
    from canvasweb.canvases.serialization import edge_to_dict, node_to_dict
    from canvasweb.history.models import ChangeLogEntry

    problems: list[str] = []
    canvas = Canvas.objects.get(pk=canvas_id)
    roles = dict(Membership.objects.filter(canvas=canvas).values_list("user_id", "role"))
    snapshots: dict[str, dict] = {}

    def snapshot_for(role: str) -> dict:
        if role not in snapshots:
            snap = selectors.canvas_snapshot(canvas=canvas, role=role)
            snapshots[role] = {
                "nodes": {n["id"]: n for n in snap["nodes"]},
                "edges": {e["id"]: e for e in snap["edges"]},
            }
        return snapshots[role]

    # I1 convergence (and every client done)
    for report in reports:
        name = report["name"]
        role = roles.get(report["user_id"])
        if report["role"] != role:
            problems.append(f"{name}: believes its role is {report['role']}, the database says {role}")
        if role is None:
            continue
        if require_settled and report["pending"]:
            problems.append(f"{name}: {len(report['pending'])} ops never answered: {report['pending'][:5]}")
        if report["revision"] != canvas.revision:
            problems.append(f"{name}: at revision {report['revision']}, the canvas is at {canvas.revision}")
        diff = document_diff(snapshot_for(role), report["document"])
        if diff:
            problems.append(f"{name} ({role}) differs from the database: " + "; ".join(diff[:6]))
        if report["dangling_edges"]:
            problems.append(f"{name}: edges to missing nodes {report['dangling_edges'][:5]}")
        for anomaly in report["anomalies"][:5]:
            problems.append(f"{name}: protocol anomaly: {anomaly}")

    # I2 / I3 durability and idempotency of acked ops
    entries = list(ChangeLogEntry.objects.filter(canvas=canvas).order_by("revision", "seq"))
    revisions_by_op: dict[tuple, set] = defaultdict(set)
    for entry in entries:
        if entry.client_op_id:
            revisions_by_op[(entry.actor_user_id, entry.client_op_id)].add(entry.revision)
    receipts = {(r.user_id, r.client_op_id): r for r in OpReceipt.objects.filter(canvas=canvas)}
    acked_total = noop_acks = 0
    for report in reports:
        user_id = report["user_id"]
        for cid, revision in report["acked"].items():
            acked_total += 1
            receipt = receipts.get((user_id, cid))
            if receipt is None:
                problems.append(f"LOST: {report['name']} {cid} acked at {revision} but has no receipt")
                continue
            if receipt.revision != revision:
                problems.append(
                    f"{report['name']} {cid} acked at {revision}, receipt says {receipt.revision}"
                )
            logged = revisions_by_op.get((user_id, cid), set())
            if receipt.changes:
                if logged != {revision}:
                    problems.append(
                        f"LOST/DUPLICATED: {report['name']} {cid} acked at {revision}, "
                        f"logged in revisions {sorted(logged)}"
                    )
            else:
                noop_acks += 1
                if logged:
                    problems.append(f"{report['name']} {cid} was a no-op but is logged in {sorted(logged)}")
        for cid in report["rejected"]:
            if (user_id, cid) in receipts or (user_id, cid) in revisions_by_op:
                problems.append(f"{report['name']} {cid} was rejected but changed the canvas")
    for key, revs in revisions_by_op.items():
        if len(revs) > 1:
            problems.append(f"client_op_id {key[1]} applied in several revisions {sorted(revs)}")

    # I4 gap-free revisions and the hash chain
    by_revision: dict[int, list[int]] = defaultdict(list)
    for entry in entries:
        by_revision[entry.revision].append(entry.seq)
    if sorted(by_revision) != list(range(1, canvas.revision + 1)):
        missing = sorted(set(range(1, canvas.revision + 1)) - set(by_revision))
        problems.append(
            f"log revisions are not 1..{canvas.revision}: missing {missing[:10]}, "
            f"extra {sorted(set(by_revision) - set(range(1, canvas.revision + 1)))[:10]}"
        )
    for revision, seqs in by_revision.items():
        if seqs != list(range(len(seqs))):
            problems.append(f"revision {revision} has seqs {seqs}")
    verifier: Callable[..., ChainReport] | None
    try:
        from canvasweb.history.audit import verify_chain as verifier
    except ImportError:  # pragma: no cover - history app without the verifier
        verifier = None
    if verifier is not None:
        chain = verifier(canvas_id=canvas.pk)
        if not chain.ok and chain.problem is not None:
            problems.append(f"hash chain broken: {chain.problem.describe()}")

    # I5 integrity
    nodes = {str(n.id): n for n in Node.objects.filter(canvas=canvas).select_related("created_by")}
    edges = {str(e.id): e for e in Edge.objects.filter(canvas=canvas).select_related("created_by")}
    for edge_id, edge in edges.items():
        if str(edge.source_id) not in nodes or str(edge.target_id) not in nodes:
            problems.append(f"database edge {edge_id} touches a node outside the canvas")
    for node_id, node in nodes.items():
        if node.superseded_by_id is not None and str(node.superseded_by_id) not in nodes:
            problems.append(f"node {node_id} superseded by missing {node.superseded_by_id}")

    # Replay: the log's after-images fold into exactly the current rows.
    replay: dict[str, dict] = {"node": {}, "edge": {}}
    for entry in entries:
        if entry.entity not in replay:
            continue
        if entry.action == "deleted":
            replay[entry.entity].pop(entry.target_id, None)
        else:
            replay[entry.entity][entry.target_id] = entry.after
    current = {
        "nodes": {k: node_to_dict(v) for k, v in nodes.items()},
        "edges": {k: edge_to_dict(v) for k, v in edges.items()},
    }
    replay_diff = document_diff(current, {"nodes": replay["node"], "edges": replay["edge"]})
    if replay_diff:
        problems.append("replaying the log does not give the database: " + "; ".join(replay_diff[:5]))

    created: defaultdict[str, int] = defaultdict(int)
    for entry in entries:
        if entry.action == "created":
            created[entry.entity] += 1
    figures = {
        "revision": canvas.revision,
        "log_entries": len(entries),
        "nodes_created": created["node"],
        "edges_created": created["edge"],
        "nodes_now": len(nodes),
        "edges_now": len(edges),
        "acked": acked_total,
        "noop_acks": noop_acks,
        "rejected": sum(len(r["rejected"]) for r in reports),
        "clients": len(reports),
    }
    return {"problems": problems, "figures": figures}


CHECK_SCRIPT = """
import json, sys
from canvasweb.testing.invariants import check_canvas
spec = json.load(open({path!r}))
result = check_canvas(spec["canvas_id"], spec["reports"], require_settled=spec.get("require_settled", True))
print("CHECK-JSON" + json.dumps(result))
"""


def check_in_cluster(
    cluster, canvas_id: int, reports: list[dict], *, workdir, require_settled: bool = True
) -> dict:
    """Run `check_canvas` inside the cluster's own database (a `manage.py shell` subprocess)."""
    path = workdir / f"check-{canvas_id}.json"
    path.write_text(
        json.dumps({"canvas_id": canvas_id, "reports": reports, "require_settled": require_settled})
    )
    output = cluster.manage("shell", "-c", CHECK_SCRIPT.format(path=str(path)))
    line = next(line for line in output.splitlines() if line.startswith("CHECK-JSON"))
    return json.loads(line[len("CHECK-JSON") :])
