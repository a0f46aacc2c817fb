"""drift_bench on two small inputs: the reports exist, hold the documented fields and sane values.

Timing goals are never asserted here (see docs/benchmarks.md for the real numbers).
"""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import call_command

from canvasweb.bench import drift

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = ROOT / "bench" / "scenarios"
PICKED = ("en-hiring-backend-loop.json", "zh-ecommerce-double11-mixed.json")
ROW_FIELDS = {
    "strategy", "budget", "budget_applies", "probes", "recall", "stale_leak_rate", "stale_rate", "leak_rate",
    "unplaced_probes", "unplaced_recall", "unplaced_facts", "unplaced_fact_recall", "unplaced_stale_leak_rate",
    "tokens_mean", "tokens_p95", "tokens_share_of_full", "compile_ms_mean", "wall_ms_mean", "errors",
}
RESULT_FIELDS = {"probe_id", "scenario", "strategy", "budget", "tokens", "compile_ms", "wall_ms", "recall_hit",
                 "missing", "forbid_found", "stale_found", "leak_found", "unplaced_missing", "unplaced_forbid_found"}


@pytest.fixture
def two_scenarios(tmp_path):
    folder = tmp_path / "scenarios"
    folder.mkdir()
    for name in PICKED:
        shutil.copy(SCENARIOS / name, folder / name)
    return folder


def _check_report(out: Path, *, strategies: set[str], budgets: list[int], probes: int) -> dict:
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    assert report["format"] == drift.REPORT_FORMAT
    assert report["scenario_count"] == 2 and report["probe_count"] == probes
    assert {r["strategy"] for r in report["rows"]} == strategies
    assert {r["budget"] for r in report["rows"]} == set(budgets)
    for row in report["rows"]:
        assert ROW_FIELDS <= row.keys()
        assert row["probes"] == probes
        for key in ("recall", "stale_leak_rate", "stale_rate", "leak_rate"):
            assert 0.0 <= row[key] <= 1.0
        assert row["tokens_mean"] > 0 and row["tokens_p95"] >= row["tokens_mean"] * 0.5
        assert row["compile_ms_mean"] >= 0 and row["errors"] == 0
        if row["budget_applies"]:
            assert row["tokens_p95"] <= row["budget"]  # every prompt fits its budget
    assert len(report["results"]) >= probes * len(strategies)
    for result in report["results"]:
        assert RESULT_FIELDS <= result.keys()
    full = next(r for r in report["rows"] if r["strategy"] == "full")
    assert full["recall"] == 1.0 and full["tokens_share_of_full"] == 1.0
    assert (out / "report.md").read_text(encoding="utf-8").startswith("# Drift benchmark")
    return report


@pytest.mark.django_db
def test_drift_bench_in_current_db_writes_reports(two_scenarios, tmp_path):
    out = tmp_path / "out"
    call_command("drift_bench", "--scenarios", str(two_scenarios), "--budgets", "1000", "--out", str(out),
                 "--in-current-db", "--no-progress", stdout=open("/dev/null", "w"))
    report = _check_report(out, strategies=set(drift.STRATEGIES), budgets=[1000], probes=7)
    for name in ("recall_vs_budget.png", "tokens_per_strategy.png", "drift.png"):
        assert (out / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # The replay went through the write path: every scenario op applied, secret ones as the owner.
    for scenario in report["scenarios"]:
        assert scenario["op_errors"] == [] and scenario["ops_applied"] > 0
        assert scenario["capture"].get("suggested", 0) >= scenario["capture"].get("accepted", 0)
    assert any(s["ops_as_owner"] > 0 for s in report["scenarios"])
    # Viewer probes exist in both scenarios: the naive canvas (no role filtering) leaks, the compiler must not.
    rows = {r["strategy"]: r for r in report["rows"]}
    assert rows["canvas"]["leak_rate"] == 0.0
    assert any(p["unplaced_expected"] for p in report["probes"])
    assert report["model"] == {"requested": False}


@pytest.mark.django_db
def test_drift_bench_model_answers_are_scored(two_scenarios, tmp_path, scripted_llm):
    out = tmp_path / "out"
    call_command("drift_bench", "--scenarios", str(two_scenarios), "--budgets", "1000",
                 "--strategies", "full,canvas", "--model", "--out", str(out), "--in-current-db", "--no-progress",
                 "--no-plots", stdout=open("/dev/null", "w"))
    report = _check_report(out, strategies={"full", "canvas"}, budgets=[1000], probes=7)
    assert report["model"]["configured"] is True
    for row in report["rows"]:
        assert row["model_answers"] == 7 and 0.0 <= row["model_recall"] <= 1.0
    # Every compiled prompt reached the model once.
    assert len(scripted_llm.requests) == 14


@pytest.mark.django_db
def test_drift_bench_model_without_configuration_is_skipped(two_scenarios, tmp_path, settings):
    settings.LLM = {**settings.LLM, "BASE_URL": "", "API_KEY": ""}
    out = tmp_path / "out"
    err = tmp_path / "err.txt"
    with err.open("w") as stderr:
        call_command("drift_bench", "--scenarios", str(two_scenarios / PICKED[0]), "--budgets", "2000",
                     "--strategies", "canvas", "--model", "--out", str(out), "--in-current-db", "--no-progress",
                     "--no-plots", stdout=open("/dev/null", "w"), stderr=stderr)
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    assert report["model"]["configured"] is False and "LLM_BASE_URL" in report["model"]["skipped"]
    assert "--model skipped" in err.read_text()


def test_drift_bench_default_uses_a_temporary_database(two_scenarios, tmp_path):
    """The command as a user runs it: a fresh process, its own throwaway SQLite database."""
    out = tmp_path / "out"
    result = subprocess.run(
        [sys.executable, str(ROOT / "manage.py"), "drift_bench", "--scenarios", str(two_scenarios / PICKED[1]),
         "--budgets", "2000", "--strategies", "window,canvas", "--out", str(out), "--no-plots"],
        cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    assert report["database"].startswith("temporary SQLite file")
    assert {r["strategy"] for r in report["rows"]} == {"window", "canvas"}
    assert "drift [" in result.stderr  # the progress bar
