"""`manage.py soak`: the reliability suite (tests/reliability) at full counts, a table and a report.

    python manage.py soak                     # everything at full counts (about an hour on 2 cores)
    python manage.py soak --quick             # the CI counts (a few minutes)
    python manage.py soak --only fuzz,stack   # some parts
    python manage.py soak --seeds 50          # override a count
    scripts/soak.sh [same args]               # starts PostgreSQL + Redis first, stops them after

Each part runs in its own pytest process with the scale set through environment variables (the
RELIABILITY_* knobs of tests/reliability/conftest.py); the tests write their figures to a JSON-lines
file that this command collects. Then `check --deploy` on production settings and pip-audit.
Redis: TEST_REDIS_URL, else a private redis-server is started. Postgres: TEST_DATABASE_URL (the
real-stack, fault and flood parts need it; without it they are reported as skipped).

The report goes to var/reliability/soak-<time>.md (and .json): every figure with the command that
reproduces it. docs/reliability.md quotes the latest one.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

ROOT = Path(settings.BASE_DIR)


@dataclass
class Part:
    name: str
    title: str
    target: str  # pytest node ids (space separated)
    full: dict  # env at full scale
    quick: dict = field(default_factory=dict)


PARTS = [
    Part(
        "fuzz",
        "1. convergence fuzz (in-process)",
        "tests/reliability/test_convergence_fuzz.py",
        {"RELIABILITY_SEEDS": 200, "RELIABILITY_OPS": 200},
        {"RELIABILITY_SEEDS": 20, "RELIABILITY_OPS": 40},
    ),
    Part("regressions", "1b. sync regressions (directed)", "tests/reliability/test_sync_regressions.py", {}),
    Part(
        "stack",
        "2. real stack: 2 Daphne + Redis + Postgres",
        "tests/reliability/test_real_stack.py::test_real_stack_no_acked_op_lost_and_converges",
        {"RELIABILITY_STACK_CLIENTS": 20, "RELIABILITY_STACK_OPS": 500},
        {"RELIABILITY_STACK_CLIENTS": 6, "RELIABILITY_STACK_OPS": 60},
    ),
    Part(
        "faults",
        "3. faults: Redis restart, FLUSHALL, Daphne SIGKILL",
        "tests/reliability/test_real_stack.py::test_faults_redis_restart_flushall_daphne_kill",
        {"RELIABILITY_FAULT_CLIENTS": 20, "RELIABILITY_FAULT_OPS": 200},
        {"RELIABILITY_FAULT_CLIENTS": 6, "RELIABILITY_FAULT_OPS": 60},
    ),
    Part(
        "authz",
        "4. authorization matrix (REST, WebSocket, agent)",
        "tests/reliability/test_authz_matrix.py",
        {},
    ),
    Part("handshake", "5. WebSocket handshake", "tests/reliability/test_handshake.py", {}),
    Part(
        "limits",
        "6. limits: 1009, flood, slow consumer",
        "tests/reliability/test_limits.py",
        {"RELIABILITY_OVERSIZED_FRAMES": 500},
        {"RELIABILITY_OVERSIZED_FRAMES": 300},
    ),
    Part(
        "validator",
        "7a. hypothesis: op parser + consumer frames",
        "tests/reliability/test_validator_fuzz.py",
        {"RELIABILITY_EXAMPLES": 100_000, "RELIABILITY_FRAME_EXAMPLES": 10_000},
        {"RELIABILITY_EXAMPLES": 3000, "RELIABILITY_FRAME_EXAMPLES": 300},
    ),
    Part(
        "schemathesis",
        "7b. schemathesis against /api/schema/",
        "tests/reliability/test_api_schemathesis.py",
        {"RELIABILITY_SCHEMA_EXAMPLES": 100},
        {"RELIABILITY_SCHEMA_EXAMPLES": 5},
    ),
    Part(
        "backpressure", "9. forced channel-layer drops healed", "tests/reliability/test_backpressure.py", {}
    ),
    Part(
        "static", "8c. bandit (and check --deploy as a test)", "tests/reliability/test_static_security.py", {}
    ),
]
OVERRIDES = {
    "seeds": "RELIABILITY_SEEDS",
    "fuzz_ops": "RELIABILITY_OPS",
    "stack_clients": "RELIABILITY_STACK_CLIENTS",
    "stack_ops": "RELIABILITY_STACK_OPS",
    "examples": "RELIABILITY_EXAMPLES",
}
# The figures worth a column in the table, per test.
HEADLINES = {
    "convergence_fuzz": [
        "seeds",
        "ops_per_client",
        "failed_seeds",
        "acked_ops",
        "nodes_created",
        "gap_events",
        "catch_ups",
        "in_flight_messages_lost",
        "seconds",
    ],
    "real_stack": [
        "clients",
        "ops_per_client",
        "acked",
        "lost_acked_ops",
        "socket_kills",
        "converged_after_end_s",
    ],
    "faults": ["clients", "ops_per_client", "acked", "lost_acked_ops", "faults", "converged_after_end_s"],
    "authz_rest": ["cases", "must_refuse", "refused", "failures"],
    "authz_websocket": ["cases", "must_refuse", "refused", "handshake_refusals", "failures"],
    "authz_agent": ["cases", "refused", "allowed", "failures"],
    "handshake_in_process": ["attempts", "refused"],
    "handshake_daphne": ["attempts", "refused"],
    "oversized_frames": [
        "frames_64k_plus",
        "frames_1m_plus",
        "close_codes",
        "rss_before_mb",
        "rss_peak_mb",
        "rss_after_mb",
    ],
    "slow_consumer": ["cut_off_after_s", "rss_before_mb", "rss_peak_mb", "caught_up_with"],
    "flood": [
        "flood_frames",
        "rate_limited",
        "baseline_median_ms",
        "during_median_ms",
        "during_over_baseline",
    ],
    "validator_parse": ["examples", "accepted", "rejected_invalid", "crashes"],
    "validator_frames": ["examples", "bad_message", "reject", "ack", "internal_errors"],
    "schemathesis": ["examples_per_operation", "test_cases", "server_errors", "unexpected_failures"],
    "forced_drop_memory": ["capacity", "committed", "dropped", "gaps_detected", "healed"],
    "forced_drop_redis": ["capacity", "committed", "dropped", "gaps_detected", "healed"],
    "bandit": ["lines_scanned", "high", "medium", "low", "unexplained"],
}


class Command(BaseCommand):
    help = "Run tests/reliability at full counts (or --quick), print a table and write a report."

    def add_arguments(self, parser):
        parser.add_argument("--quick", action="store_true", help="CI counts instead of the full ones")
        parser.add_argument(
            "--only",
            default="",
            help=f"comma list of parts: {', '.join(p.name for p in PARTS)}, deploy, audit",
        )
        parser.add_argument(
            "--report", default="", help="report path (default var/reliability/soak-<time>.md)"
        )
        for option in OVERRIDES:
            parser.add_argument(f"--{option.replace('_', '-')}", type=int, dest=option)
        parser.add_argument("--timeout", type=int, default=4 * 3600, help="seconds per part (default 4 h)")

    def handle(self, *args, quick=False, only="", report="", timeout=4 * 3600, **options):
        wanted = {name.strip() for name in only.split(",") if name.strip()}
        known = {p.name for p in PARTS} | {"deploy", "audit"}
        if wanted - known:
            raise CommandError(f"unknown parts {sorted(wanted - known)}; choose from {sorted(known)}")
        stamp = time.strftime("%Y%m%d-%H%M%S")
        report_path = Path(report) if report else ROOT / "var" / "reliability" / f"soak-{stamp}.md"
        report_path.parent.mkdir(parents=True, exist_ok=True)
        base_env = {k: v for k, v in os.environ.items() if not k.startswith("RELIABILITY_")}
        base_env.pop("DJANGO_SETTINGS_MODULE", None)
        redis = None
        if not base_env.get("TEST_REDIS_URL"):
            from canvasweb.testing.servers import RedisServer

            try:
                redis = RedisServer.start()
                base_env["TEST_REDIS_URL"] = redis.url
                self.stdout.write(f"started redis-server for the soak at {redis.url}")
            except RuntimeError as exc:
                self.stdout.write(f"no Redis: {exc}")
        if not base_env.get("TEST_DATABASE_URL"):
            self.stdout.write(
                self.style.WARNING(
                    "TEST_DATABASE_URL is not set: the real-stack, fault and flood "
                    "parts will be skipped (scripts/soak.sh starts PostgreSQL and Redis for you)"
                )
            )
        rows: list[dict] = []
        started = time.monotonic()
        try:
            for part in PARTS:
                if wanted and part.name not in wanted:
                    continue
                rows.append(self.run_part(part, base_env, quick=quick, timeout=timeout, options=options))
            if not wanted or "deploy" in wanted:
                rows.append(self.deploy_check(base_env))
            if not wanted or "audit" in wanted:
                rows.append(self.pip_audit(base_env))
        finally:
            if redis is not None:
                redis.stop()
        total = time.monotonic() - started
        self.print_table(rows, total)
        self.write_report(report_path, rows, total, quick=quick)
        self.stdout.write(f"\nreport: {report_path}")
        if any(row["status"] == "FAILED" for row in rows):
            raise CommandError("some parts failed (see the table and the report)")

    # --- parts ------------------------------------------------------------------------------------

    def run_part(self, part: Part, base_env: dict, *, quick: bool, timeout: int, options: dict) -> dict:
        scale = {**part.full, **(part.quick if quick else {})}
        for option, variable in OVERRIDES.items():
            if options.get(option) is not None and variable in scale:
                scale[variable] = options[option]
        figures_file = Path(tempfile.mkstemp(prefix=f"soak-{part.name}-", suffix=".jsonl")[1])
        env = {**base_env, **{k: str(v) for k, v in scale.items()}, "RELIABILITY_FIGURES": str(figures_file)}
        command = [
            sys.executable,
            "-m",
            "pytest",
            *part.target.split(),
            "-q",
            "-p",
            "no:cacheprovider",
            "-m",
            "not e2e",
            "-rs",
        ]
        shown = " ".join(f"{k}={v}" for k, v in scale.items())
        reproduce = f"{shown + ' ' if shown else ''}.venv/bin/pytest {part.target} -q"
        self.stdout.write(f"--- {part.title}: {reproduce}")
        t0 = time.monotonic()
        try:
            result = subprocess.run(
                command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout
            )
            output, code = result.stdout + result.stderr, result.returncode
        except subprocess.TimeoutExpired as exc:
            # On a timeout the captured output is bytes even with text=True.
            partial = (
                exc.stdout.decode(errors="replace") if isinstance(exc.stdout, bytes) else exc.stdout or ""
            )
            output, code = f"timed out after {timeout} s\n{partial}", -1
        seconds = time.monotonic() - t0
        summary = _pytest_summary(output)
        figures = [json.loads(line) for line in figures_file.read_text().splitlines() if line.strip()]
        figures_file.unlink(missing_ok=True)
        if code == 0 and "passed" not in summary:
            status = "skipped"
        elif code == 0:
            status = "ok (some skipped)" if "skipped" in summary else "ok"
        else:
            status = "FAILED"
        row = {
            "part": part.name,
            "title": part.title,
            "status": status,
            "summary": summary,
            "seconds": round(seconds, 1),
            "reproduce": reproduce,
            "figures": figures,
        }
        if status == "FAILED":
            row["tail"] = output[-4000:]
        self.stdout.write(f"    {status}: {summary} ({seconds:.0f} s)")
        return row

    def deploy_check(self, base_env: dict) -> dict:
        env = {**base_env, "DJANGO_SECRET_KEY": secrets.token_urlsafe(64)}
        command = [
            sys.executable,
            "manage.py",
            "check",
            "--deploy",
            "--fail-level",
            "WARNING",
            "--settings=canvasweb.config.settings_production",
        ]
        t0 = time.monotonic()
        result = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
        output = (result.stdout + result.stderr).strip()
        issues = re.search(r"identified (\d+|no) issues?", output)
        count = 0 if not issues or issues.group(1) == "no" else int(issues.group(1))
        return {
            "part": "deploy",
            "title": "8a. check --deploy (production settings)",
            "status": "ok" if result.returncode == 0 else "FAILED",
            "summary": output.splitlines()[-1] if output else "",
            "seconds": round(time.monotonic() - t0, 1),
            "reproduce": "DJANGO_SECRET_KEY=<50+ random chars> .venv/bin/python manage.py check --deploy "
            "--fail-level WARNING --settings=canvasweb.config.settings_production",
            "figures": [{"test": "check_deploy", "issues": count}],
        }

    def pip_audit(self, base_env: dict) -> dict:
        binary = Path(sys.executable).parent / "pip-audit"
        reproduce = ".venv/bin/pip-audit -r scripts/constraints.txt --no-deps --disable-pip -f json"
        if not binary.exists():
            return {
                "part": "audit",
                "title": "8b. pip-audit",
                "status": "skipped",
                "summary": "pip-audit not installed",
                "seconds": 0,
                "reproduce": reproduce,
                "figures": [],
            }
        t0 = time.monotonic()
        out = Path(tempfile.mkstemp(suffix=".json")[1])
        result = subprocess.run(
            [
                str(binary),
                "-r",
                "scripts/constraints.txt",
                "--no-deps",
                "--disable-pip",
                "--progress-spinner",
                "off",
                "-f",
                "json",
                "-o",
                str(out),
            ],
            cwd=ROOT,
            env=base_env,
            capture_output=True,
            text=True,
            timeout=900,
        )
        try:
            data = json.loads(out.read_text())
        except ValueError:
            data = {"dependencies": []}
        out.unlink(missing_ok=True)
        deps = data.get("dependencies", [])
        skipped = [d for d in deps if d.get("skip_reason")]
        vulnerable = [d for d in deps if d.get("vulns")]
        audited = len(deps) - len(skipped)
        figures = {
            "test": "pip_audit",
            "pinned": len(deps),
            "audited": audited,
            "skipped": len(skipped),
            "vulnerable": [
                f"{d['name']} {d['version']}: {[v['id'] for v in d['vulns']]}" for d in vulnerable
            ],
        }
        if vulnerable:
            status = "FAILED"
        elif deps and audited == 0:
            status = "not audited"  # no vulnerability service reachable (an offline machine)
        else:
            status = "ok" if result.returncode == 0 else "FAILED"
        summary = (
            f"{len(vulnerable)} vulnerable of {audited} audited ({len(skipped)} could not be looked up)"
            if deps
            else (result.stderr.strip().splitlines() or ["no output"])[-1]
        )
        return {
            "part": "audit",
            "title": "8b. pip-audit (pinned dependencies)",
            "status": status,
            "summary": summary,
            "seconds": round(time.monotonic() - t0, 1),
            "reproduce": reproduce,
            "figures": [figures],
        }

    # --- output -----------------------------------------------------------------------------------

    def print_table(self, rows: list[dict], total: float) -> None:
        self.stdout.write("\n" + "=" * 100)
        self.stdout.write(f"{'part':<52} {'status':<18} {'time':>7}  result")
        self.stdout.write("-" * 100)
        for row in rows:
            self.stdout.write(
                f"{row['title'][:52]:<52} {row['status']:<18} {row['seconds']:>6.0f}s  {row['summary']}"
            )
            for figures in row["figures"]:
                keys = HEADLINES.get(figures.get("test"), [k for k in figures if k not in ("test", "at")][:6])
                text = ", ".join(f"{k}={_short(figures.get(k))}" for k in keys if k in figures)
                self.stdout.write(f"    {figures.get('test')}: {text}")
        self.stdout.write("-" * 100)
        self.stdout.write(f"total {total / 60:.1f} min")

    def write_report(self, path: Path, rows: list[dict], total: float, *, quick: bool) -> None:
        lines = [
            f"# Soak report {time.strftime('%Y-%m-%d %H:%M:%S')} ({'quick' if quick else 'full counts'})",
            "",
            f"Total {total / 60:.1f} min on {os.cpu_count()} CPUs. Reproduce a part with its command.",
            "",
            "| part | status | time | result | reproduce |",
            "| --- | --- | --- | --- | --- |",
        ]
        for row in rows:
            lines.append(
                f"| {row['title']} | {row['status']} | {row['seconds']:.0f} s | {row['summary']} | "
                f"`{row['reproduce']}` |"
            )
        lines += ["", "## Figures", ""]
        for row in rows:
            lines.append(f"### {row['title']}")
            lines.append("")
            for figures in row["figures"]:
                lines.append(
                    f"- `{figures.get('test')}`: "
                    + ", ".join(
                        f"{k}={_short(v, 400)}" for k, v in figures.items() if k not in ("test", "at")
                    )
                )
            if row.get("tail"):
                lines += ["", "```", row["tail"], "```"]
            lines.append("")
        path.write_text("\n".join(lines), encoding="utf-8")
        path.with_suffix(".json").write_text(
            json.dumps({"rows": rows, "total_seconds": total}, indent=2, default=str), encoding="utf-8"
        )


def _pytest_summary(output: str) -> str:
    for line in reversed(output.strip().splitlines()):
        if re.search(r"\d+ (passed|failed|skipped|error)", line):
            return line.strip("= ").strip()
    return (output.strip().splitlines() or ["no output"])[-1][:200]


def _short(value, limit: int = 80) -> str:
    text = json.dumps(value, default=str, ensure_ascii=False) if not isinstance(value, str) else value
    return text if len(text) <= limit else text[: limit - 1] + "…"
