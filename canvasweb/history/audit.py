"""Tamper evidence: check the hash chain, and rebuild a canvas from its log alone.

`verify_chain` recomputes every entry's hash from its stored content and the
previous entry's hash (history/chain.py) and reports the first entry that does
not match, plus gaps in the revision sequence. `replay_canvas` folds the log's
before/after versions into an in-memory canvas and compares it with the rows.
Both only read; the management commands verify_audit and replay_audit print
their reports.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import cast

from django.contrib.auth import get_user_model

from canvasweb.canvases.models import Canvas, Edge, Membership, Node
from canvasweb.canvases.serialization import canvas_to_dict, edge_to_dict, node_to_dict

from .chain import entry_digest
from .models import ChangeLogEntry

# Canvas fields that change without a log entry of their own (every write bumps them).
_CANVAS_UNLOGGED = ("revision", "updated_at")


@dataclass
class ChainProblem:
    canvas_id: int
    revision: int | None
    seq: int | None
    entry_id: int | None
    problem: str
    expected: str = ""
    stored: str = ""

    def describe(self) -> str:
        where = f"canvas {self.canvas_id}"
        if self.revision is not None:
            where += f" revision {self.revision} seq {self.seq} (entry id {self.entry_id})"
        text = f"{where}: {self.problem}"
        if self.expected or self.stored:
            text += f"\n  expected {self.expected}\n  stored   {self.stored}"
        return text


@dataclass
class ChainReport:
    canvas_id: int
    entries: int
    problem: ChainProblem | None

    @property
    def ok(self) -> bool:
        return self.problem is None


def verify_chain(*, canvas_id: int) -> ChainReport:
    """Walk one canvas's log in order; stop at the first entry that breaks the chain."""
    prev_hash = ""
    expected_seq = 0
    count = 0
    last_revision = 0
    rows = ChangeLogEntry.objects.filter(canvas_id=canvas_id).order_by("revision", "seq")
    for entry in rows.iterator(chunk_size=2000):
        count += 1

        def fail(
            problem: str,
            expected: str = "",
            stored: str = "",
            entry: ChangeLogEntry = entry,
            count: int = count,
        ) -> ChainReport:
            return ChainReport(
                canvas_id,
                count,
                ChainProblem(canvas_id, entry.revision, entry.seq, entry.pk, problem, expected, stored),
            )

        if entry.revision == last_revision:
            expected_seq += 1
        else:
            if entry.revision != last_revision + 1:
                return fail(f"revisions {last_revision + 1}-{entry.revision - 1} are missing from the log")
            expected_seq = 0
        if entry.seq != expected_seq:
            return fail(f"entry seq {expected_seq} of revision {entry.revision} is missing")
        if entry.prev_hash != prev_hash:
            return fail("prev_hash does not match the previous entry's hash", prev_hash, entry.prev_hash)
        digest = entry_digest(entry, prev_hash)
        if digest != entry.hash:
            return fail("hash does not match the entry's content", digest, entry.hash)
        prev_hash = entry.hash
        last_revision = entry.revision
    current = Canvas.objects.filter(pk=canvas_id).values_list("revision", flat=True).first()
    if current is not None and current != last_revision:
        return ChainReport(
            canvas_id,
            count,
            ChainProblem(
                canvas_id,
                None,
                None,
                None,
                f"the log ends at revision {last_revision} but the canvas is at revision {current}",
            ),
        )
    return ChainReport(canvas_id, count, None)


# --- replay -------------------------------------------------------------------------------------------------


@dataclass
class ReplayReport:
    canvas_id: int
    entries: int
    nodes: int
    edges: int
    differences: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.differences


def replay_state(*, canvas_id: int) -> tuple[dict, dict[str, dict], dict[str, dict], dict[str, str], int]:
    """(canvas, nodes, edges, members {user id: role}, entry count) as the log alone describes them."""
    canvas: dict = {}
    nodes: dict[str, dict] = {}
    edges: dict[str, dict] = {}
    members: dict[str, str] = {}
    count = 0
    stores = {"node": nodes, "edge": edges}
    rows = ChangeLogEntry.objects.filter(canvas_id=canvas_id).order_by("revision", "seq")
    for entry in rows.iterator(chunk_size=2000):
        count += 1
        if entry.entity in stores:
            store = stores[entry.entity]
            if entry.action == "deleted":
                store.pop(entry.target_id, None)
            else:
                # Created/updated entries always carry the entity's ``after`` state (the log writer sets it).
                store[entry.target_id] = cast(dict, entry.after)
        elif entry.entity == "canvas":
            canvas = {**(entry.after or entry.before or {}), "deleted": entry.action == "deleted"}
        elif entry.entity == "member":
            if entry.action == "deleted":
                members.pop(entry.target_id, None)
            else:
                members[entry.target_id] = cast(str, (entry.after or {}).get("role"))
    return canvas, nodes, edges, members, count


def replay_canvas(*, canvas_id: int) -> ReplayReport:
    """Rebuild nodes, edges, members and canvas settings from the log and compare them with the rows."""
    logged_canvas, logged_nodes, logged_edges, logged_members, count = replay_state(canvas_id=canvas_id)
    row = Canvas.objects.filter(pk=canvas_id).first()
    db_nodes = {
        str(n.id): node_to_dict(n)
        for n in Node.objects.filter(canvas_id=canvas_id).select_related("created_by")
    }
    db_edges = {
        str(e.id): edge_to_dict(e)
        for e in Edge.objects.filter(canvas_id=canvas_id).select_related("created_by")
    }
    report = ReplayReport(canvas_id, count, len(db_nodes), len(db_edges))
    diffs = report.differences
    if row is None:
        diffs.append(f"canvas {canvas_id} does not exist")
        return report
    existing_users = set(get_user_model().objects.values_list("pk", flat=True))
    _compare_sets("node", logged_nodes, db_nodes, diffs, existing_users)
    _compare_sets("edge", logged_edges, db_edges, diffs, existing_users)

    db_canvas = canvas_to_dict(row)
    for name in sorted(set(db_canvas) - set(_CANVAS_UNLOGGED)):
        if name in logged_canvas and logged_canvas[name] != db_canvas[name]:
            diffs.append(f"canvas {name}: log has {logged_canvas[name]!r}, database has {db_canvas[name]!r}")
    if logged_canvas.get("deleted", False) != (row.deleted_at is not None):
        diffs.append(
            f"canvas deleted: log says {logged_canvas.get('deleted', False)}, "
            f"database says {row.deleted_at is not None}"
        )
    last = (
        ChangeLogEntry.objects.filter(canvas_id=canvas_id)
        .order_by("-revision")
        .values_list("revision", flat=True)
        .first()
        or 0
    )
    if last != row.revision:
        diffs.append(f"canvas revision: log ends at {last}, database has {row.revision}")
    db_members = {
        str(user_id): role
        for user_id, role in Membership.objects.filter(canvas_id=canvas_id).values_list("user_id", "role")
    }
    for user_id in sorted(set(logged_members) | set(db_members), key=str):
        logged, actual = logged_members.get(user_id), db_members.get(user_id)
        if logged != actual and not (actual is None and int(user_id) not in existing_users):
            diffs.append(f"member {user_id}: log has role {logged!r}, database has {actual!r}")
    return report


def _compare_sets(
    kind: str, logged: dict[str, dict], actual: dict[str, dict], diffs: list[str], existing_users: set[int]
) -> None:
    for entity_id in sorted(logged.keys() - actual.keys()):
        diffs.append(f"{kind} {entity_id}: in the log but not in the database")
    for entity_id in sorted(actual.keys() - logged.keys()):
        diffs.append(f"{kind} {entity_id}: in the database but not in the log")
    for entity_id in sorted(logged.keys() & actual.keys()):
        a, b = logged[entity_id], actual[entity_id]
        for name in sorted(set(a) | set(b)):
            left, right = a.get(name), b.get(name)
            if name == "created_by":
                # Usernames may change and accounts may be deleted (SET_NULL) after the fact.
                left_id = (left or {}).get("id")
                right_id = (right or {}).get("id")
                if left_id == right_id or (right_id is None and left_id not in existing_users):
                    continue
                left, right = left_id, right_id
            elif name == "provenance" and left is not None and right is not None:
                if _strip_usernames(left) == _strip_usernames(right):
                    continue
            if left != right:
                diffs.append(f"{kind} {entity_id} {name}: log has {left!r}, database has {right!r}")


def _strip_usernames(value):
    if isinstance(value, dict):
        return {k: _strip_usernames(v) for k, v in value.items() if k != "username"}
    return value
