"""`manage.py bench_live_turn`: context preview right after an edit vs. on an unchanged canvas.

    python manage.py bench_live_turn --nodes 2000,10000,100000 --repeat 30 --out var/bench/live-turn

Runs on a temporary SQLite file (the configured database is not touched), through the REST API.
"""

from __future__ import annotations

import sys
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from canvasweb.bench import live_turn_bench
from canvasweb.bench.common import machine_info, started_at, temporary_sqlite_database, text_table, write_json
from canvasweb.chat import executor


class Command(BaseCommand):
    help = "Time the context preview right after a node.move against an unchanged canvas, per canvas size."

    def add_arguments(self, parser):
        parser.add_argument("--nodes", default="2000,10000,100000", help="comma-separated canvas sizes")
        parser.add_argument("--repeat", type=int, default=30, help="timed previews per size and kind")
        parser.add_argument(
            "--reload-repeat",
            type=int,
            default=None,
            help="timed full reloads per size (default repeat / 5, at least 3)",
        )
        parser.add_argument("--seed", type=int, default=7)
        parser.add_argument("--out", default="", help="folder for report.json and report.md (optional)")

    def handle(self, *args, **opts):
        try:
            sizes = [int(v) for v in opts["nodes"].split(",") if v.strip()]
        except ValueError:
            raise CommandError(f"--nodes expects comma-separated integers, got {opts['nodes']!r}") from None
        if not sizes or any(n < 10 for n in sizes) or opts["repeat"] < 1:
            raise CommandError("--nodes sizes must be at least 10 and --repeat at least 1")
        started = started_at()
        rows = []
        with temporary_sqlite_database():
            for n in sizes:
                self.stderr.write(f"live turn: {n} nodes …")
                rows.append(
                    live_turn_bench.bench_size(
                        n=n, repeat=opts["repeat"], seed=opts["seed"], reload_repeat=opts["reload_repeat"]
                    )
                )
        report = {
            "format": live_turn_bench.REPORT_FORMAT,
            "benchmark": "live_turn",
            "started_at": started,
            "finished_at": started_at(),
            "command": " ".join(sys.argv),
            "machine": machine_info(),
            "repeat": opts["repeat"],
            "compile_mode": executor.mode(),
            "rows": rows,
            "targets": live_turn_bench.targets(rows),
        }
        self.stdout.write(text_table(live_turn_bench.HEADERS, live_turn_bench.table(rows)))
        for t in report["targets"]:
            self.stdout.write(
                f"target {t['nodes']} nodes: {t['target']}: {t['got']} {'met' if t['met'] else 'MISSED'}"
            )
        if opts["out"]:
            out = Path(opts["out"])
            write_json(out / "report.json", report)
            (out / "report.md").write_text(live_turn_bench.render_markdown(report), encoding="utf-8")
            self.stdout.write(f"wrote {out / 'report.json'}, {out / 'report.md'}")
