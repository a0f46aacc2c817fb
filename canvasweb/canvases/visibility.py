"""Filter change records for one receiver's role (live broadcast and catch-up alike).

Each record carries `_vb`/`_va`: the sensitivity level of the entity before and
after the change (edges take the higher level of their two ends). A receiver
at level L sees a record as-is when it could see the entity after the change;
as `removed` when it could see it before but not after; as `created` (with its
data) when it could not see it before but can after; not at all otherwise.

When a node's sensitivity changes, the services add a record for each of its edges
whose level changed, with empty `fields` (services._record_edge_visibility): a
role that loses the node loses those edges in the same event, a role that regains
it gets them back, and a role that saw them all along skips the record (nothing
about the edge changed for it). The live broadcast and changes-since both go
through here, so they agree.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


def _visible(level_needed: int | None, level: int) -> bool:
    return level_needed is not None and level_needed <= level


def filter_changes(changes: Iterable[dict[str, Any]], *, level: int) -> tuple[list[dict[str, Any]], bool]:
    """Returns (changes the receiver may see, whether it must resync)."""
    visible: list[dict[str, Any]] = []
    needs_resync = False
    for change in changes:
        before_ok = _visible(change.get("_vb"), level)
        after_ok = _visible(change.get("_va"), level)
        public = {k: v for k, v in change.items() if not k.startswith("_")}
        if change["action"] == "deleted":
            if before_ok:
                visible.append(public)
        elif after_ok:
            if change["action"] == "updated" and not before_ok:
                visible.append({**public, "action": "created", "fields": []})
            elif change["action"] == "updated" and change["entity"] == "edge" and not change.get("fields"):
                continue  # a visibility-only edge record for a role that saw the edge before and after
            else:
                visible.append(public)
        elif before_ok:
            visible.append({**public, "action": "removed", "fields": [], "data": None})
    return visible, needs_resync


def filter_event(event: dict[str, Any], *, level: int) -> tuple[dict[str, Any], bool]:
    changes, needs_resync = filter_changes(event["changes"], level=level)
    return {**event, "changes": changes}, needs_resync
