"""The next turn after an edit: context preview right after a `node.move`, against an unchanged canvas.

Through the public REST API (`POST /api/canvases/{id}/ops/`, then
`POST /api/canvases/{id}/context-preview/`) with Django's test client in this
process, on a fresh SQLite file. For each size:

* `still`: previews on an unchanged canvas (the cached index);
* `after_edit`: one `node.move` of a random node, then the preview (the index
  catches up from the change log: canvasweb/chat/context_inputs.py);
* `reload`: the same, but the cache is dropped before each preview: the full
  reload + rebuild every revision cost before the incremental index (the
  "before" column, measured in the same run);
* `move`: the `node.move` request itself;
* `statements per move`: SQL statements of one `node.move` through the write path;
* memory: RSS growth of the process that runs the compiles (the compile worker, by default) while it
  holds the canvas (per 10,000 nodes). The reload and the memory read that process's cache.

Nodes come from `canvasweb.context.bench_core.build_clustered_canvas` and are
written through the write path (`services.apply_operations`, batches of 500).
"""

from __future__ import annotations

import gc
import json
import random
import statistics
import time
import uuid
from typing import Any

from django.contrib.auth import get_user_model
from django.db import connection
from django.test.utils import CaptureQueriesContext

from canvasweb.bench.common import md_table, percentile, rnd

REPORT_FORMAT = "live-turn-bench-report/1"
QUESTION = "Which port does the database listen on? 缓存层用什么？"
TARGETS = {2_000: ("ratio", 2.0), 10_000: ("ratio", 2.0), 100_000: ("ms", 50.0)}


def _rss_bytes() -> int:
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def _held_in_this_process(canvas_id: int) -> tuple[int, int | None]:
    """(RSS, the cache's size estimate for the canvas) where the compiles run: called through
    `executor.run`, so in the compile worker when there is one."""
    from canvasweb.chat import context_inputs

    gc.collect()
    state = context_inputs.INDEX_CACHE.get(canvas_id)
    return _rss_bytes(), (state.size if state is not None else None)


def _forget(canvas_id: int) -> None:
    """Drop the canvas's cached index where the compiles run (the worker's cache, not only ours)."""
    from canvasweb.chat import context_inputs, executor

    executor.run(context_inputs.forget_canvas, canvas_id=canvas_id, key=canvas_id)


def _seed(*, user, n: int, seed: int) -> tuple[int, list[str]]:
    from canvasweb.canvases import services
    from canvasweb.canvases.actors import user_actor
    from canvasweb.context.bench_core import build_clustered_canvas

    canvas = services.canvas_create(user=user, name=f"live turn {n}")
    actor = user_actor(user, channel="rest")
    nodes, _ = build_clustered_canvas(n=n, seed=seed)
    ids = [str(uuid.uuid5(uuid.NAMESPACE_URL, f"live-turn/{canvas.pk}/{node.id}")) for node in nodes]
    for start in range(0, n, 500):
        ops = [
            {
                "type": "node.create",
                "node": {
                    "id": ids[i],
                    "content": node.content,
                    "kind": "fact",
                    "x": node.x,
                    "y": node.y,
                    "weight": node.weight,
                    "tags": list(node.tags),
                    "pinned": node.pinned,
                    "sensitivity": node.sensitivity,
                },
            }
            for i, node in enumerate(nodes[start : start + 500], start)
        ]
        services.apply_operation(actor=actor, canvas_id=canvas.pk, op={"type": "batch", "ops": ops})
    return canvas.pk, ids


def _timed(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return (time.perf_counter() - t0) * 1000


def _stats(values: list[float]) -> dict[str, float | None]:
    return {
        "p50": rnd(statistics.median(values), 2) if values else None,
        "p90": rnd(percentile(values, 0.9), 2),
        "n": len(values),
    }


def bench_size(*, n: int, repeat: int, seed: int = 7, reload_repeat: int | None = None) -> dict[str, Any]:
    from rest_framework.test import APIClient

    from canvasweb.chat import context_inputs, executor
    from canvasweb.chat import services as chat_services

    user = get_user_model().objects.create_user(username=f"live-{n}-{uuid.uuid4().hex[:6]}", password="x")
    t0 = time.perf_counter()
    canvas_id, ids = _seed(user=user, n=n, seed=seed)
    seed_s = time.perf_counter() - t0
    client = APIClient(SERVER_NAME="127.0.0.1")  # an allowed host
    client.force_authenticate(user)
    rng = random.Random(seed)
    viewport = {"x": 2000.0, "y": 2000.0, "zoom": 1.0, "width": 1280.0, "height": 800.0}

    def preview():
        response = client.post(
            f"/api/canvases/{canvas_id}/context-preview/",
            {"text": QUESTION, "viewport": viewport},
            format="json",
        )
        assert response.status_code == 200, response.content[:300]

    # A first compile on a small canvas, in the worker that will serve this one, loads the compiler's
    # modules and the tokenizer there: the memory growth below is the canvas's, not the first compile's.
    warm_id, _ = _seed(user=user, n=300, seed=seed + 1)
    executor.run(
        chat_services.context_preview,
        user=user,
        canvas_id=warm_id,
        text=QUESTION,
        viewport=viewport,
        key=canvas_id,
    )
    executor.run(context_inputs.forget_canvas, canvas_id=warm_id, key=canvas_id)

    def move():
        response = client.post(
            f"/api/canvases/{canvas_id}/ops/",
            {
                "client_op_id": uuid.uuid4().hex,
                "op": {
                    "type": "node.move",
                    "id": rng.choice(ids),
                    "x": rng.uniform(0, 8000),
                    "y": rng.uniform(0, 8000),
                },
            },
            format="json",
        )
        assert response.status_code == 200, response.content[:300]

    _forget(canvas_id)
    rss_before, _ = executor.run(_held_in_this_process, canvas_id, key=canvas_id)
    first_ms = _timed(preview)  # the first load: every node read and indexed
    rss_after, estimate = executor.run(_held_in_this_process, canvas_id, key=canvas_id)
    rss_held = max(0, rss_after - rss_before)

    still = [_timed(preview) for _ in range(repeat)]
    moves, after = [], []
    for _ in range(repeat):
        moves.append(_timed(move))
        after.append(_timed(preview))
    reload = []
    for _ in range(reload_repeat if reload_repeat is not None else max(3, repeat // 5)):
        move()
        _forget(canvas_id)
        reload.append(_timed(preview))
    preview()  # leave the cache warm again

    node_id = rng.choice(ids)
    with CaptureQueriesContext(connection) as queries:
        client.post(
            f"/api/canvases/{canvas_id}/ops/",
            {
                "client_op_id": uuid.uuid4().hex,
                "op": {"type": "node.move", "id": node_id, "x": 1.0, "y": 2.0},
            },
            format="json",
        )
    op_statements = [q["sql"] for q in queries.captured_queries]
    write_statements = [
        s for s in op_statements if not s.startswith(('SELECT "django_session"', 'SELECT "auth_user"'))
    ]
    still_p50 = statistics.median(still)
    after_p50 = statistics.median(after)
    _forget(canvas_id)
    return {
        "nodes": n,
        "seed_seconds": round(seed_s, 1),
        "first_load_ms": rnd(first_ms, 1),
        "still_ms": _stats(still),
        "after_edit_ms": _stats(after),
        "reload_ms": _stats(reload),
        "move_ms": _stats(moves),
        "after_over_still": rnd(after_p50 / still_p50, 2),
        "reload_over_still": rnd(statistics.median(reload) / still_p50, 2),
        "statements_per_move": len(write_statements),
        "statements": [s[:160] for s in write_statements],
        "rss_held_bytes": rss_held,
        "rss_per_10k_nodes_mb": rnd(rss_held / n * 10_000 / 2**20, 1),
        "cache_estimate_bytes": estimate,
    }


def targets(rows: list[dict]) -> list[dict]:
    out = []
    for row in rows:
        goal = TARGETS.get(row["nodes"])
        if goal is None:
            continue
        kind, value = goal
        if kind == "ratio":
            got = row["after_over_still"]
            out.append(
                {
                    "nodes": row["nodes"],
                    "target": f"after edit <= {value}x still",
                    "got": f"{got}x",
                    "met": got is not None and got <= value,
                }
            )
        else:
            got = row["after_edit_ms"]["p50"]
            out.append(
                {
                    "nodes": row["nodes"],
                    "target": f"after edit <= {value} ms",
                    "got": f"{got} ms",
                    "met": got is not None and got <= value,
                }
            )
    return out


HEADERS = [
    "nodes",
    "still p50 ms",
    "after edit p50 ms",
    "after/still",
    "reload p50 ms (before)",
    "reload/still",
    "move p50 ms",
    "first load ms",
    "statements per move",
    "RSS MB per 10k nodes",
]


def table(rows: list[dict]) -> list[list]:
    return [
        [
            r["nodes"],
            r["still_ms"]["p50"],
            r["after_edit_ms"]["p50"],
            r["after_over_still"],
            r["reload_ms"]["p50"],
            r["reload_over_still"],
            r["move_ms"]["p50"],
            r["first_load_ms"],
            r["statements_per_move"],
            r["rss_per_10k_nodes_mb"],
        ]
        for r in rows
    ]


def render_markdown(report: dict) -> str:
    lines = [
        "# Live turn: context preview right after an edit",
        "",
        f"Started {report['started_at']}; {report['machine'].get('cpu_count')} CPUs; SQLite; REST API "
        f"through Django's test client; compile mode {report.get('compile_mode', 'process')}.",
        "",
        md_table(HEADERS, table(report["rows"])),
        "",
        "## Targets",
        "",
        md_table(
            ["nodes", "target", "got", "met"],
            [[t["nodes"], t["target"], t["got"], "yes" if t["met"] else "no"] for t in report["targets"]],
        ),
        "",
        "## One node.move through the write path (SQL statements)",
        "",
    ]
    if report["rows"]:
        lines += ["```", *report["rows"][0]["statements"], "```"]
    return "\n".join(lines) + "\n"


def dumps(report: dict) -> str:
    return json.dumps(report, ensure_ascii=False, indent=2)
