from __future__ import annotations

from canvasweb.context.bench_core import bench_size, build_clustered_canvas, format_table


def test_synthetic_canvas_is_deterministic_and_mixed():
    a, edges = build_clustered_canvas(n=600, seed=1)
    b, _ = build_clustered_canvas(n=600, seed=1)
    assert a == b and len(a) == 600 and edges
    assert {n.sensitivity for n in a} == {"public", "internal", "secret"}
    assert any(n.superseded_by for n in a) and any(n.archived for n in a) and any(n.pinned for n in a)


def test_bench_smoke():
    row = bench_size(n=800, runs=3, budget=3000)
    for key in ("warm_p50_ms", "cold_p50_ms", "select_p50_ms", "naive_p50_ms", "index_build_ms"):
        assert row[key] >= 0
    assert "warm_p50_ms" in format_table([row])
