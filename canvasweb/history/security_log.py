"""Writing the refusal log (SecurityEvent) without letting a flood write a row per refusal.

A socket may have up to 50 ops/s refused; identical refusals (same user, canvas, channel, op type and
code) within CANVASWEB["SECURITY_EVENT_COALESCE_SECONDS"] go into the first row: `repeats` counts them,
`last_at` is the latest, `reason`/`detail` stay those of the first. 0 disables coalescing.
"""

from __future__ import annotations

from datetime import timedelta

from django.db.models import F
from django.utils import timezone

from canvasweb.common.config import canvasweb_config

from .models import SecurityEvent


def record_security_event(
    *,
    user,
    canvas_id_ref: int | None,
    actor_kind: str,
    channel: str,
    op_type: str,
    code: str,
    reason: str,
    detail: dict | None = None,
    conversation_id: int | None = None,
) -> None:
    window = int(canvasweb_config().get("SECURITY_EVENT_COALESCE_SECONDS", 0) or 0)
    now = timezone.now()
    if window > 0:
        updated = (
            SecurityEvent.objects.filter(
                user=user,
                canvas_id_ref=canvas_id_ref,
                actor_kind=actor_kind,
                channel=channel,
                op_type=op_type,
                code=code,
                created_at__gte=now - timedelta(seconds=window),
            )
            .order_by("-created_at")[:1]
            .values_list("pk", flat=True)
        )
        pk = next(iter(updated), None)
        if pk is not None:
            SecurityEvent.objects.filter(pk=pk).update(repeats=F("repeats") + 1, last_at=now)
            return
    SecurityEvent.objects.create(
        canvas_id_ref=canvas_id_ref,
        user=user,
        actor_kind=actor_kind,
        channel=channel,
        op_type=op_type,
        code=code,
        reason=reason,
        detail=detail,
        conversation_id=conversation_id,
        last_at=now,
    )
