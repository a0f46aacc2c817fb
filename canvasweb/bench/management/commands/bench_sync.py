"""`manage.py bench_sync`: WebSocket fan-out latency and committed ops/s on two Daphne processes.

    python manage.py bench_sync --clients 10,50 --ops 20 [--window 8] \\
        --postgres-url postgres://postgres@127.0.0.1:5432/postgres --out var/bench/sync

Starts its own Redis and servers on 127.0.0.1 and stops them at the end. With
a Postgres server URL (--postgres-url, BENCH_DATABASE_URL or
TEST_DATABASE_URL) it creates a throwaway database there and drops it
afterwards; otherwise it uses a temporary SQLite file.
"""

from __future__ import annotations

import sys
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from canvasweb.bench import sync_bench
from canvasweb.bench.common import machine_info, started_at, text_table, write_json


class Command(BaseCommand):
    help = "Measure real-time fan-out latency and throughput with WebSocket clients on two server processes."

    def add_arguments(self, parser):
        parser.add_argument("--clients", default="10,50", help="comma-separated client counts (each >= 2)")
        parser.add_argument("--ops", type=int, default=20, help="ops per client in the saturated phase")
        parser.add_argument(
            "--rate",
            default="5,25",
            help="comma-separated total ops/s of all clients together, one paced phase each "
            "(default 5,25: fifty people each making an edit every 10 s / every 2 s)",
        )
        parser.add_argument(
            "--paced-seconds",
            type=float,
            default=20.0,
            help="length of each paced phase (ops per client = rate x seconds / clients, >= 1)",
        )
        parser.add_argument(
            "--phases",
            default="paced,saturated",
            help="comma-separated, in run order: paced, saturated, pipelined (pipelined needs --window > 1)",
        )
        parser.add_argument(
            "--window",
            type=int,
            default=1,
            help="unacked ops each client keeps in flight in the pipelined phase (app and relay alike); "
            "above 1, a pipelined phase runs after the others unless --phases names it (default 1: none)",
        )
        parser.add_argument(
            "--postgres-url",
            default=None,
            help="a Postgres server URL to create a throwaway database on "
            "(default: $BENCH_DATABASE_URL or $TEST_DATABASE_URL, else SQLite)",
        )
        parser.add_argument("--timeout", type=float, default=120.0, help="time limit per phase, seconds")
        parser.add_argument(
            "--ops-per-second-limit",
            type=int,
            default=1000,
            help="servers' per-connection op rate limit (product default 50)",
        )
        parser.add_argument(
            "--conn-max-age",
            type=int,
            default=None,
            help="set DATABASE_CONN_MAX_AGE on the servers (default: unset, i.e. the product "
            "default 60 s: connections reused; 0 opens one per request)",
        )
        parser.add_argument(
            "--warmup",
            type=int,
            default=3,
            help="unreported warm-up ops per client before the measured phases",
        )
        parser.add_argument("--out", default="", help="folder for report.json and report.md (optional)")
        parser.add_argument(
            "--floor",
            action="store_true",
            help="also run the same clients against a bare Channels relay (no auth, no database) "
            "and report the app's ops/s and fan-out as ratios of the relay's",
        )
        parser.add_argument(
            "--servers",
            type=int,
            default=2,
            help="Daphne processes for the app and for the relay alike; clients are spread over "
            "them in turn (default 2; 1 is the layout where a load balancer sends each canvas's "
            "sockets to one process)",
        )
        parser.add_argument("--no-progress", action="store_true")

    def handle(self, *args, **opts):
        try:
            clients = [int(v) for v in opts["clients"].split(",") if v.strip()]
        except ValueError:
            raise CommandError(
                f"--clients expects comma-separated integers, got {opts['clients']!r}"
            ) from None
        if not clients or any(n < 2 for n in clients):
            raise CommandError("--clients values must be at least 2 (fan-out needs a receiver)")
        phases = tuple(p.strip() for p in opts["phases"].split(",") if p.strip())
        if not phases or any(p not in ("paced", "saturated", "pipelined") for p in phases):
            raise CommandError("--phases takes paced, saturated and/or pipelined")
        window = opts["window"]
        if opts["servers"] < 1:
            raise CommandError("--servers must be at least 1")
        if window < 1:
            raise CommandError("--window must be at least 1")
        if "pipelined" in phases and window == 1:
            raise CommandError(
                "the pipelined phase needs --window above 1 (with 1 it is the saturated phase)"
            )
        if window > 1 and "pipelined" not in phases:
            phases += ("pipelined",)
        try:
            rates = [float(v) for v in opts["rate"].split(",") if v.strip()]
        except ValueError:
            raise CommandError(f"--rate expects comma-separated numbers, got {opts['rate']!r}") from None
        if (
            opts["ops"] < 1
            or not rates
            or any(r <= 0 for r in rates)
            or opts["timeout"] <= 0
            or opts["paced_seconds"] <= 0
        ):
            raise CommandError("--ops, --rate, --paced-seconds and --timeout must be positive")
        options = sync_bench.SyncOptions(
            clients=clients,
            ops=opts["ops"],
            rates=tuple(rates),
            paced_seconds=opts["paced_seconds"],
            postgres_url=opts["postgres_url"],
            timeout=opts["timeout"],
            phases=phases,
            ops_per_second_limit=opts["ops_per_second_limit"],
            conn_max_age=opts["conn_max_age"],
            progress=not opts["no_progress"],
            warmup=max(0, opts["warmup"]),
            floor=opts["floor"],
            window=window,
            servers=opts["servers"],
        )
        started = started_at()
        try:
            result = sync_bench.run_sync(options, log=lambda msg: self.stderr.write(msg))
        except RuntimeError as exc:
            raise CommandError(str(exc)) from None
        postgres = result["database"].startswith("PostgreSQL")
        report = {
            "format": sync_bench.REPORT_FORMAT,
            "benchmark": "sync",
            "started_at": started,
            "finished_at": started_at(),
            "command": " ".join(sys.argv),
            "machine": machine_info(),
            "clients": clients,
            "ops": opts["ops"],
            "rates": rates,
            "paced_seconds": opts["paced_seconds"],
            "phases": list(phases),
            "window": window,
            **result,
            "targets": sync_bench.targets(result["rows"], postgres=postgres, warmup=result["warmup"])
            + sync_bench.floor_targets(result["floor"]),
        }
        headers, rows = sync_bench.table(report["rows"])
        self.stdout.write(text_table(headers, rows))
        if report["floor"]:
            self.stdout.write("against the floor (bare Channels relay, same clients):")
            self.stdout.write(text_table(*sync_bench.floor_table(report["floor"])))
        for t in report["targets"]:
            self.stdout.write(
                f"target {t['name']}: {t['value']} (goal {t['target']}) {'met' if t['met'] else 'MISSED'}"
            )
        for note in report["notes"]:
            self.stdout.write(f"note: {note}")
        if opts["out"]:
            out = Path(opts["out"])
            write_json(out / "report.json", report)
            (out / "report.md").write_text(sync_bench.render_markdown(report) + "\n", encoding="utf-8")
            self.stdout.write(f"wrote {out / 'report.json'}, {out / 'report.md'}")
