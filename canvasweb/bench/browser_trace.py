"""Pieces of the browser benchmark (`scripts/bench_browser.py`) that need no browser or Django.

* `frame_stats`: fps and frame-time percentiles from requestAnimationFrame timestamps;
* `summarize_trace`: a Chrome trace (Tracing.start via Playwright) split like the DevTools summary into
  scripting, rendering (style, layout), painting (paint, layerize, commit) on the page's main thread, and
  raster on the raster threads, as self times so nested events are not counted twice;
* `AssetSwap`: serve another build of the front end to the same page (the A/B of two builds in one run,
  against the same server and canvas): requests for the current build's hashed assets are answered with
  the other build's files of the same name.
"""

from __future__ import annotations

import itertools
import re
import statistics
from collections import defaultdict
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

SCRIPTING = {
    "FunctionCall",
    "EvaluateScript",
    "v8.compile",
    "v8.compileModule",
    "v8.evaluateModule",
    "V8.Execute",
    "v8.run",
    "v8.callFunction",
    "TimerFire",
    "FireAnimationFrame",
    "EventDispatch",
    "RunMicrotasks",
    "V8.GCScavenger",
    "MajorGC",
    "MinorGC",
    "V8.GC_MARK_COMPACTOR",
    "V8.GCFinalizeMC",
    "V8.GCIncrementalMarking",
    "BlinkGC.AtomicPhase",
    "ThreadState::performIdleLazySweep",
    "XHRReadyStateChange",
    "XHRLoad",
    "WebSocketReceiveHandshakeResponse",
    "ParseHTML",
}
RENDERING = {
    "UpdateLayoutTree",
    "RecalculateStyles",
    "Layout",
    "HitTest",
    "PrePaint",
    "UpdateLayerTree",
    "UpdateLayer",
    "ScheduleStyleRecalculation",
    "InvalidateLayout",
    "IntersectionObserverController::computeIntersections",
    "ComputeIntersections",
    "LocalFrameView::RunPostLifecycleSteps",
    "ResizeObserverController::deliverObservations",
}
PAINTING = {
    "Paint",
    "PaintImage",
    "PaintSetup",
    "Layerize",
    "Commit",
    "CompositeLayers",
    "Decode Image",
    "ImageDecodeTask",
    "Draw LazyPixelRef",
    "Decode LazyPixelRef",
}
RASTER = {"RasterTask", "Rasterize", "RasterizerTaskImpl::RunOnWorkerThread"}
TOP_LEVEL = {"RunTask", "ThreadControllerImpl::RunTask", "ThreadPool_RunTask"}


def frame_stats(frames: list[float]) -> dict[str, Any]:
    """fps over the recording, and the median / 95th percentile / longest gap between frames (ms)."""
    gaps = sorted(b - a for a, b in itertools.pairwise(frames))
    if not gaps:
        return {
            "frames": len(frames),
            "fps": 0.0,
            "mean_ms": None,
            "p50_ms": None,
            "p95_ms": None,
            "max_ms": None,
        }
    duration = frames[-1] - frames[0]
    return {
        "frames": len(frames),
        "fps": round((len(frames) - 1) / (duration / 1000), 1),
        "mean_ms": round(duration / len(gaps), 2),
        "p50_ms": round(statistics.median(gaps), 1),
        "p95_ms": round(gaps[int(0.95 * (len(gaps) - 1))], 1),
        "max_ms": round(gaps[-1], 1),
    }


def category_of(name: str) -> str:
    if name in SCRIPTING or name.startswith(("V8.", "v8.")):
        return "scripting"
    if name in RENDERING:
        return "rendering"
    if name in PAINTING:
        return "painting"
    if name in RASTER:
        return "raster"
    if name in TOP_LEVEL:
        return "task"
    return "other"


def _thread_names(events: Iterable[Mapping[str, Any]]) -> dict[tuple[Any, Any], str]:
    names = {}
    for e in events:
        if e.get("ph") == "M" and e.get("name") == "thread_name":
            names[(e.get("pid"), e.get("tid"))] = str(e.get("args", {}).get("name", ""))
    return names


def self_times(events: list[Mapping[str, Any]]) -> dict[str, float]:
    """Self time (ms) per event name for the complete ('X') events of one thread: nested events are
    subtracted from their parent so that a forced layout inside a script counts as rendering, once."""
    spans = sorted(
        ((float(e["ts"]), float(e.get("dur", 0)), str(e["name"])) for e in events if e.get("ph") == "X"),
        key=lambda s: (s[0], -s[1]),
    )
    out: dict[str, float] = defaultdict(float)
    stack: list[list[Any]] = []  # [end, name, duration, child time]

    def close() -> None:
        _end, name, dur, child = stack.pop()
        out[name] += max(0.0, dur - child) / 1000
        if stack:
            stack[-1][3] += dur

    for ts, dur, name in spans:
        while stack and stack[-1][0] <= ts:
            close()
        stack.append([ts + dur, name, dur, 0.0])
    while stack:
        close()
    return dict(out)


def summarize_trace(trace: Mapping[str, Any], *, top: int = 12) -> dict[str, Any]:
    """Milliseconds of scripting / rendering / painting on the renderer's main thread, raster on the
    raster threads, and the busiest event names (self time)."""
    events = trace.get("traceEvents", trace if isinstance(trace, list) else [])
    names = _thread_names(events)
    by_thread: dict[tuple[Any, Any], list[Mapping[str, Any]]] = defaultdict(list)
    for e in events:
        by_thread[(e.get("pid"), e.get("tid"))].append(e)
    main = [k for k, v in names.items() if v == "CrRendererMain"]
    raster = [k for k, v in names.items() if v.startswith(("CompositorTileWorker", "Raster"))]
    totals: dict[str, float] = defaultdict(float)
    per_name: dict[str, float] = defaultdict(float)
    # several renderer processes may exist (the blank start page): the busiest main thread is the canvas page
    main_times = [self_times(by_thread[k]) for k in main]
    busiest = max(
        main_times, key=lambda t: sum(v for n, v in t.items() if category_of(n) != "task"), default={}
    )
    for name, ms in busiest.items():
        totals[category_of(name)] += ms
        per_name[name] += ms
    for k in raster:
        for name, ms in self_times(by_thread[k]).items():
            if category_of(name) == "raster":
                totals["raster (raster threads)"] += ms
    busiest_names = sorted(
        ((n, v) for n, v in per_name.items() if category_of(n) != "task"), key=lambda x: -x[1]
    )
    return {
        "ms": {k: round(v, 1) for k, v in sorted(totals.items())},
        "top": [[n, round(v, 1)] for n, v in busiest_names[:top]],
    }


HASHED = re.compile(r"^(?P<stem>.+)-[A-Za-z0-9_-]{8}\.(?P<ext>js|css)$")


class AssetSwap:
    """Answer a page's requests for `/static/assets/*` from another build (`dist`): same file name if that
    build has it (its own lazy chunks), else the file with the same stem and extension (its entry and
    vendor chunks, whose hashes differ)."""

    def __init__(self, dist: Path) -> None:
        self.assets = Path(dist) / "assets"
        if not self.assets.is_dir():
            raise FileNotFoundError(f"no assets in {dist}: build that front end first")
        self.by_stem: dict[tuple[str, str], Path] = {}
        for f in self.assets.iterdir():
            m = HASHED.match(f.name)
            if m:
                self.by_stem[(m["stem"], m["ext"])] = f

    def resolve(self, url: str) -> Path | None:
        name = url.split("?", 1)[0].rsplit("/", 1)[-1]
        direct = self.assets / name
        if direct.is_file():
            return direct
        m = HASHED.match(name)
        return self.by_stem.get((m["stem"], m["ext"])) if m else None

    def handle(self, route: Any) -> None:
        """A Playwright route handler for `**/static/assets/**`."""
        path = self.resolve(route.request.url)
        if path is None:
            route.continue_()
            return
        kind = "text/css" if path.suffix == ".css" else "text/javascript"
        route.fulfill(
            status=200, body=path.read_bytes(), headers={"content-type": kind, "cache-control": "no-store"}
        )
