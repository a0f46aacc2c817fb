"""manage.py prune_history [--dry-run]: delete op receipts and security events past their retention."""

from __future__ import annotations

from django.core.management.base import BaseCommand

from canvasweb.history.retention import prune_history


class Command(BaseCommand):
    help = (
        "Delete op receipts older than CANVASWEB_OP_RECEIPT_RETENTION_DAYS and security events older than "
        "CANVASWEB_SECURITY_EVENT_RETENTION_DAYS (the change log is never pruned)."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--dry-run", action="store_true", help="count what would be deleted, delete nothing"
        )

    def handle(self, *args, dry_run: bool = False, **options):
        result = prune_history(dry_run=dry_run)
        verb = "would delete" if dry_run else "deleted"
        self.stdout.write(
            f"{verb} {result.receipts} op receipts and {result.security_events} security events"
        )
