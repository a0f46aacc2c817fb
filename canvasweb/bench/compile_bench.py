"""Compile speed at scale: the context compiler against the naive linear scan, on synthetic canvases.

Canvases come from `canvasweb.context.bench_core.build_clustered_canvas`
(gaussian clusters, mixed weights, pinned anchors, edges, ~5 % superseded,
2 % archived, 2 % secret / 10 % internal). For each size:

* `index_build_ms`: `CanvasIndex.build` once (the chat caches it per canvas
  revision, so a turn does not pay it);
* `compile_warm`: `compile_context` for a conversation at one spot (small pans
  around one viewport, the token cache primed as on consecutive turns);
* `compile_cold`: each run jumps to a random spot of the canvas (most nodes in
  view are masked and tokenized for the first time);
* `select`: `select_nodes` alone (anchors, spatial, linked, question matches)
  at the compiler's candidate limit for the budget;
* `naive`: `naive_linear_select`: every node scored by distance / weight, the
  nearest 15 kept (the reference "linear scan"), on the same viewports as
  `compile_cold` and `select`.
"""

from __future__ import annotations

import functools
import random
import statistics
import time
from collections.abc import Callable, Sequence
from typing import Any

from canvasweb.context import bench_core
from canvasweb.context.compiler import compile_context
from canvasweb.context.selection import CanvasIndex, naive_linear_select, select_nodes
from canvasweb.context.tokens import TokenCache, get_encoding
from canvasweb.context.types import CompileRequest, MessageData, Viewport

from .common import Progress, percentile

REPORT_FORMAT = "compile-bench-report/1"
INDEX_DESCRIPTION = (
    "CanvasIndex (canvasweb/context/selection.py): a uniform grid per weight band (band k holds weights in "
    "(2^(k-1), 2^k]) searched ring by ring from the viewport centre and stopped as soon as the nearest unvisited "
    "ring cannot beat the k-th best effective distance (distance / weight), falling back to the band's occupied "
    "cells sorted by distance when the ring walk would be longer; plus an inverted keyword index (term -> nodes, "
    "idf-weighted) for question matches and an adjacency list for 1-hop links. Built once per canvas revision "
    "(cached by canvasweb/chat/context_inputs.py); pure Python, no numpy."
)
QUESTIONS = (
    "Which port does the database listen on?",
    "缓存层用什么？",
    "what is the latency budget for search",
)
TARGETS = {10_000: 5.0, 100_000: 30.0}
SPEEDUP_TARGET = (100_000, 10.0)


def _history(turns: int = 40) -> tuple[MessageData, ...]:
    hist = getattr(bench_core, "_history", None)
    if callable(hist):
        return tuple(hist(turns))
    return tuple(
        MessageData(
            id=f"m{i}",
            role="user" if i % 2 == 0 else "assistant",
            content=f"Turn {i}: the pipeline, latency budgets and the cache layer.",
        )
        for i in range(turns)
    )


def _compile_into(box: list, request: CompileRequest) -> None:
    box.append(compile_context(request=request))


def _timed(fn: Callable[[], Any], cpu: list[float] | None = None) -> float:
    """Wall ms of fn(); its CPU ms (this thread) appended to `cpu`: less sensitive to a busy machine."""
    c = time.thread_time()
    t = time.perf_counter()
    fn()
    wall = (time.perf_counter() - t) * 1000.0
    if cpu is not None:
        cpu.append((time.thread_time() - c) * 1000.0)
    return wall


def _stats(values: Sequence[float]) -> dict[str, float]:
    return {
        "p50": round(statistics.median(values), 3),
        "p95": round(percentile(values, 0.95) or 0.0, 3),
        "mean": round(statistics.fmean(values), 3),
    }


def bench_size(
    *, n: int, repeat: int = 50, budget: int = 8000, seed: int = 7, progress: Progress | None = None
) -> dict[str, Any]:
    get_encoding()  # load the encoding outside the timings
    t = time.perf_counter()
    nodes, edges = bench_core.build_clustered_canvas(n=n, seed=seed)
    generate_ms = (time.perf_counter() - t) * 1000
    t = time.perf_counter()
    index = CanvasIndex.build(nodes=nodes, edges=edges)
    build_ms = (time.perf_counter() - t) * 1000
    rng = random.Random(seed + 1)
    history = _history()

    def request(vp: Viewport, q: str, cache: TokenCache) -> CompileRequest:
        return CompileRequest(
            system_prompt="You are helpful.",
            question=q,
            messages=history,
            index=index,
            viewport=vp,
            role="editor",
            budget=budget,
            token_cache=cache,
        )

    def spot() -> Viewport:
        a = nodes[rng.randrange(n)]
        return Viewport(
            x=a.x + rng.uniform(-300, 300),
            y=a.y + rng.uniform(-300, 300),
            zoom=rng.choice((0.5, 1.0, 1.0, 2.0)),
        )

    home = spot()
    warm_vps = [
        Viewport(x=home.x + rng.uniform(-150, 150), y=home.y + rng.uniform(-150, 150), zoom=home.zoom)
        for _ in range(10)
    ]
    warm_cache = TokenCache()
    for i, vp in enumerate(warm_vps):  # prime, as earlier turns would have
        compile_context(request=request(vp, QUESTIONS[i % 3], warm_cache))
    warm, cold, select, naive = [], [], [], []
    warm_cpu: list[float] = []
    cold_cpu: list[float] = []
    naive_cpu: list[float] = []
    included: list[int] = []
    for i in range(repeat):
        req = request(warm_vps[i % len(warm_vps)], QUESTIONS[i % 3], warm_cache)
        warm.append(_timed(functools.partial(compile_context, request=req), warm_cpu))
        if progress:
            progress.advance()
    cold_cache = TokenCache()
    limit = max(32, (budget * 45 // 100) // 32)
    for i in range(repeat):
        vp, q = spot(), QUESTIONS[i % 3]
        req = request(vp, q, cold_cache)
        box: list = []
        cold.append(_timed(functools.partial(_compile_into, box, req), cold_cpu))
        included.append(len(box[0].report.included_nodes))
        select.append(
            _timed(
                functools.partial(
                    select_nodes, index=index, viewport=vp, role="editor", question=q, limit=limit
                )
            )
        )
        naive.append(
            _timed(functools.partial(naive_linear_select, nodes=nodes, viewport=vp, k=15), naive_cpu)
        )
        if progress:
            progress.advance()
    w, c, s, nv = _stats(warm), _stats(cold), _stats(select), _stats(naive)
    wc, cc, nc = _stats(warm_cpu), _stats(cold_cpu), _stats(naive_cpu)
    return {
        "nodes": n,
        "edges": len(edges),
        "repeat": repeat,
        "budget": budget,
        "generate_ms": round(generate_ms, 1),
        "index_build_ms": round(build_ms, 1),
        "compile_warm_p50_ms": w["p50"],
        "compile_warm_p95_ms": w["p95"],
        "compile_cold_p50_ms": c["p50"],
        "compile_cold_p95_ms": c["p95"],
        "select_p50_ms": s["p50"],
        "select_p95_ms": s["p95"],
        "naive_p50_ms": nv["p50"],
        "naive_p95_ms": nv["p95"],
        "compile_warm_cpu_p50_ms": wc["p50"],
        "compile_cold_cpu_p50_ms": cc["p50"],
        "naive_cpu_p50_ms": nc["p50"],
        "speedup_warm_vs_naive": round(nv["p50"] / w["p50"], 2) if w["p50"] else None,
        "speedup_cold_vs_naive": round(nv["p50"] / c["p50"], 2) if c["p50"] else None,
        "speedup_select_vs_naive": round(nv["p50"] / s["p50"], 2) if s["p50"] else None,
        "included_nodes_mean": round(statistics.fmean(included), 1) if included else 0,
    }


def targets(rows: Sequence[dict]) -> list[dict]:
    out = []
    by_n = {r["nodes"]: r for r in rows}
    for n, limit in TARGETS.items():
        r = by_n.get(n)
        if r:
            for kind in ("warm", "cold"):
                v = r[f"compile_{kind}_p50_ms"]
                out.append(
                    {
                        "name": f"compile p50 ({kind}) @ {n:,} nodes",
                        "value": v,
                        "target": f"<= {limit} ms",
                        "met": v <= limit,
                    }
                )
    n, factor = SPEEDUP_TARGET
    r = by_n.get(n)
    if r:
        for kind in ("warm", "cold"):
            v = r[f"speedup_{kind}_vs_naive"]
            out.append(
                {
                    "name": f"compile ({kind}) vs linear scan @ {n:,} nodes",
                    "value": v,
                    "target": f">= {factor:g}x",
                    "met": v is not None and v >= factor,
                }
            )
    return out


COLUMNS = (
    ("nodes", "nodes"),
    ("index_build_ms", "index build ms"),
    ("compile_warm_p50_ms", "warm p50"),
    ("compile_warm_p95_ms", "warm p95"),
    ("compile_cold_p50_ms", "cold p50"),
    ("compile_cold_p95_ms", "cold p95"),
    ("select_p50_ms", "select p50"),
    ("select_p95_ms", "select p95"),
    ("naive_p50_ms", "linear p50"),
    ("naive_p95_ms", "linear p95"),
    ("speedup_warm_vs_naive", "linear÷warm"),
    ("speedup_cold_vs_naive", "linear÷cold"),
    ("compile_warm_cpu_p50_ms", "warm CPU p50"),
    ("naive_cpu_p50_ms", "linear CPU p50"),
)


def table(rows: Sequence[dict]) -> tuple[list[str], list[list]]:
    return [h for _, h in COLUMNS], [[r.get(k) for k, _ in COLUMNS] for r in rows]


def render_markdown(report: dict) -> str:
    from .common import md_table

    m = report["machine"]
    headers, rows = table(report["rows"])
    lines = [
        "# Compile speed",
        "",
        f"{report['repeat']} runs per size, budget {report['budget']} tokens; times in ms. "
        f"Run {report['finished_at']} on {m['cpu_model']} ({m['cpu_count']} cores, {m['ram_gb']} GB RAM, "
        f"load average {m.get('load_average')}).",
        "",
        md_table(headers, rows, align=["r"] * len(headers)),
        "",
        f"Index: {report['index']}",
        "",
        "## Targets",
        "",
        md_table(
            ["target", "value", "goal", "met"],
            [
                [t["name"], t["value"], t["target"], "yes" if t["met"] else "**no**"]
                for t in report["targets"]
            ],
            align=["l", "r", "l", "l"],
        ),
        "",
    ]
    return "\n".join(lines)
