"""drift_bench on two tiny scenarios of our own: the reports exist, hold the documented fields and sane values,
two runs give identical rows, and --model scores the scripted server's answers.

Timing goals are never asserted here (see docs/benchmarks.md for the real numbers).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from canvasweb.bench import drift

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).resolve().parent / "scenarios"
EN = FIXTURES / "en-orchard-irrigation.json"
ZH = FIXTURES / "zh-warehouse-stocktake.json"
PROBES = 8  # 5 + 3
ROW_FIELDS = {
    "strategy",
    "budget",
    "budget_applies",
    "probes",
    "recall",
    "stale_leak_rate",
    "stale_rate",
    "leak_rate",
    "unplaced_probes",
    "unplaced_recall",
    "unplaced_facts",
    "unplaced_fact_recall",
    "unplaced_stale_leak_rate",
    "tokens_mean",
    "tokens_p95",
    "tokens_share_of_full",
    "compile_ms_mean",
    "wall_ms_mean",
    "errors",
}
RESULT_FIELDS = {
    "probe_id",
    "scenario",
    "strategy",
    "budget",
    "tokens",
    "compile_ms",
    "wall_ms",
    "recall_hit",
    "missing",
    "forbid_found",
    "stale_found",
    "leak_found",
    "unplaced_missing",
    "unplaced_forbid_found",
    "prompt_sha256",
}
TIMING_FIELDS = {"compile_ms_mean", "wall_ms_mean"}
DEVNULL = open(os.devnull, "w")


def _run(out: Path, *args: str, stderr=None) -> dict:
    call_command(
        "drift_bench",
        "--scenarios",
        str(EN),
        str(ZH),
        "--out",
        str(out),
        "--in-current-db",
        "--no-progress",
        *args,
        stdout=DEVNULL,
        stderr=stderr or DEVNULL,
    )
    return json.loads((out / "report.json").read_text(encoding="utf-8"))


def _check_rows(rows: list[dict], *, probes: int | None = None) -> None:
    for row in rows:
        assert ROW_FIELDS <= row.keys()
        if probes is not None:
            assert row["probes"] == probes
        for key in ("recall", "stale_leak_rate", "stale_rate", "leak_rate"):
            assert 0.0 <= row[key] <= 1.0
        assert row["stale_leak_rate"] >= max(row["stale_rate"], row["leak_rate"])
        assert row["tokens_mean"] > 0 and row["compile_ms_mean"] >= 0 and row["errors"] == 0
        if row["budget_applies"]:
            assert row["tokens_p95"] <= row["budget"]  # every prompt fits its budget


def _stable(rows: list[dict]) -> list[dict]:
    return [{k: v for k, v in r.items() if k not in TIMING_FIELDS} for r in rows]


@pytest.mark.django_db
def test_reports_every_strategy_per_set_and_per_tag(tmp_path):
    out = tmp_path / "out"
    report = _run(out, "--budgets", "1000")
    assert report["format"] == drift.REPORT_FORMAT
    assert report["scenario_count"] == 2 and report["probe_count"] == PROBES
    assert [r["strategy"] for r in report["rows"]] == list(drift.STRATEGIES)
    assert "bm25-history" in drift.REFERENCE_STRATEGIES
    _check_rows(report["rows"], probes=PROBES)
    assert len(report["results"]) >= PROBES * len(drift.STRATEGIES)
    for result in report["results"]:
        assert RESULT_FIELDS <= result.keys()
    full = next(r for r in report["rows"] if r["strategy"] == "full")
    assert full["tokens_share_of_full"] == 1.0

    # Each --scenarios path is a set of its own; the sets add up to the total.
    assert [s["label"] for s in report["sets"]] == [str(EN), str(ZH)]
    assert [s["probes"] for s in report["sets"]] == [5, 3]
    for label, rows in report["rows_by_set"].items():
        _check_rows(rows, probes=5 if label == str(EN) else 3)
    # Per pattern: every tag of the fixtures, counted once per probe that carries it.
    assert report["tags"] == {
        "correction-by-supersede": 1,
        "correction-in-chat": 1,
        "far-unpinned": 2,
        "paraphrase": 3,
        "role-viewer": 2,
        "busy-canvas": 1,
    }
    for tag, rows in report["rows_by_tag"].items():
        _check_rows(rows, probes=report["tags"][tag])
        assert {r["strategy"] for r in rows} == set(drift.STRATEGIES)

    # The replay went through the write path: every scenario op applied, the secret one as the owner.
    en = next(s for s in report["scenarios"] if s["path"] == str(EN))
    assert en["op_errors"] == [] and en["ops_applied"] == 29 and en["ops_as_owner"] == 1
    assert en["capture"].get("suggested", 0) >= en["capture"].get("accepted", 0)
    # The viewer probe: the naive canvas (no role filtering) sends the secret password, the compiler must not.
    rows = {r["strategy"]: r for r in report["rows_by_tag"]["role-viewer"]}
    assert rows["canvas"]["leak_rate"] == 0.0 and rows["naive-canvas"]["leak_rate"] > 0.0
    assert any(p["unplaced_expected"] for p in report["probes"])
    assert report["model"] == {"requested": False}

    markdown = (out / "report.md").read_text(encoding="utf-8")
    assert markdown.startswith("# Drift benchmark")
    assert (
        "in-prompt recall" in markdown and "## Per pattern" in markdown and "## Per scenario set" in markdown
    )
    for name in ("recall_vs_budget.png", "tokens_per_strategy.png", "drift.png", "recall_per_pattern.png"):
        assert (out / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.django_db
def test_two_runs_give_identical_rows_and_prompts(tmp_path):
    first = _run(tmp_path / "a", "--budgets", "1000,2000", "--no-plots")
    second = _run(tmp_path / "b", "--budgets", "1000,2000", "--no-plots")
    assert _stable(first["rows"]) == _stable(second["rows"])
    for key in ("rows_by_tag", "rows_by_set"):
        assert {k: _stable(v) for k, v in first[key].items()} == {
            k: _stable(v) for k, v in second[key].items()
        }
    prompts = [
        [(r["probe_id"], r["strategy"], r["budget"], r["prompt_sha256"]) for r in rep["results"]]
        for rep in (first, second)
    ]
    assert prompts[0] == prompts[1]


def test_two_processes_with_different_hash_seeds_agree(tmp_path):
    """The command as a user runs it (own temporary SQLite database), twice, with different string hashing."""
    reports = []
    for seed in ("1", "2"):
        out = tmp_path / f"out{seed}"
        result = subprocess.run(
            [
                sys.executable,
                str(ROOT / "manage.py"),
                "drift_bench",
                "--scenarios",
                str(EN),
                str(ZH),
                "--budgets",
                "1000",
                "--strategies",
                "window,summary,canvas,canvas+capture,bm25-history",
                "--out",
                str(out),
                "--no-plots",
            ],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=600,
            env={**os.environ, "PYTHONHASHSEED": seed},
        )
        assert result.returncode == 0, result.stderr[-3000:]
        assert "drift [" in result.stderr  # the progress bar
        assert "per pattern (probe tags)" in result.stdout and "in-prompt recall" in result.stdout
        reports.append(json.loads((out / "report.json").read_text(encoding="utf-8")))
    assert reports[0]["database"].startswith("temporary SQLite file")
    assert _stable(reports[0]["rows"]) == _stable(reports[1]["rows"])
    assert [r["prompt_sha256"] for r in reports[0]["results"]] == [
        r["prompt_sha256"] for r in reports[1]["results"]
    ]


@pytest.mark.django_db
def test_model_answers_are_scored(tmp_path, scripted_llm):
    # The orchard port question gets a right answer, the stocktake count question one that names the retired
    # value too; every other prompt gets the scripted default reply (which holds no expected string).
    for _ in range(3):  # one per strategy (full, canvas, and the bm25-history reference that every run adds)
        scripted_llm.push(
            {
                "when": "Which port should the controller board connect to?",
                "content": "Connect to port 1885.",
            },
            {"when": "一共有多少把扫码设备可用？", "content": "之前是 14 台，现在是 16 台。"},
        )
    report = _run(
        tmp_path / "out", "--budgets", "1000", "--strategies", "full,canvas", "--model", "--no-plots"
    )
    assert report["model"]["configured"] is True and report["model"]["concurrency"] == 4
    assert [r["strategy"] for r in report["rows"]] == ["full", "canvas", "bm25-history"]
    _check_rows(report["rows"], probes=PROBES)
    for row in report["rows"]:
        assert row["model_answers"] == PROBES and row["model_errors"] == 0
        assert row["answer_accuracy"] == pytest.approx(1 / PROBES, abs=1e-4)
        assert row["answer_recall"] == pytest.approx(2 / PROBES, abs=1e-4)
        assert row["answer_stale_leak_rate"] == pytest.approx(1 / PROBES, abs=1e-4)
    port = next(r for r in report["results"] if r["probe_id"] == "test-en-orchard-irrigation#0")
    assert port["model"]["correct"] is True and port["model"]["answer"] == "Connect to port 1885."
    count = next(r for r in report["results"] if r["probe_id"] == "test-zh-warehouse-stocktake#0")
    assert count["model"]["correct"] is False and count["model"]["forbid_found"] == ["14 台"]
    # Every compiled prompt reached the model once.
    assert len(scripted_llm.requests) == 3 * PROBES
    assert "answer accuracy" in (tmp_path / "out" / "report.md").read_text(encoding="utf-8")


@pytest.mark.django_db
def test_model_timeout_is_an_error_not_a_hang(tmp_path, scripted_llm):
    scripted_llm.push({"when": "How often do we sample the soil?", "delay": 6.0, "content": "90 seconds"})
    report = _run(
        tmp_path / "out",
        "--budgets",
        "1000",
        "--strategies",
        "canvas",
        "--model",
        "--model-timeout",
        "1.5",
        "--no-plots",
    )
    assert [r["strategy"] for r in report["rows"]] == ["canvas", "bm25-history"]
    assert all(r["model_answers"] == PROBES for r in report["rows"])
    assert report["model"]["timeout_s"] == 1.5
    # The answer that would have taken 6 s (to whichever of the probe's two prompts came first) became an error;
    # an error never counts as correct, although the scripted reply would have been right.
    slow = [
        r["model"]
        for r in report["results"]
        if r["probe_id"] == "test-en-orchard-irrigation#2" and r["model"]["error"]
    ]
    assert slow and slow[0]["answer"] == "" and slow[0]["correct"] is False
    errors = [r["model"] for r in report["results"] if r["model"]["error"]]
    assert sum(r["model_errors"] for r in report["rows"]) == len(errors) >= 1
    assert not any(e["correct"] for e in errors)


@pytest.mark.django_db
def test_model_without_configuration_is_a_clear_error_before_the_run(tmp_path, settings):
    settings.LLM = {**settings.LLM, "BASE_URL": "", "API_KEY": ""}
    out = tmp_path / "out"
    with pytest.raises(CommandError, match=r"--model: No model is configured\. Set LLM_BASE_URL"):
        _run(out, "--budgets", "2000", "--strategies", "canvas", "--model", "--no-plots")
    assert not (out / "report.json").exists()


@pytest.mark.django_db
def test_model_options_are_checked(tmp_path, scripted_llm):
    with pytest.raises(CommandError, match="--model-concurrency must be at least 1"):
        _run(tmp_path / "out", "--model", "--model-concurrency", "0")
    with pytest.raises(CommandError, match="--model-timeout must be a positive number"):
        _run(tmp_path / "out", "--model", "--model-timeout", "0")
