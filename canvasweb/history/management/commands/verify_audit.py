"""`manage.py verify_audit [--canvas ID]`: check the change log's hash chain.

For each canvas (or the one given), recompute every entry's hash from its
content and the previous entry's hash, in revision/seq order, and report the
first entry that does not match (canvas, revision, seq, expected vs stored
hash), a gap in the revisions, or a log that ends before the canvas's revision.
Exit status 1 if any canvas fails.
"""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from canvasweb.canvases.models import Canvas
from canvasweb.history.audit import verify_chain


class Command(BaseCommand):
    help = (
        "Verify the per-canvas hash chain of the change log; report the first bad entry (exit 1 on failure)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--canvas", type=int, dest="canvas_id", help="only this canvas id")

    def handle(self, *args, canvas_id=None, **options):
        if canvas_id is not None:
            if not Canvas.objects.filter(pk=canvas_id).exists():
                raise CommandError(f"no canvas with id {canvas_id}")
            ids = [canvas_id]
        else:
            ids = list(Canvas.objects.order_by("pk").values_list("pk", flat=True))
        failed = 0
        total = 0
        for cid in ids:
            report = verify_chain(canvas_id=cid)
            total += report.entries
            if report.ok:
                self.stdout.write(f"canvas {cid}: OK ({report.entries} entries)")
            else:
                failed += 1
                self.stdout.write(self.style.ERROR(f"canvas {cid}: FAILED after {report.entries} entries"))
                if report.problem is not None:
                    self.stdout.write(f"first bad entry: {report.problem.describe()}")
        summary = f"{len(ids) - failed} of {len(ids)} canvas(es) verified, {total} entries checked"
        if failed:
            raise CommandError(f"{summary}; {failed} failed", returncode=1)
        self.stdout.write(self.style.SUCCESS(summary))
