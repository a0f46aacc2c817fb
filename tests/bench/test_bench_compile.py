"""bench_compile on a tiny canvas: the report is written with the documented fields (no timing goals asserted)."""

from __future__ import annotations

import json

from django.core.management import call_command

from canvasweb.bench import compile_bench

FIELDS = {
    "nodes",
    "edges",
    "repeat",
    "budget",
    "index_build_ms",
    "compile_warm_p50_ms",
    "compile_warm_p95_ms",
    "compile_cold_p50_ms",
    "compile_cold_p95_ms",
    "select_p50_ms",
    "select_p95_ms",
    "naive_p50_ms",
    "naive_p95_ms",
    "speedup_warm_vs_naive",
    "speedup_cold_vs_naive",
    "included_nodes_mean",
}


def test_bench_compile_tiny(tmp_path):
    out = tmp_path / "out"
    call_command(
        "bench_compile",
        "--nodes",
        "200",
        "--repeat",
        "3",
        "--out",
        str(out),
        "--no-progress",
        stdout=open("/dev/null", "w"),
    )
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    assert report["format"] == compile_bench.REPORT_FORMAT
    assert "grid" in report["index"]
    (row,) = report["rows"]
    assert FIELDS <= row.keys()
    assert row["nodes"] == 200 and row["repeat"] == 3
    for key in ("compile_warm_p50_ms", "compile_cold_p50_ms", "select_p50_ms", "naive_p50_ms"):
        assert row[key] > 0
    assert row["compile_warm_p95_ms"] >= row["compile_warm_p50_ms"]
    assert row["included_nodes_mean"] > 0
    assert report["targets"] == []  # no 10k/100k size in this run
    assert (out / "report.md").read_text(encoding="utf-8").startswith("# Compile speed")
