"""`manage.py bench_compile`: context compile time on synthetic canvases, against the naive linear scan.

python manage.py bench_compile --nodes 1000,10000,100000 --repeat 50 --out var/bench/compile
"""

from __future__ import annotations

import sys
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from canvasweb.bench import compile_bench
from canvasweb.bench.common import Progress, machine_info, started_at, text_table, write_json


class Command(BaseCommand):
    help = "Time the context compiler on synthetic canvases of several sizes against a linear scan."

    def add_arguments(self, parser):
        parser.add_argument("--nodes", default="1000,10000,100000", help="comma-separated canvas sizes")
        parser.add_argument("--repeat", type=int, default=50, help="timed runs per size and kind")
        parser.add_argument("--budget", type=int, default=8000, help="prompt budget in tokens")
        parser.add_argument("--seed", type=int, default=7)
        parser.add_argument("--out", default="", help="folder for report.json and report.md (optional)")
        parser.add_argument("--no-progress", action="store_true")

    def handle(self, *args, **opts):
        try:
            sizes = [int(v) for v in opts["nodes"].split(",") if v.strip()]
        except ValueError:
            raise CommandError(f"--nodes expects comma-separated integers, got {opts['nodes']!r}") from None
        if not sizes or any(n < 10 for n in sizes):
            raise CommandError("--nodes sizes must be at least 10")
        if opts["repeat"] < 1:
            raise CommandError("--repeat must be at least 1")
        started = started_at()
        progress = Progress(2 * opts["repeat"] * len(sizes), label="compile", enabled=not opts["no_progress"])
        rows = []
        for n in sizes:
            rows.append(
                compile_bench.bench_size(
                    n=n, repeat=opts["repeat"], budget=opts["budget"], seed=opts["seed"], progress=progress
                )
            )
        progress.close()
        report = {
            "format": compile_bench.REPORT_FORMAT,
            "benchmark": "compile",
            "started_at": started,
            "finished_at": started_at(),
            "command": " ".join(sys.argv),
            "machine": machine_info(),
            "repeat": opts["repeat"],
            "budget": opts["budget"],
            "seed": opts["seed"],
            "index": compile_bench.INDEX_DESCRIPTION,
            "rows": rows,
            "targets": compile_bench.targets(rows),
        }
        headers, table_rows = compile_bench.table(rows)
        self.stdout.write(text_table(headers, table_rows))
        for t in report["targets"]:
            self.stdout.write(
                f"target {t['name']}: {t['value']} (goal {t['target']}) {'met' if t['met'] else 'MISSED'}"
            )
        if opts["out"]:
            out = Path(opts["out"])
            write_json(out / "report.json", report)
            (out / "report.md").write_text(compile_bench.render_markdown(report) + "\n", encoding="utf-8")
            self.stdout.write(f"wrote {out / 'report.json'}, {out / 'report.md'}")
