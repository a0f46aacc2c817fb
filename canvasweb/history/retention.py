"""Retention for rows that would otherwise grow forever: op receipts and security events.

`manage.py prune_history` runs it (cron it daily). Windows are settings (README, "Settings"):
CANVASWEB_OP_RECEIPT_RETENTION_DAYS (30) and CANVASWEB_SECURITY_EVENT_RETENTION_DAYS (90); 0 keeps
rows forever. The change log is append-only and hash-chained: it is never pruned.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from django.utils import timezone

from canvasweb.common.config import canvasweb_config

from .models import SecurityEvent


@dataclass(frozen=True)
class PruneResult:
    receipts: int
    security_events: int


def prune_history(*, dry_run: bool = False, now=None) -> PruneResult:
    from canvasweb.canvases import services  # receipts are canvas rows: only the services write them
    from canvasweb.canvases.models import OpReceipt

    now = now or timezone.now()
    config = canvasweb_config()
    receipt_days = int(config.get("OP_RECEIPT_RETENTION_DAYS", 0) or 0)
    event_days = int(config.get("SECURITY_EVENT_RETENTION_DAYS", 0) or 0)
    receipts = events = 0
    if receipt_days > 0:
        cutoff = now - timedelta(days=receipt_days)
        receipts = (
            OpReceipt.objects.filter(created_at__lt=cutoff).count()
            if dry_run
            else services.receipts_prune(before=cutoff)
        )
    if event_days > 0:
        old = SecurityEvent.objects.filter(created_at__lt=now - timedelta(days=event_days))
        events = old.count() if dry_run else old.delete()[0]
    return PruneResult(receipts=receipts, security_events=events)
