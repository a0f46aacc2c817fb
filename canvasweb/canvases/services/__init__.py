"""The one write path for canvases.

Every change — REST, WebSocket, agent, import, revert, undo — goes through
`apply_operation` / `apply_operations` (node and edge operations, batch.py) or the
canvas and member services (canvas.py, membership.py), which all share the commit in
commit.py:

    lock canvas → check permission → validate → write → revision + 1
    → change log entries (hash-chained) → broadcast after commit

Refusals change nothing and are written to the security log. Only modules of this
package write canvas rows (tests/write_guard.py and tests/canvases/write_scan.py check).
"""

from canvasweb.common.errors import Forbidden

from ..serialization import agent_policy_to_dict
from .batch import BatchOutcome, OpRequest, apply_operation, apply_operations
from .canvas import POLICY_FIELDS, canvas_create, canvas_delete, canvas_update
from .commit import ApplyResult, actor_to_dict, receipts_prune
from .membership import member_remove, member_set, models_role_rank, user_delete

__all__ = [
    "POLICY_FIELDS",
    "ApplyResult",
    "BatchOutcome",
    "Forbidden",
    "OpRequest",
    "actor_to_dict",
    "agent_policy_to_dict",
    "apply_operation",
    "apply_operations",
    "canvas_create",
    "canvas_delete",
    "canvas_update",
    "member_remove",
    "member_set",
    "models_role_rank",
    "receipts_prune",
    "user_delete",
]
