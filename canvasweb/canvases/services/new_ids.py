"""Client-chosen ids for new nodes and edges: `require_usable_id`, and `IdOwners`, the group commit's
answer to "is this id taken?" read for the whole batch at once.

A refusal says nothing about whether or where the id exists, except on a row the role can see.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from canvasweb.common.errors import Conflict, InvalidOperation

from .. import permissions
from ..models import Edge, Node

if TYPE_CHECKING:
    from .commit import _Write

# Fresh ids no client may use; an id taken where the actor cannot look gets the same answer.
RESERVED_IDS = frozenset({uuid.UUID(int=0), uuid.UUID(int=(1 << 128) - 1)})


class IdOwners:
    """Which canvas holds each id a batch's node.create ops ask for, and at what level.

    Filled from two queries sent with the batch's other reads (`node_rows`, `edge_rows`), then kept
    exact as the batch's group-committed creates take ids (`taken`). A general op writes rows
    itself, so after one the batch `forget`s everything and later checks ask the database.
    """

    def __init__(self, ids: Iterable[uuid.UUID] = ()) -> None:
        self.owners: dict[uuid.UUID, tuple[int, int]] = {}  # id -> (canvas id, level)
        self.free: set[uuid.UUID] = set(ids)  # asked for, held by no row when the batch read them

    def add_rows(self, node_rows: Iterable[tuple[Any, ...]], edge_rows: Iterable[tuple[Any, ...]]) -> None:
        """Rows of `Node (id, canvas_id, sensitivity)` and `Edge (id, canvas_id, source's and target's
        sensitivity)` for the asked ids."""
        for pk, canvas_id, sensitivity in node_rows:
            self.taken(pk, canvas_id=canvas_id, level=permissions.sensitivity_level(sensitivity))
        for pk, canvas_id, source, target in edge_rows:
            if pk not in self.owners:  # a node's answer wins, as in `require_usable_id`
                level = max(permissions.sensitivity_level(source), permissions.sensitivity_level(target))
                self.taken(pk, canvas_id=canvas_id, level=level)

    def taken(self, pk: uuid.UUID, *, canvas_id: int, level: int) -> None:
        self.owners[pk] = (canvas_id, level)
        self.free.discard(pk)

    def knows(self, pk: uuid.UUID) -> bool:
        return pk in self.owners or pk in self.free

    def forget(self) -> None:
        self.owners.clear()
        self.free.clear()


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


def require_usable_id(write: _Write, new_id: uuid.UUID, *, field: str) -> None:
    """A client-chosen node/edge id must be new.

    Taken by a node or edge this role sees on this canvas: 409 CONFLICT (the client knows that row).
    Taken anywhere else (another canvas, or a row above the role here) or reserved: the same INVALID
    answer as for the reserved ids, so the refusal says nothing about whether or where the id exists.
    """
    ids = write.new_ids
    owner = ids.owners.get(new_id) if ids is not None and ids.knows(new_id) else _owner_from_database(new_id)
    if owner is not None and owner[0] == write.canvas.pk and owner[1] <= permissions.role_level(write.role):
        raise Conflict(f"id {new_id} already exists", field=field)
    if owner is not None or new_id in RESERVED_IDS:
        raise InvalidOperation(f"id {new_id} cannot be used: choose a new random UUID", field=field)
