"""Plots (matplotlib, imported only here): recall and tokens per strategy and budget, and recall per pattern."""

from __future__ import annotations

from pathlib import Path

from .strategies import STRATEGIES

COLORS = {
    "full": "#6c757d",
    "window": "#e76f51",
    "summary": "#f4a261",
    "canvas": "#2a9d8f",
    "canvas+capture": "#264653",
    "naive-canvas": "#9b5de5",
    "bm25-history": "#d62828",
}
STYLES = {"full": "--", "naive-canvas": ":", "bm25-history": "-."}


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def write_plots(report: dict, out: Path) -> list[Path]:
    """recall_vs_budget.png, tokens_per_strategy.png, drift.png (both plus stale+leak) and recall_per_pattern.png."""
    plt = _pyplot()

    rows = report["rows"]
    budgets = report["budgets"]
    strategies = [s for s in STRATEGIES if any(r["strategy"] == s for r in rows)]
    colors, styles = COLORS, STYLES

    def series(strategy: str, key: str) -> list[float]:
        by_b = {r["budget"]: r.get(key) for r in rows if r["strategy"] == strategy}
        values = [by_b.get(b) for b in budgets]
        return [float("nan") if v is None else v for v in values]

    def recall_axes(ax, key: str, title: str) -> None:
        for s in strategies:
            ax.plot(
                budgets,
                [v * 100 for v in series(s, key)],
                marker="o",
                label=s,
                color=colors.get(s),
                linestyle=styles.get(s, "-"),
            )
        ax.set_xscale("log", base=2)
        ax.set_xticks(budgets)
        ax.set_xticklabels([str(b) for b in budgets])
        ax.set_ylim(-3, 103)
        ax.set_xlabel("token budget")
        ax.set_ylabel("% of probes")
        ax.set_title(title)
        ax.grid(True, alpha=0.3)

    def tokens_axes(ax) -> None:
        width = 0.8 / max(1, len(budgets))
        xs = range(len(strategies))
        for j, b in enumerate(budgets):
            vals = [
                next((r["tokens_mean"] for r in rows if r["strategy"] == s and r["budget"] == b), 0) or 0
                for s in strategies
            ]
            ax.bar(
                [x + (j - (len(budgets) - 1) / 2) * width for x in xs], vals, width=width, label=f"budget {b}"
            )
        ax.set_xticks(list(xs))
        ax.set_xticklabels(strategies, rotation=25, ha="right")
        ax.set_ylabel("mean prompt tokens")
        ax.set_title("Prompt tokens per strategy")
        ax.grid(True, axis="y", alpha=0.3)
        ax.legend(fontsize=8)

    subtitle = f"{report['scenario_count']} scenarios, {report['probe_count']} probes"
    paths = []
    fig, ax = plt.subplots(figsize=(6.5, 4.5))
    recall_axes(ax, "recall", f"In-prompt recall vs budget ({subtitle})")
    ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    paths.append(out / "recall_vs_budget.png")
    fig.savefig(paths[-1], dpi=120)
    plt.close(fig)

    fig, ax = plt.subplots(figsize=(6.5, 4.5))
    tokens_axes(ax)
    fig.tight_layout()
    paths.append(out / "tokens_per_strategy.png")
    fig.savefig(paths[-1], dpi=120)
    plt.close(fig)

    fig, axes = plt.subplots(1, 3, figsize=(16, 4.8))
    recall_axes(axes[0], "recall", "In-prompt recall (all expected strings arrive)")
    recall_axes(axes[1], "stale_leak_rate", "Stale + leak (a forbidden string arrives)")
    axes[0].legend(fontsize=8, loc="lower right")
    tokens_axes(axes[2])
    fig.suptitle(f"Drift benchmark: {subtitle}")
    fig.tight_layout()
    paths.append(out / "drift.png")
    fig.savefig(paths[-1], dpi=110)
    plt.close(fig)
    if report.get("rows_by_tag"):
        paths.append(write_pattern_plot(report, out / "recall_per_pattern.png"))
    return paths


def write_pattern_plot(report: dict, path: Path) -> Path:
    """Per probe tag: grouped bars per strategy; in-prompt recall (left) and stale+leak (right), a row per budget."""
    plt = _pyplot()
    tags = list(report["rows_by_tag"])
    budgets = report["budgets"]
    strategies = [s for s in STRATEGIES if any(r["strategy"] == s for r in report["rows"])]
    panel_width = max(5.0, 0.6 * len(tags) + 1.5)
    fig, axes = plt.subplots(
        len(budgets), 2, figsize=(2 * panel_width, 3.2 * len(budgets) + 1.0), squeeze=False, sharey=True
    )
    width = 0.8 / max(1, len(strategies))
    for row, budget in enumerate(budgets):
        for col, (key, label) in enumerate(
            (("recall", "in-prompt recall %"), ("stale_leak_rate", "stale+leak %"))
        ):
            ax = axes[row][col]
            for j, s in enumerate(strategies):
                vals = []
                for tag in tags:
                    r = next(
                        (
                            r
                            for r in report["rows_by_tag"][tag]
                            if r["strategy"] == s and r["budget"] == budget
                        ),
                        None,
                    )
                    vals.append(r[key] * 100 if r and r[key] is not None else 0.0)
                ax.bar(
                    [i + (j - (len(strategies) - 1) / 2) * width for i in range(len(tags))],
                    vals,
                    width=width,
                    label=s,
                    color=COLORS.get(s),
                )
            ax.set_xticks(range(len(tags)))
            ax.set_xticklabels(
                [f"{t} ({report['tags'][t]})" for t in tags], rotation=30, ha="right", fontsize=7
            )
            ax.set_ylim(0, 105)
            ax.grid(True, axis="y", alpha=0.3)
            ax.set_title(f"{label[:-2]} @ {budget} tokens", fontsize=9)
            if col == 0:
                ax.set_ylabel(label)
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(
        handles,
        labels,
        loc="upper center",
        ncol=len(strategies),
        fontsize=8,
        frameon=False,
        bbox_to_anchor=(0.5, 0.995),
    )
    fig.suptitle(
        f"Per pattern (probe tag, probes in brackets): {report['scenario_count']} scenarios, "
        f"{report['probe_count']} probes",
        y=0.965,
        fontsize=10,
    )
    fig.tight_layout(rect=(0, 0, 1, 0.94))
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
