"""`manage.py replay_audit --canvas ID`: rebuild a canvas from its change log and compare.

Folds every entry's before/after versions into an in-memory canvas (nodes,
edges, members, canvas settings) without reading the canvas rows, then compares
the result with the database field by field. Prints every difference; exit
status 1 if there is any.
"""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from canvasweb.canvases.models import Canvas
from canvasweb.history.audit import replay_canvas


class Command(BaseCommand):
    help = "Rebuild a canvas from the change log alone and compare it with the database (exit 1 on mismatch)."

    def add_arguments(self, parser):
        parser.add_argument("--canvas", type=int, dest="canvas_id", required=True, help="canvas id")

    def handle(self, *args, canvas_id=None, **options):
        if not Canvas.objects.filter(pk=canvas_id).exists():
            raise CommandError(f"no canvas with id {canvas_id}")
        report = replay_canvas(canvas_id=canvas_id)
        if report.ok:
            self.stdout.write(
                self.style.SUCCESS(
                    f"canvas {canvas_id}: replay of {report.entries} entries matches the database "
                    f"({report.nodes} nodes, {report.edges} edges)"
                )
            )
            return
        self.stdout.write(
            self.style.ERROR(
                f"canvas {canvas_id}: replay of {report.entries} entries differs from the database "
                f"in {len(report.differences)} place(s):"
            )
        )
        for line in report.differences:
            self.stdout.write(f"  {line}")
        raise CommandError(f"canvas {canvas_id}: the log does not reproduce the database", returncode=1)
