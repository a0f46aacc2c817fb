"""Proposals: the agent's writes on a propose-mode canvas, waiting for a person.

* `proposal_create` is called by the runner after the write was validated and
  passed an authorization dry run, so what reaches the queue is something the
  write path would accept right now.
* `proposal_approve` applies the stored operation through the one write path
  (`canvases.services.apply_operation`) as the agent acting for the person who
  asked, with `approved_by` = the approver; the change log and the new node's
  provenance name both. The approver needs edit rights (`proposal.decide`).
* A proposal is **stale** when a node it changes got a new version (or is
  gone), or a node it links to is gone, superseded or archived, since it was
  made. Approving a stale proposal needs `force=True`; otherwise CONFLICT and
  the proposal stays pending.
* If the write path refuses at approval time (policy changed, node pinned
  meanwhile, requester lost access), the proposal becomes `failed` with the
  error, and the same error is raised to the approver.

Every decision is broadcast to the canvas group as an `agent.proposal` frame,
to sockets whose role may see the nodes involved.
"""

from __future__ import annotations

import logging
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction
from django.utils import timezone

from canvasweb.canvases import permissions
from canvasweb.canvases import selectors as canvas_selectors
from canvasweb.canvases import services as canvas_services
from canvasweb.canvases.actors import agent_actor
from canvasweb.canvases.models import Node
from canvasweb.canvases.realtime.groups import canvas_group
from canvasweb.canvases.serialization import iso, user_ref
from canvasweb.common.errors import CanvasError, Conflict, Forbidden, InvalidOperation, NotFound
from canvasweb.history.models import SecurityEvent

from .models import AgentRun, Proposal, ProposalStatus
from .placement import with_free_position

logger = logging.getLogger(__name__)

STATUSES = tuple(ProposalStatus.values)
MAX_LIST = 200


# --- create ----------------------------------------------------------------------------------


def proposal_create(
    *,
    run: AgentRun,
    user,
    canvas_id: int,
    conversation_id: int | None,
    message_id: int | None,
    tool: str,
    op: dict,
    summary: str,
    diff: dict,
    base_versions: dict[str, int],
    refs: list[str],
    visibility_level: int,
) -> Proposal:
    proposal = Proposal.objects.create(
        canvas_id=canvas_id,
        conversation_id=conversation_id,
        message_id=message_id,
        run=run,
        requested_by=user,
        tool=tool,
        op=op,
        summary=summary[:300],
        diff=diff,
        base_versions=base_versions,
        refs=refs,
        visibility_level=visibility_level,
    )
    _broadcast_after_commit(proposal, action="created")
    return proposal


# --- decide ----------------------------------------------------------------------------------


def _recording_refusals(func):
    """A refused decision (role too low) goes to the security log, outside the rolled-back transaction."""

    def wrapper(*, user, **kwargs):
        try:
            return func(user=user, **kwargs)
        except Forbidden as exc:
            event = getattr(exc, "security_event", None)
            if event is not None:
                SecurityEvent.objects.create(
                    user=user, actor_kind="user", channel="rest", code=exc.code, reason=exc.message, **event
                )
            raise

    wrapper.__name__ = func.__name__
    wrapper.__doc__ = func.__doc__
    return wrapper


@_recording_refusals
def proposal_approve(*, user, proposal_id: Any, force: bool = False) -> dict:
    """Apply a pending proposal through the write path; returns {"proposal", "revision"}."""
    if not isinstance(force, bool):
        raise InvalidOperation("force must be true or false", field="force")
    failure: CanvasError | None = None
    with transaction.atomic():
        proposal, _role = _proposal_for_decision(user=user, proposal_id=proposal_id, operation="approve")
        stale = proposal_staleness(proposals=[proposal])[proposal.pk]
        if stale and not force:
            raise Conflict(
                f"this proposal is stale ({stale}); look at the node again, then approve with "
                "force=true or reject it",
                field="force",
            )
        actor = agent_actor(
            proposal.requested_by,
            conversation_id=proposal.conversation_id,
            message_id=proposal.message_id,
            agent_run_id=proposal.run.run_id if proposal.run_id and proposal.run else "",
            approved_by=user,
            via=proposal.run.via if proposal.run_id and proposal.run else "",
        )
        try:
            result = canvas_services.apply_operation(
                actor=actor, canvas_id=proposal.canvas_id, op=with_free_position(proposal)
            )
        except CanvasError as exc:  # the write path recorded the refusal in the security log
            failure = exc
            proposal.status = ProposalStatus.FAILED
            proposal.error = exc.as_dict()
        else:
            proposal.status = ProposalStatus.APPROVED
            proposal.result_revision = result.revision
        proposal.decided_by = user
        proposal.decided_at = timezone.now()
        proposal.forced = bool(stale) and force
        proposal.save(
            update_fields=["status", "error", "result_revision", "decided_by", "decided_at", "forced"]
        )
        _broadcast_after_commit(proposal, action=proposal.status)
    if failure is not None:
        raise type(failure)(
            f"the proposal could not be applied and is now marked failed: {failure.message}",
            field=failure.field,
        )
    return {"proposal": proposal_to_dict(proposal, stale=None), "revision": proposal.result_revision}


@_recording_refusals
def proposal_reject(*, user, proposal_id: Any) -> dict:
    with transaction.atomic():
        proposal, _ = _proposal_for_decision(user=user, proposal_id=proposal_id, operation="reject")
        proposal.status = ProposalStatus.REJECTED
        proposal.decided_by = user
        proposal.decided_at = timezone.now()
        proposal.save(update_fields=["status", "decided_by", "decided_at"])
        _broadcast_after_commit(proposal, action="rejected")
    return {"proposal": proposal_to_dict(proposal, stale=None), "revision": None}


def _locked_proposals():
    """Proposals locked for a decision. Only the proposal row is locked (`of=("self",)`): `run` and
    `decided_by` are nullable, so they are outer joins, and PostgreSQL refuses FOR UPDATE on the
    nullable side of one (every approve and reject was a 500 there; SQLite ignores FOR UPDATE)."""
    return Proposal.objects.select_for_update(of=("self",)).select_related(
        "requested_by", "run", "decided_by"
    )


def _proposal_for_decision(*, user, proposal_id: Any, operation: str) -> tuple[Proposal, str]:
    if isinstance(proposal_id, bool) or not isinstance(proposal_id, int):
        raise InvalidOperation("proposal_id must be an integer", field="proposal_id")
    proposal = _locked_proposals().filter(pk=proposal_id).first()
    role = canvas_selectors.user_role(user=user, canvas_id=proposal.canvas_id) if proposal else None
    if proposal is None or role is None or proposal.visibility_level > permissions.role_level(role):
        raise NotFound("no such proposal", field="proposal_id")
    if not permissions.role_allows(role, "proposal.decide"):
        error = Forbidden(f"a {role} may not {operation} agent proposals; editors and owners can")
        # Recorded after the transaction rolls back (see _decision).
        error.security_event = {
            "canvas_id_ref": proposal.canvas_id,
            "op_type": f"proposal.{operation}",
            "detail": {"proposal_id": proposal.pk},
        }
        raise error
    if proposal.status != ProposalStatus.PENDING:
        raise Conflict(f"this proposal was already {proposal.status}", field="proposal_id")
    return proposal, role


# --- read ------------------------------------------------------------------------------------


def proposal_list(*, user, canvas_id: int, status: str | None = None) -> list[dict]:
    """Proposals on a canvas that the user's role may see, newest first, each with `stale`."""
    canvas, role = canvas_selectors.canvas_for_member(user=user, canvas_id=canvas_id)
    if status is not None and status not in STATUSES:
        raise InvalidOperation(f"status must be one of {', '.join(STATUSES)}", field="status")
    rows = Proposal.objects.filter(
        canvas=canvas, visibility_level__lte=permissions.role_level(role)
    ).select_related("requested_by", "decided_by", "run")
    if status:
        rows = rows.filter(status=status)
    proposals = list(rows.order_by("-id")[:MAX_LIST])
    stale = proposal_staleness(proposals=[p for p in proposals if p.status == ProposalStatus.PENDING])
    return [proposal_to_dict(p, stale=stale.get(p.pk)) for p in proposals]


def proposal_staleness(*, proposals: list[Proposal]) -> dict[int, str]:
    """{proposal id: "" if current, else why it is stale} for the given proposals (one query)."""
    ids = set()
    for proposal in proposals:
        ids.update(proposal.base_versions)
        ids.update(proposal.refs)
    current = {
        str(row[0]): row[1:]
        for row in Node.objects.filter(pk__in=list(ids)).values_list(
            "id", "version", "superseded_by_id", "archived"
        )
    }
    result = {}
    for proposal in proposals:
        reasons = []
        for node_id, version in proposal.base_versions.items():
            now = current.get(node_id)
            if now is None:
                reasons.append("a node it changes was deleted")
            elif now[0] != version:
                reasons.append("a node it changes was edited since")
        for node_id in proposal.refs:
            now = current.get(node_id)
            if now is None or now[1] is not None or now[2]:
                reasons.append("a node it links to was deleted, superseded or archived")
        result[proposal.pk] = "; ".join(dict.fromkeys(reasons))
    return result


def proposal_to_dict(proposal: Proposal, *, stale: str | None) -> dict:
    pending = proposal.status == ProposalStatus.PENDING
    return {
        "id": proposal.pk,
        "canvas_id": proposal.canvas_id,
        "status": proposal.status,
        "tool": proposal.tool,
        "summary": proposal.summary,
        "diff": proposal.diff,
        "op": proposal.op,
        "stale": bool(stale) if pending and stale is not None else False,
        "stale_reason": (stale or None) if pending else None,
        "requested_by": user_ref(proposal.requested_by),
        "conversation_id": proposal.conversation_id,
        "message_id": proposal.message_id,
        "agent_run_id": proposal.run.run_id if proposal.run_id and proposal.run else None,
        "decided_by": user_ref(proposal.decided_by),
        "decided_at": iso(proposal.decided_at),
        "forced": proposal.forced,
        "result_revision": proposal.result_revision,
        "error": proposal.error,
        "created_at": iso(proposal.created_at),
    }


# --- live ------------------------------------------------------------------------------------


def _broadcast_after_commit(proposal: Proposal, *, action: str) -> None:
    canvas_id, level = proposal.canvas_id, proposal.visibility_level
    payload = {"type": "agent.proposal", "action": action, "proposal": proposal_to_dict(proposal, stale="")}
    transaction.on_commit(lambda: broadcast_proposal(canvas_id=canvas_id, level=level, payload=payload))


def broadcast_proposal(*, canvas_id: int, level: int, payload: dict) -> None:
    """Best effort, like change broadcasts: the proposal list endpoint is the source of truth."""
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        async_to_sync(layer.group_send)(
            canvas_group(canvas_id), {"type": "agent.proposal", "level": level, "payload": payload}
        )
    except Exception:
        logger.warning("broadcast of proposal %s failed", payload["proposal"]["id"], exc_info=True)
