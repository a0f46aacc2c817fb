"""Client-chosen ids for new nodes and edges: `require_usable_id`, and `IdOwners`, the group commit's
answer to "is this id taken?" read for the whole batch at once.

An id is taken while a row holds it and stays used once the change log names it (a deleted node
or edge): its history, revert and undo address it by that id, so no other row may ever take it.
Only revert, undo and redo re-create a row under its own id (`_RESTORING`).

A refusal says nothing about whether or where the id exists, except on a row the role can see.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from canvasweb.common.errors import Conflict, InvalidOperation
from canvasweb.history.models import ChangeLogEntry

from .. import permissions
from ..models import Edge, Node

if TYPE_CHECKING:
    from .commit import _Write

# Fresh ids no client may use; an id taken where the actor cannot look gets the same answer.
RESERVED_IDS = frozenset({uuid.UUID(int=0), uuid.UUID(int=(1 << 128) - 1)})

# Actor reasons whose creates bring back a deleted row of this canvas under its own id.
_RESTORING = frozenset({"revert", "undo", "redo"})
# The change log entities whose target ids are node/edge UUIDs.
_ID_ENTITIES = ("node", "edge")


class IdOwners:
    """Which canvas holds each id a batch's node.create ops ask for, and at what level.

    Filled from two queries sent with the batch's other reads (`node_rows`, `edge_rows`), then kept
    exact as the batch's group-committed creates take ids (`taken`). A general op writes rows
    itself, so after one the batch `forget`s everything and later checks ask the database.
    """

    def __init__(self, ids: Iterable[uuid.UUID] = ()) -> None:
        self.owners: dict[uuid.UUID, tuple[int, int]] = {}  # id -> (canvas id, level)
        self.free: set[uuid.UUID] = set(ids)  # asked for, held by no row when the batch read them
        # Asked-for ids the change log names: the (canvas id, entity) pairs of their entries.
        self.logged: dict[uuid.UUID, set[tuple[int, str]]] = {}

    def add_rows(self, node_rows: Iterable[tuple[Any, ...]], edge_rows: Iterable[tuple[Any, ...]]) -> None:
        """Rows of `Node (id, canvas_id, sensitivity)` and `Edge (id, canvas_id, source's and target's
        sensitivity)` for the asked ids."""
        for pk, canvas_id, sensitivity in node_rows:
            self.taken(pk, canvas_id=canvas_id, level=permissions.sensitivity_level(sensitivity))
        for pk, canvas_id, source, target in edge_rows:
            if pk not in self.owners:  # a node's answer wins, as in `require_usable_id`
                level = max(permissions.sensitivity_level(source), permissions.sensitivity_level(target))
                self.taken(pk, canvas_id=canvas_id, level=level)

    def add_log_rows(self, rows: Iterable[tuple[Any, ...]]) -> None:
        """Distinct rows of `ChangeLogEntry (target_id, canvas_id, entity)` for the asked ids."""
        for target_id, canvas_id, entity in rows:
            self.logged.setdefault(uuid.UUID(target_id), set()).add((canvas_id, entity))

    def taken(self, pk: uuid.UUID, *, canvas_id: int, level: int) -> None:
        self.owners[pk] = (canvas_id, level)
        self.free.discard(pk)

    def knows(self, pk: uuid.UUID) -> bool:
        return pk in self.owners or pk in self.free

    def forget(self) -> None:
        self.owners.clear()
        self.free.clear()
        self.logged.clear()


def _owner_from_database(new_id: uuid.UUID) -> tuple[int, int] | None:
    node = Node.objects.filter(pk=new_id).only("canvas_id", "sensitivity").first()
    if node is not None:
        return node.canvas_id, permissions.sensitivity_level(node.sensitivity)
    edge = Edge.objects.filter(pk=new_id).select_related("source", "target").first()
    if edge is not None:
        level = max(
            permissions.sensitivity_level(edge.source.sensitivity),
            permissions.sensitivity_level(edge.target.sensitivity),
        )
        return edge.canvas_id, level
    return None


def _used_elsewhere_in_log(new_id: uuid.UUID, *, canvas_id: int, entity: str, restoring: bool) -> bool:
    """Does the change log name `new_id` in a way that forbids this create? One query on the
    indexed target_id, stopping at the first entry found."""
    entries = ChangeLogEntry.objects.filter(target_id=str(new_id), entity__in=_ID_ENTITIES)
    if restoring:
        # Only this canvas's own history of this very entity may be brought back.
        entries = entries.exclude(canvas_id=canvas_id, entity=entity)
    return entries.exists()


def _forbidden_by_log(write: _Write, new_id: uuid.UUID, *, entity: str) -> bool:
    canvas_id, key = write.canvas.pk, str(new_id)
    restoring = write.actor.reason in _RESTORING
    # Entries of this group commit not written yet: this write's, then the batch's earlier ones.
    pending = {r["entity"] for r in write.records if r["id"] == key and r["entity"] in _ID_ENTITIES}
    if write.logged is not None and key in write.logged:
        pending.add(write.logged[key])
    if pending - ({entity} if restoring else set()):
        return True
    ids = write.new_ids
    if ids is not None and ids.knows(new_id):
        uses = ids.logged.get(new_id, set())
        return bool(uses - ({(canvas_id, entity)} if restoring else set()))
    return _used_elsewhere_in_log(new_id, canvas_id=canvas_id, entity=entity, restoring=restoring)


def require_usable_id(write: _Write, new_id: uuid.UUID, *, field: str, entity: str) -> None:
    """A client-chosen node/edge id (`entity` "node" or "edge") must never have been used.

    Taken by a node or edge this role sees on this canvas: 409 CONFLICT (the client knows that row).
    Taken anywhere else (another canvas, or a row above the role here), named by the change log
    (a deleted row, on any canvas) or reserved: the same INVALID answer as for the reserved ids, so
    the refusal says nothing about whether or where the id exists. A revert, undo or redo may
    re-create a row of this canvas under its own id.
    """
    ids = write.new_ids
    owner = ids.owners.get(new_id) if ids is not None and ids.knows(new_id) else _owner_from_database(new_id)
    if owner is not None and owner[0] == write.canvas.pk and owner[1] <= permissions.role_level(write.role):
        raise Conflict(f"id {new_id} already exists", field=field)
    if owner is not None or new_id in RESERVED_IDS or _forbidden_by_log(write, new_id, entity=entity):
        raise InvalidOperation(f"id {new_id} cannot be used: choose a new random UUID", field=field)
