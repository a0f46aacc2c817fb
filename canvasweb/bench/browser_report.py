"""The browser benchmark's report (`scripts/bench_browser.py`): medians per build and view, the old/new
ratio of the mean frame time within a round, and the Markdown tables it prints."""

from __future__ import annotations

import statistics
from typing import Any

# The views a size is panned in: (key, label). "fit" is fit-to-all (level of detail), "z05" zoom ~0.5.
VIEWS = (("open", "on open"), ("fit", "fit all (LOD)"), ("z05", "zoom 0.5"))


def med(values) -> float | None:
    vals = [v for v in values if v is not None]
    return round(statistics.median(vals), 2) if vals else None


def summarize(rounds: list[dict], names: list[str]) -> dict:
    """Medians per build and view, and (with two builds) the old/new ratio of the mean frame time, per round."""
    out: dict = {}
    for name in names:
        mine = [r for r in rounds if r["variant"] == name]
        views: dict[str, dict[str, Any]] = {}
        for key, _ in VIEWS:
            pans = [r[key] for r in mine]
            views[key] = {
                f: med(p.get(f) for p in pans) for f in ("fps", "mean_ms", "p50_ms", "p95_ms", "max_ms")
            }
            views[key].update(
                {
                    f: mine[-1][key].get(f)
                    for f in ("zoom", "cards_in_dom", "blocks_in_dom", "lod_layer_nodes")
                }
            )
            views[key]["load"] = [p.get("load") for p in pans]
        out[name] = {
            "open_ms": [r["open_ms"] for r in mine],
            "open_median_ms": med(r["open_ms"] for r in mine),
            "open_breakdown_median_ms": {
                k: med(r["open_breakdown"].get(k) for r in mine) for k in mine[0]["open_breakdown"]
            },
            "fit_all_ms": [r["fit_all_ms"] for r in mine],
            "views": views,
        }
    if len(names) == 2:
        new, old = names
        ratios = {}
        for key, _ in VIEWS:
            per_round = []
            for i in range(len(rounds) // 2):
                a = next(r for r in rounds[2 * i : 2 * i + 2] if r["variant"] == old)[key].get("mean_ms")
                b = next(r for r in rounds[2 * i : 2 * i + 2] if r["variant"] == new)[key].get("mean_ms")
                if a and b:
                    per_round.append(round(a / b, 2))
            ratios[key] = {"per_round": per_round, "median": med(per_round)}
        out["frame_time_ratio_old_over_new"] = ratios
    return out


def table(results: list[dict]) -> str:
    head = "| nodes | build | open median (ms) | view | zoom | DOM nodes / blocks / LOD layer | fps | mean ms | p50 | p95 | max | load |"
    rows = [head, "|" + "---|" * 12]
    for r in results:
        for name, s in r["summary"].items():
            if name == "frame_time_ratio_old_over_new":
                continue
            for key, label in VIEWS:
                v = s["views"][key]
                rows.append(
                    f"| {r['nodes']} | {name} | {s['open_median_ms']} ({', '.join(map(str, s['open_ms']))}) | {label} | "
                    f"{v['zoom']} | {v['cards_in_dom']} / {v['blocks_in_dom']} / {v['lod_layer_nodes']} | {v['fps']} | "
                    f"{v['mean_ms']} | {v['p50_ms']} | {v['p95_ms']} | {v['max_ms']} | "
                    f"{min(v['load'])}–{max(v['load'])} |"
                )
    ratio_rows = [
        f"| {r['nodes']} | {label} | {q['median']} | {', '.join(map(str, q['per_round']))} |"
        for r in results
        if "frame_time_ratio_old_over_new" in r["summary"]
        for key, label in VIEWS
        for q in [r["summary"]["frame_time_ratio_old_over_new"][key]]
    ]
    if ratio_rows:
        rows += [
            "",
            "Mean frame time, old / new (same round):",
            "",
            "| nodes | view | median | per round |",
            "|---|---|---|---|",
        ]
        rows += ratio_rows
    traces = [
        (r["nodes"], x["variant"], x["trace_fit"]) for r in results for x in r["rounds"] if "trace_fit" in x
    ]
    if traces:
        rows += [
            "",
            "Chrome trace of one fit-all pan (self ms on the page's main thread; raster on raster threads):",
            "",
        ]
        for n, name, tr in traces:
            rows.append(
                f"- {n} {name} ({tr['fps_while_tracing']} fps while tracing): {tr['ms']}; top: {tr['top'][:6]}"
            )
    steps = next(iter(results[0]["summary"].values()))["open_breakdown_median_ms"] if results else {}
    rows += [
        "",
        "Open, split (median ms per step; server = in-process snapshot build + JSON encoding):",
        "",
        "| nodes | build | "
        + " | ".join(steps)
        + " | server build + encode | snapshot MB | load before / after |",
        "|" + "---|" * (len(steps) + 5),
    ]
    for r in results:
        srv = r["server_snapshot"]
        for name, s in r["summary"].items():
            if name == "frame_time_ratio_old_over_new":
                continue
            b = s["open_breakdown_median_ms"]
            rows.append(
                f"| {r['nodes']} | {name} | "
                + " | ".join(str(b.get(k, "")) for k in steps)
                + f" | {srv['build_ms']} + {srv['encode_ms']} | {srv['bytes'] / 1e6:.2f} | "
                f"{r['load_before']:.2f} / {r['load_after']:.2f} |"
            )
    return "\n".join(rows)
