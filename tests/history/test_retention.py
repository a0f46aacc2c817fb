"""Rows that used to grow forever: op receipts and security events have a retention, refusals coalesce."""

from __future__ import annotations

from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.db.models import Sum
from django.utils import timezone

from canvasweb.canvases.models import OpReceipt
from canvasweb.common.errors import CanvasError
from canvasweb.history.models import SecurityEvent
from canvasweb.history.retention import prune_history
from tests.conftest import node_op

pytestmark = pytest.mark.django_db


def test_a_flood_of_identical_refusals_shares_one_row(canvas, apply, vic, settings):
    settings.CANVASWEB = {**settings.CANVASWEB, "SECURITY_EVENT_COALESCE_SECONDS": 60}
    for _ in range(40):
        with pytest.raises(CanvasError):
            apply(vic, node_op("观众不能写"))
    events = SecurityEvent.objects.filter(user=vic)
    assert events.count() == 1
    assert events.aggregate(total=Sum("repeats"))["total"] == 40
    # Another kind of refusal is its own row.
    with pytest.raises(CanvasError):
        apply(vic, {"type": "node.delete", "id": "00000000-0000-4000-8000-000000000001"})
    assert SecurityEvent.objects.filter(user=vic).count() == 2


def test_prune_history_respects_each_window_and_dry_run_deletes_nothing(canvas, apply, alice, bob, settings):
    settings.CANVASWEB = {
        **settings.CANVASWEB,
        "OP_RECEIPT_RETENTION_DAYS": 30,
        "SECURITY_EVENT_RETENTION_DAYS": 90,
    }
    apply(bob, node_op("旧的"), client_op_id="old-op")
    apply(bob, node_op("新的"), client_op_id="new-op")
    SecurityEvent.objects.create(user=bob, channel="rest", code="FORBIDDEN", reason="old")
    SecurityEvent.objects.create(user=bob, channel="rest", code="FORBIDDEN", reason="recent")
    later = timezone.now() + timedelta(days=31)
    # Age the old rows by moving "now" instead of rewriting created_at behind the write path.
    dry = prune_history(dry_run=True, now=later)
    assert (dry.receipts, dry.security_events) == (2, 0)
    assert OpReceipt.objects.count() == 2
    result = prune_history(now=timezone.now() + timedelta(days=91))
    assert (result.receipts, result.security_events) == (2, 2)
    assert OpReceipt.objects.count() == 0 and SecurityEvent.objects.count() == 0
    out = StringIO()
    call_command("prune_history", "--dry-run", stdout=out)
    assert "would delete 0 op receipts and 0 security events" in out.getvalue()


def test_retention_zero_keeps_everything(canvas, apply, bob, settings):
    settings.CANVASWEB = {
        **settings.CANVASWEB,
        "OP_RECEIPT_RETENTION_DAYS": 0,
        "SECURITY_EVENT_RETENTION_DAYS": 0,
    }
    apply(bob, node_op("留着"), client_op_id="keep")
    assert prune_history(now=timezone.now() + timedelta(days=3650)).receipts == 0
    assert OpReceipt.objects.count() == 1
