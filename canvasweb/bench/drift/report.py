"""Aggregation and reports: rows per strategy x budget, per scenario set and per probe tag; JSON and Markdown.

"In-prompt recall" (field `recall`) is the share of probes whose `expect_all`
strings all reach the model's prompt; it says nothing about the answer. With
`--model`, "answer accuracy" is the share of probes whose answer holds every
expected string and no forbidden one.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from canvasweb.chat.context_inputs import TOKEN_CACHE

from ..common import machine_info, md_table, mean, percentile, rnd, started_at
from .run import DriftRun
from .scoring import ProbeMeta
from .strategies import STRATEGIES

REPORT_FORMAT = "drift-bench-report/1"
TARGET_BUDGETS = (1000, 2000)
UNTAGGED = "(untagged)"
TOTAL = "total"


def _rate(flags: Sequence[bool]) -> float | None:
    return (sum(1 for f in flags if f) / len(flags)) if flags else None


def _grouped(run: DriftRun) -> dict[tuple[str, int | None], list[dict]]:
    groups: dict[tuple[str, int | None], list[dict]] = {}
    for r in run.results:
        groups.setdefault((r["strategy"], r["budget"]), []).append(r)
    return groups


def aggregate(
    run: DriftRun, *, metas: Sequence[ProbeMeta] | None = None, groups: dict | None = None
) -> list[dict]:
    """One row per strategy x budget (full: the same numbers on every budget row)."""
    metas = list(metas if metas is not None else run.metas)
    by_id = {m.probe_id: m for m in metas}
    groups = groups if groups is not None else _grouped(run)
    full_tokens = dict(run.full_tokens)
    full_tokens.update({r["probe_id"]: r["tokens"] for r in groups.get(("full", None), ())})
    rows = []
    for strategy in [s for s in STRATEGIES if s in run.options.strategies]:
        for budget in run.options.budgets:
            want_budget = None if strategy == "full" else budget
            rs = [r for r in groups.get((strategy, want_budget), ()) if r["probe_id"] in by_id]
            if not rs:
                continue
            forbid_rs = [r for r in rs if by_id[r["probe_id"]].forbid]
            unplaced_rs = [r for r in rs if by_id[r["probe_id"]].unplaced_expected]
            placed_rs = [r for r in rs if not by_id[r["probe_id"]].unplaced_expected]
            unplaced_forbid_rs = [r for r in rs if by_id[r["probe_id"]].unplaced_forbid]
            unplaced_facts = sum(len(by_id[r["probe_id"]].unplaced_expected) for r in rs)
            unplaced_missing = sum(len(r["unplaced_missing"]) for r in rs)
            tokens = [r["tokens"] for r in rs]
            ref = sum(full_tokens.get(r["probe_id"], 0) for r in rs)
            row = {
                "strategy": strategy,
                "budget": budget,
                "budget_applies": strategy != "full",
                "probes": len(rs),
                "recall": rnd(_rate([r["recall_hit"] for r in rs]), 4),
                "placed_probes": len(placed_rs),
                "recall_placed": rnd(_rate([r["recall_hit"] for r in placed_rs]), 4),
                "stale_leak_rate": rnd(_rate([bool(r["forbid_found"]) for r in rs]), 4),
                "stale_rate": rnd(_rate([bool(r["stale_found"]) for r in rs]), 4),
                "leak_rate": rnd(_rate([bool(r["leak_found"]) for r in rs]), 4),
                "probes_with_forbid": len(forbid_rs),
                "stale_leak_rate_of_forbid_probes": rnd(
                    _rate([bool(r["forbid_found"]) for r in forbid_rs]), 4
                ),
                "unplaced_probes": len(unplaced_rs),
                "unplaced_recall": rnd(_rate([not r["unplaced_missing"] for r in unplaced_rs]), 4),
                "unplaced_facts": unplaced_facts,
                "unplaced_fact_recall": rnd((unplaced_facts - unplaced_missing) / unplaced_facts, 4)
                if unplaced_facts
                else None,
                "unplaced_forbid_probes": len(unplaced_forbid_rs),
                "unplaced_stale_leak_rate": rnd(
                    _rate([bool(r["unplaced_forbid_found"]) for r in unplaced_forbid_rs]), 4
                ),
                "tokens_mean": rnd(mean(tokens), 1),
                "tokens_p95": percentile(tokens, 0.95),
                "tokens_share_of_full": rnd(sum(tokens) / ref, 4) if ref else None,
                "compile_ms_mean": rnd(mean([r["compile_ms"] for r in rs]), 3),
                "wall_ms_mean": rnd(mean([r["wall_ms"] for r in rs]), 3),
                "errors": sum(1 for r in rs if r.get("error")),
            }
            answered = [r["model"] for r in rs if "model" in r]
            if answered:
                row["model_answers"] = len(answered)
                row["model_errors"] = sum(1 for a in answered if a["error"])
                row["answer_accuracy"] = rnd(_rate([a["correct"] for a in answered]), 4)
                row["answer_recall"] = rnd(_rate([a["recall_hit"] for a in answered]), 4)
                row["answer_stale_leak_rate"] = rnd(_rate([bool(a["forbid_found"]) for a in answered]), 4)
            rows.append(row)
    return rows


def targets(rows: Sequence[dict]) -> list[dict]:
    out = []

    def row(strategy: str, budget: int) -> dict | None:
        return next((r for r in rows if r["strategy"] == strategy and r["budget"] == budget), None)

    for budget in TARGET_BUDGETS:
        r = row("canvas", budget)
        if r:
            out.append(
                {
                    "name": f"canvas in-prompt recall @ {budget}",
                    "value": r["recall"],
                    "target": ">= 0.99",
                    "met": r["recall"] is not None and r["recall"] >= 0.99,
                }
            )
            out.append(
                {
                    "name": f"canvas stale+leak @ {budget}",
                    "value": r["stale_leak_rate"],
                    "target": "== 0",
                    "met": r["stale_leak_rate"] == 0,
                }
            )
            if r["recall_placed"] is not None and r["placed_probes"] < r["probes"]:
                out.append(
                    {
                        "name": f"canvas in-prompt recall @ {budget}, probes whose facts are all on the canvas",
                        "value": r["recall_placed"],
                        "target": ">= 0.99 (informational)",
                        "met": r["recall_placed"] >= 0.99,
                    }
                )
            ref = row("bm25-history", budget)
            if ref and ref["recall"] is not None:
                out.append(
                    {
                        "name": f"canvas in-prompt recall @ {budget} vs bm25-history ({ref['recall']})",
                        "value": r["recall"],
                        "target": ">= bm25-history",
                        "met": r["recall"] is not None and r["recall"] >= ref["recall"],
                    }
                )
        r = row("canvas+capture", budget)
        if r and r["unplaced_fact_recall"] is not None:
            out.append(
                {
                    "name": f"canvas+capture never-placed facts recovered @ {budget}",
                    "value": r["unplaced_fact_recall"],
                    "target": ">= 0.90",
                    "met": r["unplaced_fact_recall"] >= 0.90,
                }
            )
    return out


def tag_counts(metas: Sequence[ProbeMeta]) -> dict[str, int]:
    counts = Counter(t for m in metas for t in (m.tags or [UNTAGGED]))
    return dict(sorted(counts.items()))


def build_report(run: DriftRun, *, argv: Sequence[str], database: str, started: str) -> dict:
    groups = _grouped(run)
    rows = aggregate(run, groups=groups)
    by_lang = {
        lang: aggregate(run, metas=[m for m in run.metas if m.lang == lang], groups=groups)
        for lang in sorted({m.lang for m in run.metas})
    }
    by_set = {
        s["label"]: aggregate(run, metas=[m for m in run.metas if m.set == s["label"]], groups=groups)
        for s in run.sets
    }
    by_tag = {
        tag: aggregate(run, metas=[m for m in run.metas if tag in (m.tags or [UNTAGGED])], groups=groups)
        for tag in tag_counts(run.metas)
    }
    return {
        "format": REPORT_FORMAT,
        "benchmark": "drift",
        "started_at": started,
        "finished_at": started_at(),
        "command": " ".join(argv),
        "machine": machine_info(),
        "database": database,
        "token_encoding": TOKEN_CACHE.encoding,
        "budgets": list(run.options.budgets),
        "strategies": list(run.options.strategies),
        "scenario_count": len(run.scenarios),
        "probe_count": len(run.metas),
        "replay_seconds": run.replay_seconds,
        "model": run.model_info or {"requested": False},
        "targets": targets(rows),
        "rows": rows,
        "rows_by_lang": by_lang,
        "sets": run.sets,
        "rows_by_set": by_set,
        "tags": tag_counts(run.metas),
        "rows_by_tag": by_tag,
        "scenarios": run.scenarios,
        "probes": [m.to_dict() for m in run.metas],
        "results": run.results,
    }


# --------------------------------------------------------------------------- tables
ROW_COLUMNS = (
    ("strategy", "strategy"),
    ("budget", "budget"),
    ("probes", "probes"),
    ("recall", "in-prompt recall"),
    ("recall_placed", "in-prompt recall (placed)"),
    ("stale_leak_rate", "stale+leak"),
    ("stale_rate", "stale"),
    ("leak_rate", "leak"),
    ("unplaced_fact_recall", "never-placed recall"),
    ("unplaced_stale_leak_rate", "never-placed stale"),
    ("tokens_mean", "mean tok"),
    ("tokens_p95", "p95 tok"),
    ("tokens_share_of_full", "share of full"),
    ("compile_ms_mean", "compile ms"),
)
PCT_KEYS = {
    "recall",
    "recall_placed",
    "stale_leak_rate",
    "stale_rate",
    "leak_rate",
    "unplaced_fact_recall",
    "unplaced_stale_leak_rate",
    "tokens_share_of_full",
}
MODEL_COLUMNS = (("answer_accuracy", "answer accuracy"), ("answer_stale_leak_rate", "answer stale+leak"))


def _pct(v: float | None) -> str | None:
    return None if v is None else f"{v * 100:.1f} %"


def table_rows(rows: Sequence[dict], *, percent: bool = True) -> tuple[list[str], list[list]]:
    headers = [h for _, h in ROW_COLUMNS]
    model = any("answer_accuracy" in r for r in rows)
    if model:
        headers += [h for _, h in MODEL_COLUMNS]
    out = []
    for r in rows:
        cells = []
        for key, _ in ROW_COLUMNS:
            v = r.get(key)
            if key == "budget" and not r.get("budget_applies", True):
                v = f"({v}) all"
            cells.append(_pct(v) if percent and key in PCT_KEYS else v)
        if model:
            cells += [_pct(r.get(k)) for k, _ in MODEL_COLUMNS]
        out.append(cells)
    return headers, out


def pivot_rows(
    groups: dict[str, list[dict]],
    *,
    counts: dict[str, int] | None = None,
    strategies: Sequence[str],
    budgets: Sequence[int],
) -> tuple[list[str], list[list]]:
    """One line per group x budget; per strategy "in-prompt recall / stale+leak" (and answer accuracy)."""
    model = any("answer_accuracy" in r for rows in groups.values() for r in rows)
    headers = ["group", "probes", "budget", *list(strategies)]
    out = []
    for name, rows in groups.items():
        by_key = {(r["strategy"], r["budget"]): r for r in rows}
        probes = counts.get(name) if counts else max((r["probes"] for r in rows), default=0)
        for budget in budgets:
            cells: list = [name, probes, budget]
            for s in strategies:
                r = by_key.get((s, budget))
                if r is None:
                    cells.append("-")
                    continue
                cell = f"{_pct(r['recall'])} / {_pct(r['stale_leak_rate'])}"
                if model:
                    cell += f" / {_pct(r.get('answer_accuracy')) or '-'}"
                cells.append(cell)
            out.append(cells)
    return headers, out


def report_strategies(report: dict) -> list[str]:
    return [s for s in STRATEGIES if any(r["strategy"] == s for r in report["rows"])]


def render_markdown(report: dict) -> str:
    m = report["machine"]
    lines = [
        "# Drift benchmark",
        "",
        f"{report['scenario_count']} scenarios, {report['probe_count']} probes; budgets "
        f"{', '.join(str(b) for b in report['budgets'])} tokens ({report['token_encoding']}). "
        f"Run {report['finished_at']} on {m['cpu_model']} ({m['cpu_count']} cores, {m['ram_gb']} GB RAM), "
        f"database: {report['database']}; replay and compile took {report.get('replay_seconds')} s.",
        "",
        "*In-prompt recall* = share of probes whose `expect_all` strings all reach the model's prompt (not its "
        "answer); stale+leak = share of probes where any `forbid` string does (stale: a retired value; leak: "
        "text of a node the role may not see). Never-placed = expected strings that are on no canvas node at "
        "probe time (share of those strings that arrive), and forbidden strings on no node (share of their "
        "probes where one arrives). `full` ignores the budget (same numbers on every row). `bm25-history` and "
        "`naive-canvas` are references, not the product.",
        "",
    ]
    headers, rows = table_rows(report["rows"])
    align = ["l", "r"] + ["r"] * (len(headers) - 2)
    lines += [md_table(headers, rows, align=align), ""]
    if report["targets"]:
        lines += [
            "## Targets",
            "",
            md_table(
                ["target", "value", "goal", "met"],
                [
                    [
                        t["name"],
                        _pct(t["value"]) if isinstance(t["value"], float) else t["value"],
                        t["target"],
                        "yes" if t["met"] else "**no**",
                    ]
                    for t in report["targets"]
                ],
                align=["l", "r", "l", "l"],
            ),
            "",
        ]
    strategies = report_strategies(report)
    sets = report.get("sets") or []
    if sets:
        groups = {s["label"]: report["rows_by_set"][s["label"]] for s in sets}
        groups[TOTAL] = report["rows"]
        counts = {s["label"]: s["probes"] for s in sets} | {TOTAL: report["probe_count"]}
        h, rr = pivot_rows(groups, counts=counts, strategies=strategies, budgets=report["budgets"])
        lines += [
            "## Per scenario set",
            "",
            "In-prompt recall / stale+leak"
            + (" / answer accuracy" if report["model"].get("configured") else "")
            + " per `--scenarios` path, and in total.",
            "",
            md_table(h, rr, align=["l", "r", "r"] + ["r"] * len(strategies)),
            "",
        ]
    if report.get("rows_by_tag"):
        h, rr = pivot_rows(
            report["rows_by_tag"], counts=report["tags"], strategies=strategies, budgets=report["budgets"]
        )
        lines += [
            "## Per pattern (probe tags)",
            "",
            "In-prompt recall / stale+leak"
            + (" / answer accuracy" if report["model"].get("configured") else "")
            + " per probe tag. A probe counts under every tag it carries; untagged probes under `(untagged)`.",
            "",
            md_table(h, rr, align=["l", "r", "r"] + ["r"] * len(strategies)),
            "",
            "![In-prompt recall per pattern](recall_per_pattern.png)",
            "",
        ]
    for lang, rows_l in report.get("rows_by_lang", {}).items():
        pick = [
            r
            for r in rows_l
            if r["strategy"] in ("canvas", "canvas+capture", "window", "summary", "bm25-history")
        ]
        if pick and len(report.get("rows_by_lang", {})) > 1:
            h, rr = table_rows(pick)
            lines += [
                f"### {lang or '(no lang)'}",
                "",
                md_table(h, rr, align=["l", "r"] + ["r"] * (len(h) - 2)),
                "",
            ]
    misses = [
        r for r in report["results"] if r["strategy"] in ("canvas", "canvas+capture") and r.get("diagnosis")
    ]
    if misses:
        lines += ["## Canvas-strategy misses", ""]
        for r in misses:
            lines.append(
                f"- `{r['probe_id']}` {r['strategy']} @ {r['budget']}: " + " / ".join(r["diagnosis"])
            )
        lines.append("")
    errs = [(s["id"], e) for s in report["scenarios"] for e in s.get("op_errors", [])]
    if errs:
        lines += ["## Scenario ops the write path refused", ""]
        lines += [f"- `{sid}` turn {e['turn']} {e['op']}: {e['error']}" for sid, e in errs]
        lines.append("")
    cap: Counter = Counter()
    for s in report["scenarios"]:
        cap.update(s.get("capture") or {})
    if cap:
        lines += [
            "## Fact capture (canvas+capture)",
            "",
            ", ".join(f"{k.replace('_', ' ')}: {v}" for k, v in sorted(cap.items())),
            "",
        ]
    model = report["model"]
    if model.get("requested"):
        lines += [
            "## Model answers",
            "",
            (
                f"Model `{model.get('model')}` at {model.get('base_url') or 'api.openai.com'} answered every "
                f"compiled prompt (concurrency {model.get('concurrency')}, timeout {model.get('timeout_s')} s); "
                "see the answer columns above."
                if model.get("configured")
                else f"Skipped: {model.get('skipped')}"
            ),
            "",
        ]
    return "\n".join(lines)
