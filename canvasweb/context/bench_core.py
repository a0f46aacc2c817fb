"""Micro-benchmark of the pure context compiler on synthetic clustered canvases.

    python -m canvasweb.context.bench_core            # 1k, 10k, 100k nodes
    python -m canvasweb.context.bench_core 5000 --runs 100
    python -m canvasweb.context.bench_core --clock cpu   # CPU time: steadier on a busy machine

`run_benchmark()` returns plain dicts so a management command can wrap it.
Timings exclude the one-time CanvasIndex build (reported separately); the
token cache is shared across runs, as it is across turns of a conversation.
"""

from __future__ import annotations

import argparse
import gc
import math
import random
import statistics
import time
from collections.abc import Sequence
from typing import Any, Literal

from .compiler import compile_context
from .selection import CanvasIndex, naive_linear_select, select_nodes
from .tokens import TokenCache, get_encoding
from .types import CompileRequest, EdgeData, MessageData, NodeData, Viewport

_WORDS = (
    "database port cache layer session token expiry deploy pipeline review budget latency queue worker "
    "schema migration index replica backup region tenant billing invoice search ranking canvas node edge "
    "viewport anchor summary release rollback feature flag experiment metric alert dashboard incident"
).split()
_ZH = "数据库 端口 缓存 会话 过期 部署 流水线 预算 延迟 队列 索引 备份 区域 租户 账单 搜索 画布 节点 告警 发布".split()
_KINDS = ("fact", "requirement", "decision", "config", "constraint", "question")


def build_clustered_canvas(
    *,
    n: int,
    seed: int = 7,
    nodes_per_cluster: int = 400,
    cluster_sigma: float = 350.0,
    spacing: float = 4000.0,
) -> tuple[list[NodeData], list[EdgeData]]:
    """n nodes in gaussian clusters on a square grid of cluster centres, with
    mixed weights, sensitivities, pins, supersessions, archives and edges."""
    rng = random.Random(seed)
    clusters = max(1, n // nodes_per_cluster)
    side = math.ceil(math.sqrt(clusters))
    centres = [((i % side) * spacing, (i // side) * spacing) for i in range(clusters)]
    nodes: list[NodeData] = []
    for i in range(n):
        cx, cy = centres[i % clusters]
        words = rng.sample(_WORDS, 8)
        text = " ".join(words) + f" value {rng.randint(1, 9999)}"
        if i % 5 == 0:
            text += " " + "".join(rng.sample(_ZH, 3))
        r = rng.random()
        nodes.append(
            NodeData(
                id=f"node-{i:06d}",
                content=text,
                kind=_KINDS[i % len(_KINDS)],
                x=rng.gauss(cx, cluster_sigma),
                y=rng.gauss(cy, cluster_sigma),
                weight=rng.choice((0.5, 1.0, 1.0, 1.0, 1.5, 2.0, 3.0)),
                tags=(rng.choice(_WORDS),),
                pinned=(i % 5000 == 0),
                sensitivity="secret" if r < 0.02 else ("internal" if r < 0.12 else "public"),
                superseded_by=f"node-{i + 1:06d}" if (i % 20 == 0 and i + 1 < n) else None,
                archived=(i % 50 == 7),
            )
        )
    edges = [
        EdgeData(
            id=f"edge-{j}",
            source=f"node-{j:06d}",
            target=f"node-{rng.randrange(n):06d}",
            relation="depends_on",
        )
        for j in range(0, n, 2)
    ]
    return nodes, edges


def _history(turns: int = 40) -> tuple[MessageData, ...]:
    msgs = []
    for i in range(turns):
        role: Literal["user", "assistant"] = "user" if i % 2 == 0 else "assistant"
        body = (
            f"Turn {i}: the database listens on port 5433 and we never commit passwords."
            if i == 0
            else f"Turn {i}: we discussed the pipeline, latency budgets and the cache layer in some detail."
        )
        msgs.append(MessageData(id=f"m{i}", role=role, content=body))
    return tuple(msgs)


def _pct(values: Sequence[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, max(0, math.ceil(q * len(s)) - 1))]


def bench_size(
    *, n: int, runs: int = 50, budget: int = 8000, seed: int = 7, clock: str = "wall"
) -> dict[str, Any]:
    """Time compile_context on one canvas size.

    * warm: a conversation at one spot: 10 nearby viewports cycled with a
      shared TokenCache, as on consecutive turns (nodes already tokenized);
    * cold: every run jumps to a random spot of the canvas, so most nodes
      in view are masked and tokenized for the first time.
    select_*: select_nodes alone (spatial + neighbours + question) at the
    compiler's default candidate limit; naive_*: naive_linear_select.
    clock="cpu" measures this process's CPU time instead of wall time, which
    is steadier on a shared, busy machine.
    """
    now = time.process_time if clock == "cpu" else time.perf_counter
    get_encoding()  # load the encoding outside the timings
    nodes, edges = build_clustered_canvas(n=n, seed=seed)
    t = now()
    index = CanvasIndex.build(nodes=nodes, edges=edges)
    build_ms = (now() - t) * 1000
    gc.collect()  # the build's garbage is not collected inside the timed compiles
    rng = random.Random(seed + 1)
    history = _history()
    questions = [
        "Which port does the database listen on?",
        "缓存层用什么？",
        "what is the latency budget for search",
    ]

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

    # Warm: one spot, small pans, cache primed by one pass.
    home = spot()
    warm_vps = [
        Viewport(x=home.x + rng.uniform(-150, 150), y=home.y + rng.uniform(-150, 150), zoom=1.0)
        for _ in range(10)
    ]
    warm_cache = TokenCache()
    for i, vp in enumerate(warm_vps):
        compile_context(request=request(vp, questions[i % 3], warm_cache))
    warm_ms = []
    for i in range(runs):
        req = request(warm_vps[i % len(warm_vps)], questions[i % 3], warm_cache)
        t = now()
        compile_context(request=req)
        warm_ms.append((now() - t) * 1000)

    cold_cache = TokenCache()
    cold_ms, select_ms, naive_ms = [], [], []
    limit = max(32, (budget * 45 // 100) // 32)
    for i in range(runs):
        vp, q = spot(), questions[i % 3]
        req = request(vp, q, cold_cache)
        t = now()
        compile_context(request=req)
        cold_ms.append((now() - t) * 1000)
        t = now()
        select_nodes(index=index, viewport=vp, role="editor", question=q, limit=limit)
        select_ms.append((now() - t) * 1000)
        t = now()
        naive_linear_select(nodes=nodes, viewport=vp, k=15)
        naive_ms.append((now() - t) * 1000)

    def r(v: float) -> float:
        return round(v, 3)

    return {
        "nodes": n,
        "runs": runs,
        "budget": budget,
        "clock": clock,
        "index_build_ms": round(build_ms, 1),
        "warm_p50_ms": r(statistics.median(warm_ms)),
        "warm_p95_ms": r(_pct(warm_ms, 0.95)),
        "cold_p50_ms": r(statistics.median(cold_ms)),
        "cold_p95_ms": r(_pct(cold_ms, 0.95)),
        "select_p50_ms": r(statistics.median(select_ms)),
        "select_p95_ms": r(_pct(select_ms, 0.95)),
        "naive_p50_ms": r(statistics.median(naive_ms)),
        "naive_p95_ms": r(_pct(naive_ms, 0.95)),
    }


def run_benchmark(
    *,
    sizes: Sequence[int] = (1_000, 10_000, 100_000),
    runs: int = 50,
    budget: int = 8000,
    clock: str = "wall",
) -> list[dict[str, Any]]:
    return [bench_size(n=n, runs=runs, budget=budget, clock=clock) for n in sizes]


def format_table(rows: Sequence[dict[str, Any]]) -> str:
    cols = [
        "nodes",
        "index_build_ms",
        "warm_p50_ms",
        "warm_p95_ms",
        "cold_p50_ms",
        "cold_p95_ms",
        "select_p50_ms",
        "select_p95_ms",
        "naive_p50_ms",
        "naive_p95_ms",
    ]
    lines = [" ".join(f"{c:>14}" for c in cols)]
    for r in rows:
        lines.append(" ".join(f"{r[c]:>14}" for c in cols))
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sizes", nargs="*", type=int, default=[1_000, 10_000, 100_000])
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--budget", type=int, default=8000)
    parser.add_argument("--clock", choices=("wall", "cpu"), default="wall")
    args = parser.parse_args(argv)
    print(format_table(run_benchmark(sizes=args.sizes, runs=args.runs, budget=args.budget, clock=args.clock)))


if __name__ == "__main__":
    main()
