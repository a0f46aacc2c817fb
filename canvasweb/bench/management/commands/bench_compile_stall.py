"""`manage.py bench_compile_stall`: ack latency on one canvas while a long compile runs on another.

    python manage.py bench_compile_stall --seconds 30 --compile-seconds 30 --out var/bench/compile-stall

Phases: baseline, during (the configured COMPILE_MODE, default worker processes), during_thread (the
thread pool) and during_on_db_thread (before issue 13); `--phases` runs a subset.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from django.core.management.base import BaseCommand

from canvasweb.bench import compile_stall_bench
from canvasweb.bench.common import machine_info, started_at, temporary_sqlite_database, text_table, write_json


class Command(BaseCommand):
    help = "Measure a client's op ack latency on one canvas while a long chat compile runs on another."

    def add_arguments(self, parser):
        parser.add_argument("--seconds", type=float, default=30.0, help="length of each phase")
        parser.add_argument(
            "--compile-seconds", type=float, default=30.0, help="CPU time of the long compile"
        )
        parser.add_argument(
            "--phases",
            default="",
            help="comma-separated subset of baseline,during,during_thread,during_on_db_thread",
        )
        parser.add_argument("--out", default="", help="folder for report.json and report.md (optional)")

    def handle(self, *args, **opts):
        started = started_at()
        with temporary_sqlite_database():
            phases = tuple(p.strip() for p in opts["phases"].split(",") if p.strip()) or None
            rows = compile_stall_bench.run(
                seconds=opts["seconds"], compile_seconds=opts["compile_seconds"], phases=phases
            )
        headers = ["phase", "ops", "ack p50 ms", "ack p90 ms", "ack max ms", "p50 / baseline"]
        table = [
            [name, r["ops"], r["ack_p50_ms"], r["ack_p90_ms"], r["ack_max_ms"], r.get("p50_over_baseline")]
            for name, r in rows.items()
        ]
        self.stdout.write(text_table(headers, table))
        ratio = rows.get("during", {}).get("p50_over_baseline")
        met = ratio is not None and ratio <= 1.1
        self.stdout.write(
            f"target ack p50 during a long compile <= 1.1x baseline: {ratio}x {'met' if met else 'MISSED'}"
        )
        if opts["out"]:
            out = Path(opts["out"])
            report = {
                "format": "compile-stall-report/1",
                "started_at": started,
                "finished_at": started_at(),
                "command": " ".join(sys.argv),
                "machine": machine_info(),
                "seconds": opts["seconds"],
                "compile_seconds": opts["compile_seconds"],
                "rows": rows,
                "target_met": met,
            }
            write_json(out / "report.json", report)
            (out / "report.md").write_text(json.dumps(rows, indent=2) + "\n", encoding="utf-8")
            self.stdout.write(f"wrote {out / 'report.json'}")
