"""Writes that come from history: revert a node to a version, undo/redo, import a JSON Canvas file.

None of these touch canvas rows themselves. Each works out the operations that
would produce the wanted state and hands them to the one write path,
`canvasweb.canvases.services.apply_operation`, as one batch (one revision,
all or nothing) with the actor's `reason` set to "revert", "undo", "redo" or
"import". The change log therefore records them like any other edit, and the
history is never edited.

Undo/redo model (per user, per canvas; docs/history.md):

* The undo stack holds the user's own recent revisions (plain edits and reverts
  made as a person, not the agent's writes). A new edit clears the redo stack.
* Undo inverts the revision on top of the stack; redo inverts that undo.
  The stacks are rebuilt from the change log plus `UndoStep` rows, which say
  which revision each undo/redo took off a stack.
* A field someone else (another person, or the agent) changed after the
  revision being inverted is left alone and reported in `skipped`; so is an
  entity that is gone or no longer visible. The rest is inverted.

The writes live beside this module, which re-exports them: revert.py, undo.py (with
undo_plan.py, the inverse of a revision), json_import.py; ops.py holds what they share.
"""

from __future__ import annotations

from .json_import import canvas_import
from .revert import node_revert
from .undo import NothingToRedo, NothingToUndo, redo, undo, undo_stacks, undo_status

__all__ = [
    "NothingToRedo",
    "NothingToUndo",
    "canvas_import",
    "node_revert",
    "redo",
    "undo",
    "undo_stacks",
    "undo_status",
]
