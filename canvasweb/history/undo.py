"""Undo and redo, per user and per canvas (docs/history.md).

The stacks are rebuilt from the change log plus `UndoStep` rows; undo inverts the revision on top
of the user's stack (undo_plan.py works out the inverse), redo inverts that undo.
"""

from __future__ import annotations

from django.db import transaction

from canvasweb.canvases import permissions, services
from canvasweb.canvases import selectors as canvas_selectors
from canvasweb.canvases.actors import Actor
from canvasweb.canvases.models import Canvas
from canvasweb.canvases.operations import Operation
from canvasweb.common.errors import CanvasError, InvalidOperation

from .models import ChangeLogEntry, UndoStep, UndoStepKind
from .ops import visible_changes
from .undo_plan import plan_inverse

UNDO_DEPTH = 100


UNDOABLE_REASONS = ("", "revert")


class NothingToUndo(CanvasError):
    code = "NOTHING_TO_UNDO"
    http_status = 409


class NothingToRedo(CanvasError):
    code = "NOTHING_TO_REDO"
    http_status = 409


def undo_stacks(*, canvas_id: int, user) -> tuple[list[int], list[int]]:
    """(undo stack, redo stack) of revisions for `user` on a canvas; the top is the last item.

    Undo stack: revisions whose effect an undo would invert (own edits, reverts, redos).
    Redo stack: undo revisions a redo would invert.
    """
    rows = list(
        ChangeLogEntry.objects.filter(
            canvas_id=canvas_id, actor_user=user, actor_kind="user", entity__in=("node", "edge")
        )
        .order_by("-revision")
        .values_list("revision", "reason")
        .distinct()[: UNDO_DEPTH * 3]
    )
    if not rows:
        return [], []
    oldest = rows[-1][0]
    events: list[tuple[int, int, int, str, int, int | None]] = []
    for rev, reason in rows:
        if reason in UNDOABLE_REASONS:
            events.append((rev, 0, 0, "edit", rev, rev))
    for step in UndoStep.objects.filter(canvas_id=canvas_id, user=user, position__gte=oldest):
        events.append((step.position, 1, step.pk, step.kind, step.inverted_revision, step.revision))
    events.sort()
    undo: list[int] = []
    redo: list[int] = []
    for _, _, _, kind, inverted, produced in events:
        if kind == "edit":
            undo.append(inverted)
            redo.clear()
        elif kind == UndoStepKind.UNDO:
            if inverted in undo:
                undo.remove(inverted)
            if produced is not None:
                redo.append(produced)
        else:
            if inverted in redo:
                redo.remove(inverted)
            if produced is not None:
                undo.append(produced)
    return undo[-UNDO_DEPTH:], redo[-UNDO_DEPTH:]


def undo_status(*, user, canvas_id: int) -> dict:
    canvas_selectors.canvas_for_member(user=user, canvas_id=canvas_id)
    undo, redo = undo_stacks(canvas_id=canvas_id, user=user)
    return {
        "can_undo": bool(undo),
        "can_redo": bool(redo),
        "undo_revision": undo[-1] if undo else None,
        "redo_revision": redo[-1] if redo else None,
    }


def undo(*, actor: Actor, canvas_id: int) -> dict:
    """Invert the actor's most recent own edit on the canvas (skipping what others changed since)."""
    return _invert_top(actor=actor, canvas_id=canvas_id, kind=UndoStepKind.UNDO)


def redo(*, actor: Actor, canvas_id: int) -> dict:
    """Invert the actor's most recent undo (skipping what others changed since)."""
    return _invert_top(actor=actor, canvas_id=canvas_id, kind=UndoStepKind.REDO)


def _invert_top(*, actor: Actor, canvas_id: int, kind: str) -> dict:
    if actor.is_agent:
        raise InvalidOperation("undo and redo are for people, not the agent", field=None)
    user = actor.user
    error: CanvasError | None = None
    with transaction.atomic():
        canvas, role = canvas_selectors.canvas_for_member(user=user, canvas_id=canvas_id)
        permissions.require_role(actor=actor, role=role, operation="node.update")
        # Serialise undo/redo per canvas with every other write (the services lock the same row).
        canvas = Canvas.objects.select_for_update().get(pk=canvas.pk)
        undo_stack, redo_stack = undo_stacks(canvas_id=canvas.pk, user=user)
        stack = undo_stack if kind == UndoStepKind.UNDO else redo_stack
        if not stack:
            raise (
                NothingToUndo("nothing to undo")
                if kind == UndoStepKind.UNDO
                else NothingToRedo("nothing to redo")
            )
        target = stack[-1]
        plan = plan_inverse(canvas=canvas, revision=target, user=user, level=permissions.role_level(role))
        result = None
        if plan.ops:
            try:
                result = services.apply_operation(
                    actor=actor.with_reason(str(kind)),
                    canvas_id=canvas.pk,
                    op=Operation(type="batch", ops=tuple(plan.ops)),
                )
            except CanvasError as exc:
                # Leave the block normally so the refusal the service logged is committed.
                error = exc
        if error is None:
            written = result.revision if result is not None and result.changes else None
            position = Canvas.objects.filter(pk=canvas.pk).values_list("revision", flat=True).get()
            UndoStep.objects.create(
                canvas=canvas,
                user=user,
                kind=kind,
                inverted_revision=target,
                revision=written,
                position=position,
                skipped=plan.skipped,
            )
    if error is not None:
        raise error
    undo_stack, redo_stack = undo_stacks(canvas_id=canvas.pk, user=user)
    return {
        "kind": str(kind),
        "inverted_revision": target,
        "revision": written,
        "applied": plan.applied,
        "skipped": plan.skipped,
        "changes": visible_changes(result.changes, actor, canvas.pk)
        if written and result is not None
        else [],
        "can_undo": bool(undo_stack),
        "can_redo": bool(redo_stack),
    }
