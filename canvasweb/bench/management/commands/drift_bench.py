"""`manage.py drift_bench`: how well each context strategy keeps early facts, at equal token budgets.

    python manage.py drift_bench --scenarios bench/scenarios /work/shared/drift/samples \\
        --budgets 1000,2000,4000 --out var/bench/drift

See docs/benchmarks.md for what is measured and the report schema.
"""

from __future__ import annotations

import sys
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from canvasweb.bench import drift
from canvasweb.bench.common import started_at, temporary_sqlite_database, text_table, write_json
from canvasweb.bench.scenarios import ScenarioError, load_scenarios


def _int_list(raw: str) -> list[int]:
    try:
        values = [int(v) for v in raw.split(",") if v.strip()]
    except ValueError:
        raise CommandError(f"expected comma-separated integers, got {raw!r}") from None
    if not values or any(v <= 0 for v in values):
        raise CommandError(f"expected positive integers, got {raw!r}")
    return sorted(set(values))


class Command(BaseCommand):
    help = (
        "Replay drift scenarios through the real services and score each context strategy per token budget."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--scenarios",
            nargs="+",
            required=True,
            metavar="DIR",
            help="folders of *.json drift scenarios (or files); several may be given",
        )
        parser.add_argument("--budgets", default="1000,2000,4000", help="comma-separated token budgets")
        parser.add_argument(
            "--strategies",
            default=",".join(drift.STRATEGIES),
            help=f"comma-separated, from: {', '.join(drift.STRATEGIES)} "
            "(bm25-history, the reference, is always added)",
        )
        parser.add_argument(
            "--model",
            action="store_true",
            help="also send every compiled prompt to the configured model and score its answers",
        )
        parser.add_argument(
            "--model-concurrency", type=int, default=4, help="answers requested at the same time (default 4)"
        )
        parser.add_argument(
            "--model-timeout",
            type=float,
            default=None,
            help="seconds per answer (default: the product's LLM_TIMEOUT_SECONDS)",
        )
        parser.add_argument("--out", required=True, help="folder for report.json, report.md and the plots")
        parser.add_argument(
            "--in-current-db",
            action="store_true",
            help="use the configured database (each scenario still runs in a transaction that "
            "is rolled back) instead of a temporary SQLite file",
        )
        parser.add_argument(
            "--dump-prompts",
            action="store_true",
            help="also write every compiled prompt to OUT/prompts/ (for debugging)",
        )
        parser.add_argument("--no-plots", action="store_true")
        parser.add_argument("--no-progress", action="store_true")

    def handle(self, *args, **opts):
        strategies = [s.strip() for s in opts["strategies"].split(",") if s.strip()]
        unknown = [s for s in strategies if s not in drift.STRATEGIES]
        if unknown or not strategies:
            raise CommandError(
                f"unknown strategy {unknown[0] if unknown else '(none)'}; "
                f"choose from {', '.join(drift.STRATEGIES)}"
            )
        budgets = _int_list(opts["budgets"])
        if opts["model_concurrency"] < 1:
            raise CommandError("--model-concurrency must be at least 1")
        if opts["model_timeout"] is not None and opts["model_timeout"] <= 0:
            raise CommandError("--model-timeout must be a positive number of seconds")
        if opts["model"]:
            from canvasweb.chat.llm import ModelConfig, ModelNotConfigured

            if not ModelConfig.from_settings().configured:
                # Fail before the replay: a real-model run without a model would only score prompts.
                raise CommandError(f"--model: {ModelNotConfigured.message}")
        try:
            scenarios = load_scenarios(opts["scenarios"])
        except ScenarioError as exc:
            raise CommandError(str(exc)) from None
        out = Path(opts["out"])
        out.mkdir(parents=True, exist_ok=True)
        options = drift.DriftOptions(
            budgets=budgets,
            strategies=strategies,
            model=opts["model"],
            progress=not opts["no_progress"],
            dump_prompts=(out / "prompts") if opts["dump_prompts"] else None,
            model_concurrency=opts["model_concurrency"],
            model_timeout=opts["model_timeout"],
        )
        started = started_at()
        self.stderr.write(
            f"drift_bench: {len(scenarios)} scenarios, "
            f"{sum(len(s.probes) for s in scenarios)} probes, budgets {budgets}, "
            f"strategies {', '.join(strategies)}"
        )
        if opts["in_current_db"]:
            database = "configured database, each scenario in a transaction rolled back at the end"
            run = drift.run_drift(scenarios, options)
        else:
            with temporary_sqlite_database():
                database = (
                    "temporary SQLite file (migrated at start, deleted at the end); each scenario in a "
                    "transaction rolled back at the end"
                )
                run = drift.run_drift(scenarios, options)
        if opts["model"]:
            drift.ask_model(run, stderr=sys.stderr)
        report = drift.build_report(run, argv=sys.argv, database=database, started=started)
        write_json(out / "report.json", report)
        (out / "report.md").write_text(drift.render_markdown(report) + "\n", encoding="utf-8")
        plots = [] if opts["no_plots"] else drift.write_plots(report, out)
        headers, rows = drift.table_rows(report["rows"])
        self.stdout.write(text_table(headers, rows))
        strategies = drift.report_strategies(report)
        answer = " / answer accuracy" if report["model"].get("configured") else ""
        if len(report["sets"]) > 1:
            groups = {s["label"]: report["rows_by_set"][s["label"]] for s in report["sets"]}
            groups[drift.TOTAL] = report["rows"]
            counts = {s["label"]: s["probes"] for s in report["sets"]} | {drift.TOTAL: report["probe_count"]}
            self.stdout.write("\nper scenario set: in-prompt recall / stale+leak" + answer)
            self.stdout.write(
                text_table(*drift.pivot_rows(groups, counts=counts, strategies=strategies, budgets=budgets))
            )
        self.stdout.write("\nper pattern (probe tags): in-prompt recall / stale+leak" + answer)
        self.stdout.write(
            text_table(
                *drift.pivot_rows(
                    report["rows_by_tag"], counts=report["tags"], strategies=strategies, budgets=budgets
                )
            )
        )
        self.stdout.write(f"replay + compile: {report['replay_seconds']} s")
        for t in report["targets"]:
            self.stdout.write(
                f"target {t['name']}: {t['value']} (goal {t['target']}) {'met' if t['met'] else 'MISSED'}"
            )
        self.stdout.write(
            f"wrote {out / 'report.json'}, {out / 'report.md'}" + "".join(f", {p}" for p in plots)
        )
