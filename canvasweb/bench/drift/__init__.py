"""Drift benchmark: replay scenarios through the real services and score what each strategy would send.

    replay.py      one scenario on a fresh canvas through the write path (fixed clock, seeded ids)
    strategies.py  the reference strategies: naive canvas, BM25 over the history
    run.py         replay once per scenario and compile every strategy x budget at each probe
    scoring.py     what reached the model, and why a canvas strategy missed
    model.py       --model: the configured model answers each compiled prompt
    report.py      rows per strategy x budget, per scenario set and per probe tag; JSON and Markdown
    plot.py        the PNG plots (matplotlib only here)

See docs/benchmarks.md for the method and the report schema.
"""

from __future__ import annotations

from .model import ask_model
from .plot import write_pattern_plot, write_plots
from .replay import CanvasReplay, ReplayClock, bench_users, node_kind_for, turn_times
from .report import (
    REPORT_FORMAT,
    TOTAL,
    aggregate,
    build_report,
    pivot_rows,
    render_markdown,
    report_strategies,
    table_rows,
    targets,
)
from .run import FULL_BUDGET, DriftOptions, DriftRun, run_drift
from .scoring import ProbeMeta, classify_probe, score, score_answer
from .strategies import (
    COMPILER_STRATEGIES,
    PRODUCT_STRATEGIES,
    REFERENCE_STRATEGIES,
    STRATEGIES,
    HistoryIndex,
    bm25_history_compile,
    bm25_terms,
    naive_canvas_compile,
)

DEFAULT_BUDGETS = (1000, 2000, 4000)

__all__ = [
    "COMPILER_STRATEGIES",
    "DEFAULT_BUDGETS",
    "FULL_BUDGET",
    "PRODUCT_STRATEGIES",
    "REFERENCE_STRATEGIES",
    "REPORT_FORMAT",
    "STRATEGIES",
    "TOTAL",
    "CanvasReplay",
    "DriftOptions",
    "DriftRun",
    "HistoryIndex",
    "ProbeMeta",
    "ReplayClock",
    "aggregate",
    "ask_model",
    "bench_users",
    "bm25_history_compile",
    "bm25_terms",
    "build_report",
    "classify_probe",
    "naive_canvas_compile",
    "node_kind_for",
    "pivot_rows",
    "render_markdown",
    "report_strategies",
    "run_drift",
    "score",
    "score_answer",
    "table_rows",
    "targets",
    "turn_times",
    "write_pattern_plot",
    "write_plots",
]
