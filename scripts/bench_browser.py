"""Browser benchmark: open and pan big canvases in Chromium, frame times from requestAnimationFrame.

    .venv/bin/python scripts/bench_browser.py [--sizes 2000 5000 10000] [--opens 5] [--pan-seconds 2.5]
        [--out var/bench/browser-bench.json]

Needs the built front end (`cd frontend && npm run build`) and Chromium (CANVASWEB_CHROMIUM or /usr/bin/chromium).
Everything runs on 127.0.0.1 and is stopped at the end: a temporary SQLite database, one Daphne process.

Per size N, a fresh canvas is seeded through the write path (`services.apply_operation`, batches of 500
node.create ops, then ~N/2 edges between grid neighbours, five pinned anchors). Then, at 1440 x 900:

* open: milliseconds from navigation start until the canvas is synced and its first cards are painted
  (measured in the page: `performance.now()` in the first animation frame after the condition holds);
  --opens loads (the first cold, the rest reloads), reported each and as the median, split by the app's
  User Timing marks (`canvasweb:*`: socket open, snapshot frame received, parsed, store built, viewport
  set, nodes mounted) and by the server's snapshot build and JSON encoding, timed in-process;
* pan: the mouse drags the pane back and forth for --pan-seconds while a requestAnimationFrame loop records
  frame timestamps; reported as fps and p50/p95/max frame time. Three views: the opening view (readable
  zoom, full cards), fit-to-all (level of detail: blocks), and zoom ~0.5 (full cards, many on screen).

This is a benchmark, not a test: it asserts nothing; it prints a table and writes a JSON report.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from canvasweb.bench.browser_report import summarize, table
from canvasweb.bench.browser_trace import AssetSwap, frame_stats, summarize_trace
from canvasweb.testing.fixtures import setup_canvas_in
from canvasweb.testing.servers import Cluster, sqlite_url

PASSWORD = "bench-pass-123"
VIEWPORT = {"width": 1440, "height": 900}
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-quic",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-default-apps",
    "--disable-extensions",
]

SEED_SCRIPT = """
import json, uuid
from django.contrib.auth import get_user_model
from canvasweb.canvases import services
from canvasweb.canvases.actors import user_actor
spec = json.loads('''{spec}''')
user = get_user_model().objects.get(username=spec["owner"])
actor = user_actor(user)
n, cols = spec["n"], spec["cols"]
topics = ["cache", "队列", "billing", "部署", "search index", "权限", "replica lag", "日志", "backup", "网关"]
ids = [str(uuid.uuid4()) for _ in range(n)]
kinds = ["note", "fact", "decision", "requirement", "config", "question"]
for start in range(0, n, 500):
    ops = []
    for i in range(start, min(n, start + 500)):
        text = f"Item {{i}}: {{topics[i % len(topics)]}} 第{{i % 97}}项 uses port {{7000 + i % 900}}"
        ops.append({{"type": "node.create", "node": {{"id": ids[i], "content": text, "kind": kinds[i % len(kinds)],
                    "x": (i % cols) * 280, "y": (i // cols) * 170, "pinned": i % (n // 5) == 0}}}})
    services.apply_operation(actor=actor, canvas_id=spec["canvas_id"], op={{"type": "batch", "ops": ops}})
edges = [(ids[i], ids[i + 1]) for i in range(0, n - 1, 2) if (i + 1) % cols]
for start in range(0, len(edges), 500):
    ops = [{{"type": "edge.create", "edge": {{"id": str(uuid.uuid4()), "source": s, "target": t,
             "relation": "relates_to"}}}} for s, t in edges[start:start + 500]]
    services.apply_operation(actor=actor, canvas_id=spec["canvas_id"], op={{"type": "batch", "ops": ops}})
print("SEEDED", n, len(edges))
"""

FRAME_RECORDER = """() => {
  window.__frames = [];
  window.__rec = true;
  const tick = (t) => { window.__frames.push(t); if (window.__rec) requestAnimationFrame(tick); };
  requestAnimationFrame(tick);
}"""

OPENED_JS = """() => !document.querySelector('[data-testid=canvas-loading]')
  && (document.querySelectorAll('.react-flow__node').length > 0
      || Number(document.querySelector('[data-testid=lod-layer]')?.dataset.drawn ?? 0) > 0)
  && window.__canvasweb && window.__canvasweb.getState().nodes.length >= %d"""

FREE_PANE_POINT_JS = """() => {
  const r = document.querySelector('[data-testid=canvas] .react-flow__pane').getBoundingClientRect();
  for (let y = r.top + 60; y < r.bottom - 140; y += 7)
    for (let x = r.left + 200; x < r.right - 260; x += 7) {
      const el = document.elementFromPoint(x, y);
      if (el && el.classList.contains('react-flow__pane')) return [x, y];
    }
  return null;
}"""

MARKS_JS = """() => Object.fromEntries(performance.getEntriesByType('mark')
  .filter((m) => m.name.startsWith('canvasweb:')).map((m) => [m.name.slice(10), Math.round(m.startTime)]))"""

# What the page fetched before the canvas was up: navigation and resource timings, ms from navigation start.
RESOURCES_JS = """() => {
  const nav = performance.getEntriesByType('navigation')[0];
  const rows = performance.getEntriesByType('resource').map((r) => ({
    name: new URL(r.name).pathname, start: Math.round(r.startTime), end: Math.round(r.responseEnd),
    bytes: r.transferSize,
  }));
  return { html_end: nav ? Math.round(nav.responseEnd) : null,
           dom_content_loaded: nav ? Math.round(nav.domContentLoadedEventEnd) : null, resources: rows };
}"""

# the parts of the open, in order: (label, mark ending it)
OPEN_STEPS = (
    ("page + script + socket", "socket-open"),
    ("snapshot on the wire (server)", "frame-received"),
    ("JSON.parse", "frame-parsed"),
    ("store", "snapshot-store-built"),
    ("viewport", "viewport-set"),
    ("mount", "nodes-mounted"),
)

SNAPSHOT_TIMING_SCRIPT = """
import json, time
from canvasweb.canvases import selectors
from canvasweb.canvases.models import Canvas
canvas = Canvas.objects.get(pk={canvas_id})
build, encode = [], []
for _ in range(3):
    t0 = time.perf_counter()
    snapshot = selectors.canvas_snapshot(canvas=canvas, role="owner")
    t1 = time.perf_counter()
    text = json.dumps({{"type": "snapshot", **snapshot}}, ensure_ascii=False, allow_nan=False)
    encode.append(time.perf_counter() - t1)
    build.append(t1 - t0)
print("SNAPSHOT-JSON" + json.dumps({{"build_ms": round(1000 * min(build)), "encode_ms": round(1000 * min(encode)),
                                    "bytes": len(text.encode())}}))
"""

ZOOM_JS = "() => new DOMMatrix(getComputedStyle(document.querySelector('.react-flow__viewport')).transform).a"


TRACE_CATEGORIES = [
    "devtools.timeline",
    "disabled-by-default-devtools.timeline",
    "disabled-by-default-devtools.timeline.frame",
    "v8.execute",
    "blink.user_timing",
]

LOD_NODES_JS = "() => Number(document.querySelector('[data-testid=lod-layer]')?.dataset.drawn ?? 0)"


def pan(page, seconds: float) -> dict:
    point = page.evaluate(FREE_PANE_POINT_JS)
    if point is None:
        return {"error": "no free spot on the pane to start a drag"}
    x0, y0 = point
    page.evaluate(FRAME_RECORDER)
    page.mouse.move(x0, y0)
    page.mouse.down()
    steps = max(10, int(seconds * 60))
    for i in range(steps):
        phase = (i % 60) / 60  # back and forth, 240 px each way
        dx = 240 * (phase * 2 if phase < 0.5 else 2 - phase * 2)
        page.mouse.move(x0 - dx, y0 - dx / 3)
        page.wait_for_timeout(16)
    page.mouse.up()
    frames = page.evaluate("() => { window.__rec = false; return window.__frames; }")
    return {
        **frame_stats(frames),
        "zoom": round(page.evaluate(ZOOM_JS), 3),
        "cards_in_dom": page.evaluate("() => document.querySelectorAll('.react-flow__node').length"),
        "blocks_in_dom": page.evaluate("() => document.querySelectorAll('[data-lod=block]').length"),
        "lod_layer_nodes": page.evaluate(LOD_NODES_JS),
        "load": round(os.getloadavg()[0], 2),
    }


def traced_pan(browser, page, seconds: float, path: Path) -> dict:
    """One more pan (not counted in the frame figures: tracing slows the page) under a Chrome trace."""
    browser.start_tracing(page=page, categories=TRACE_CATEGORIES)
    stats = pan(page, seconds)
    raw = browser.stop_tracing()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(raw)
    return {"file": str(path), "fps_while_tracing": stats.get("fps"), **summarize_trace(json.loads(raw))}


def open_breakdown(marks: dict, open_ms: float) -> dict:
    """Milliseconds spent in each step of the open (from the previous mark), and the paint after the last."""
    out, prev = {}, 0.0
    for label, name in OPEN_STEPS:
        if name in marks:
            out[label] = marks[name] - prev
            prev = marks[name]
    out["first frame"] = round(open_ms - prev)
    return out


def snapshot_timing(cluster: Cluster, canvas_id: int) -> dict:
    output = cluster.manage("shell", "-c", SNAPSHOT_TIMING_SCRIPT.format(canvas_id=canvas_id))
    line = next(line for line in output.splitlines() if line.startswith("SNAPSHOT-JSON"))
    return json.loads(line[len("SNAPSHOT-JSON") :])


def seed(cluster: Cluster, n: int) -> tuple[dict, float]:
    data = setup_canvas_in(
        cluster, users=[f"bench{n}"], owner=f"bench{n}", name=f"bench {n}", password=PASSWORD
    )
    cols = int((n * 1.6) ** 0.5)
    t0 = time.perf_counter()
    spec = json.dumps({"owner": f"bench{n}", "canvas_id": data["canvas_id"], "n": n, "cols": cols})
    cluster.manage("shell", "-c", SEED_SCRIPT.format(spec=spec))
    return data, time.perf_counter() - t0


def login_state(browser, base: str, username: str) -> dict:
    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    page.goto(f"{base}/login/")
    page.get_by_test_id("login-username").fill(username)
    page.get_by_test_id("login-password").fill(PASSWORD)
    page.get_by_test_id("login-submit").click()
    page.wait_for_url(lambda url: "/login" not in url, timeout=10_000)
    state = context.storage_state()
    context.close()
    return state


def fit_all(page) -> int | None:
    """Click fit-to-all and wait until the level of detail is drawn (DOM blocks or the LOD layer)."""
    t0 = time.perf_counter()
    page.evaluate("() => document.querySelector('.react-flow__controls-fitview').click()")
    try:
        page.wait_for_function(
            f"() => ({ZOOM_JS})() < 0.45 && (document.querySelectorAll('[data-lod=block]').length > 0"
            f" || ({LOD_NODES_JS})() > 0)",
            polling="raf",
            timeout=30_000,
        )
    except Exception:
        return None
    return round(1000 * (time.perf_counter() - t0))


def one_round(browser, cluster: Cluster, state: dict, canvas_id: int, n: int, variant: Variant, opts) -> dict:
    """A fresh page of one build: open the canvas, pan the three views."""
    context = browser.new_context(viewport=VIEWPORT, storage_state=state)
    if variant.swap is not None:
        context.route("**/static/assets/**", variant.swap.handle)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)[:300]))
    out: dict = {"variant": variant.name, "load_before": round(os.getloadavg()[0], 2)}
    page.goto(f"{cluster.url(0)}/canvases/{canvas_id}/")
    page.wait_for_function(OPENED_JS % n, polling="raf", timeout=60_000)
    t = page.evaluate("() => new Promise(r => requestAnimationFrame(() => r(performance.now())))")
    out["open_ms"] = round(t)
    out["open_breakdown"] = open_breakdown(page.evaluate(MARKS_JS), t)
    out["page_fetches"] = page.evaluate(RESOURCES_JS)
    out["open_zoom"] = round(page.evaluate(ZOOM_JS), 3)
    page.wait_for_timeout(800)
    out["open"] = pan(page, opts.pan_seconds)
    out["fit_all_ms"] = fit_all(page)
    page.wait_for_timeout(1000)
    out["fit"] = pan(page, opts.pan_seconds)
    if opts.trace and variant.trace_pending:
        variant.trace_pending = False
        path = opts.trace / f"pan-fit-{n}-{variant.name}.json"
        out["trace_fit"] = traced_pan(browser, page, opts.pan_seconds, path)
    for _ in range(12):
        if page.evaluate(ZOOM_JS) >= 0.5:
            break
        page.evaluate("() => document.querySelector('.react-flow__controls-zoomin').click()")
        page.wait_for_timeout(250)
    page.wait_for_timeout(800)
    out["z05"] = pan(page, opts.pan_seconds)
    out["page_errors"] = errors
    context.close()
    return out


def run_size(browser, cluster: Cluster, n: int, variants: list[Variant], opts) -> dict:
    data, seed_s = seed(cluster, n)
    result: dict = {"nodes": n, "seed_s": round(seed_s, 1), "load_before": round(os.getloadavg()[0], 2)}
    result["server_snapshot"] = snapshot_timing(cluster, data["canvas_id"])
    state = login_state(browser, cluster.url(0), f"bench{n}")
    rounds = []
    for i in range(opts.rounds):  # builds alternate which goes first, so neither always gets the calmer slot
        order = variants if i % 2 == 0 else variants[::-1]
        for v in order:
            print(f"   round {i + 1} {v.name} (load {os.getloadavg()[0]:.1f})", flush=True)
            rounds.append(one_round(browser, cluster, state, data["canvas_id"], n, v, opts))
    result["rounds"] = rounds
    result["summary"] = summarize(rounds, [v.name for v in variants])
    result["load_after"] = round(os.getloadavg()[0], 2)
    return result


class Variant:
    """A front-end build to measure: this tree's (`swap` None) or another dist served in its place."""

    def __init__(self, name: str, swap: AssetSwap | None) -> None:
        self.name = name
        self.swap = swap
        self.trace_pending = True


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[2000, 5000, 10000])
    parser.add_argument(
        "--rounds", "--opens", type=int, default=3, help="fresh pages per size and build (open + pans)"
    )
    parser.add_argument("--pan-seconds", type=float, default=2.5)
    parser.add_argument(
        "--ab-dist",
        type=Path,
        help="another build's frontend/dist (e.g. main's), measured as 'old' in the same run, rounds interleaved",
    )
    parser.add_argument(
        "--trace", type=Path, help="write a Chrome trace of one fit-all pan per build into this folder"
    )
    parser.add_argument("--out", type=Path, default=ROOT / "var" / "bench" / "browser-bench.json")
    args = parser.parse_args()
    if not (ROOT / "frontend" / "dist").exists():
        print("build the front end first: cd frontend && npm run build", file=sys.stderr)
        return 2
    variants = [Variant("new", None)]
    if args.ab_dist:
        variants.append(Variant("old", AssetSwap(args.ab_dist)))
    args.rounds = max(1, args.rounds)

    from playwright.sync_api import sync_playwright

    workdir = Path(tempfile.mkdtemp(prefix="canvasweb-browser-bench-"))
    cluster = Cluster(
        database_url=sqlite_url(workdir),
        redis_url=None,
        extra_env={"CANVASWEB_WS_OPS_PER_SECOND": "200", "CANVASWEB_TEST_HOOKS": "true"},
    )
    cluster.migrate()
    cluster.start(1)
    results = []
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(
                executable_path=os.environ.get("CANVASWEB_CHROMIUM", "/usr/bin/chromium"), args=CHROMIUM_ARGS
            )
            for n in args.sizes:
                print(f"-- {n} nodes", flush=True)
                results.append(run_size(browser, cluster, n, variants, args))
            browser.close()
    finally:
        cluster.stop()
    report = {
        "format": "browser-bench-report/2",
        "viewport": VIEWPORT,
        "pan_seconds": args.pan_seconds,
        "rounds": args.rounds,
        "builds": {v.name: str(args.ab_dist) if v.swap else "frontend/dist" for v in variants},
        "machine": {"platform": platform.platform(), "cpus": os.cpu_count()},
        "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "results": results,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2))
    print(table(results))
    print(f"report: {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
