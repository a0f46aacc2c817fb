"""bench_sync's report: the targets, the app-vs-relay ratios, the tables and the Markdown."""

from __future__ import annotations

from collections.abc import Sequence

TARGETS = {"fanout_p50_ms": 15.0, "fanout_p99_ms": 80.0, "committed_ops_per_s": 500.0, "lost_acked_ops": 0}


def _ratio(a: float | None, b: float | None) -> float | None:
    return round(a / b, 2) if a is not None and b else None


def floor_ratios(
    rows: Sequence[dict], relay_rows: Sequence[dict], lossless_rows: Sequence[dict] = ()
) -> list[dict]:
    """App / relay per (clients, phase): ops/s, fan-out p50 and p99, missed deliveries of all.

    Two floors: the lossy relay (acks at once and drops what its sockets do not take in time:
    `ops_ratio`, also as `ratio_vs_relay`) and the lossless relay (acks behind its fan-out and drops
    nothing: `ratio_vs_lossless_relay`), each with its own missed deliveries."""

    def key(r: dict) -> tuple:
        return (r["clients"], r["phase"], r.get("paced_rate"))

    relay = {key(r): r for r in relay_rows}
    lossless = {key(r): r for r in lossless_rows}
    out = []
    for r in rows:
        f = relay.get(key(r))
        if f is None:
            continue
        g = lossless.get(key(r), {})

        def ratio(key: str, r: dict = r, f: dict = f) -> float | None:
            return _ratio(r.get(key), f.get(key))

        out.append(
            {
                "clients": r["clients"],
                "phase": r["phase"],
                "paced_rate": r.get("paced_rate"),
                "window": r.get("window", 1),
                "app_ops_per_s": r["committed_ops_per_s"],
                "relay_ops_per_s": f["committed_ops_per_s"],
                "ops_ratio": ratio("committed_ops_per_s"),
                "app_fanout_p50_ms": r["fanout_p50_ms"],
                "relay_fanout_p50_ms": f["fanout_p50_ms"],
                "fanout_p50_ratio": ratio("fanout_p50_ms"),
                "app_fanout_p99_ms": r["fanout_p99_ms"],
                "relay_fanout_p99_ms": f["fanout_p99_ms"],
                "fanout_p99_ratio": ratio("fanout_p99_ms"),
                "app_ack_p50_ms": r["ack_p50_ms"],
                "relay_ack_p50_ms": f["ack_p50_ms"],
                "app_missed": r["deliveries_missed"],
                "relay_missed": f["deliveries_missed"],
                "ratio_vs_relay": ratio("committed_ops_per_s"),
                "lossless_relay_ops_per_s": g.get("committed_ops_per_s"),
                "ratio_vs_lossless_relay": _ratio(r["committed_ops_per_s"], g.get("committed_ops_per_s")),
                "lossless_relay_fanout_p50_ms": g.get("fanout_p50_ms"),
                "fanout_p50_ratio_vs_lossless": _ratio(r["fanout_p50_ms"], g.get("fanout_p50_ms")),
                "lossless_relay_ack_p50_ms": g.get("ack_p50_ms"),
                "lossless_relay_missed": g.get("deliveries_missed"),
                "app_server_cpu_ms_per_op": r.get("server_cpu_ms_per_op"),
                "relay_server_cpu_ms_per_op": f.get("server_cpu_ms_per_op"),
                "lossless_relay_server_cpu_ms_per_op": g.get("server_cpu_ms_per_op"),
            }
        )
    return out


def phase_label(row: dict) -> str:
    """`paced 25/s`, `saturated`, `pipelined w8` (w: unacked ops per client in flight)."""
    if row.get("paced_rate"):
        return f"{row['phase']} {row['paced_rate']:g}/s"
    if row["phase"] == "pipelined":
        return f"pipelined w{row.get('window', 1)}"
    return row["phase"]


def floor_targets(ratios: Sequence[dict]) -> list[dict]:
    out = []
    for r in ratios:
        if r["phase"] in ("saturated", "pipelined") and r["clients"] in (10, 50):
            out.append(
                {
                    "name": f"{phase_label(r)} ops/s vs relay (lossy: drops) @ {r['clients']} clients",
                    "value": r["ops_ratio"],
                    "target": ">= 0.7",
                    "met": r["ops_ratio"] is not None and r["ops_ratio"] >= 0.7,
                }
            )
            if r.get("lossless_relay_ops_per_s") is not None:
                lossless_ok = r.get("lossless_relay_missed") == 0
                out.append(
                    {
                        "name": f"{phase_label(r)} ops/s vs lossless relay @ {r['clients']} clients"
                        + ("" if lossless_ok else " (NOT a floor: the lossless relay missed deliveries)"),
                        "value": r["ratio_vs_lossless_relay"],
                        "target": ">= 0.7",
                        "met": lossless_ok
                        and r["ratio_vs_lossless_relay"] is not None
                        and r["ratio_vs_lossless_relay"] >= 0.7,
                    }
                )
            out.append(
                {
                    "name": f"missed deliveries, {phase_label(r)} @ {r['clients']} clients",
                    "value": r["app_missed"],
                    "target": "== 0",
                    "met": r["app_missed"] == 0,
                }
            )
        if r["phase"] == "paced" and r["clients"] >= 50:
            out.append(
                {
                    "name": f"paced fan-out p50 vs relay @ {r['clients']} clients ({r['paced_rate']:g}/s)",
                    "value": r["fanout_p50_ratio"],
                    "target": "<= 1.3",
                    "met": r["fanout_p50_ratio"] is not None and r["fanout_p50_ratio"] <= 1.3,
                }
            )
    return out


FLOOR_COLUMNS = (
    ("clients", "clients"),
    ("phase", "phase"),
    ("app_ops_per_s", "app ops/s"),
    ("relay_ops_per_s", "relay ops/s"),
    ("ops_ratio", "ratio vs relay"),
    ("lossless_relay_ops_per_s", "lossless relay ops/s"),
    ("ratio_vs_lossless_relay", "ratio vs lossless"),
    ("app_fanout_p50_ms", "app fan-out p50"),
    ("relay_fanout_p50_ms", "relay p50"),
    ("fanout_p50_ratio", "ratio"),
    ("app_fanout_p99_ms", "app p99"),
    ("relay_fanout_p99_ms", "relay p99"),
    ("app_missed", "app missed"),
    ("relay_missed", "relay missed"),
    ("lossless_relay_missed", "lossless relay missed"),
)


def floor_table(ratios: Sequence[dict]) -> tuple[list[str], list[list]]:
    rows = []
    for r in ratios:
        r = dict(r, phase=phase_label(r))
        rows.append([r.get(k) for k, _ in FLOOR_COLUMNS])
    return [h for _, h in FLOOR_COLUMNS], rows


def targets(rows: Sequence[dict], *, postgres: bool, warmup: Sequence[dict] = ()) -> list[dict]:
    out = []
    big = [r for r in rows if r["clients"] >= 50]
    for r in big:
        if r["phase"] == "paced":
            out.append(
                {
                    "name": f"fan-out p50 @ {r['clients']} clients (paced {r['paced_rate']:g} ops/s)",
                    "value": r["fanout_p50_ms"],
                    "target": "<= 15 ms",
                    "met": r["fanout_p50_ms"] is not None and r["fanout_p50_ms"] <= 15,
                }
            )
            out.append(
                {
                    "name": f"fan-out p99 @ {r['clients']} clients (paced {r['paced_rate']:g} ops/s)",
                    "value": r["fanout_p99_ms"],
                    "target": "<= 80 ms",
                    "met": r["fanout_p99_ms"] is not None and r["fanout_p99_ms"] <= 80,
                }
            )
    if postgres:
        closed_loop = [r for r in rows if r["phase"] in ("saturated", "pipelined")]
        best = max((r["committed_ops_per_s"] or 0 for r in closed_loop), default=None)
        if best is not None:
            out.append(
                {
                    "name": "committed ops/s on Postgres (best saturated or pipelined run)",
                    "value": best,
                    "target": ">= 500",
                    "met": best >= 500,
                }
            )
    lost = sum(r["lost_acked_ops"] for r in list(rows) + list(warmup))
    out.append(
        {
            "name": "lost acknowledged ops (all runs, warm-up included)",
            "value": lost,
            "target": "== 0",
            "met": lost == 0,
        }
    )
    return out


COLUMNS = (
    ("clients", "clients"),
    ("phase", "phase"),
    ("ops_sent", "ops"),
    ("acked", "acked"),
    ("committed_ops_per_s", "ops/s"),
    ("ack_p50_ms", "ack p50"),
    ("ack_p99_ms", "ack p99"),
    ("fanout_p50_ms", "fan-out p50"),
    ("fanout_p95_ms", "p95"),
    ("fanout_p99_ms", "p99"),
    ("fanout_cross_process_p50_ms", "cross-proc p50"),
    ("deliveries_missed", "missed deliveries"),
    ("deliveries_late", "late (catch-up)"),
    ("deliveries_by_snapshot", "by snapshot"),
    ("errors_total", "errors"),
    ("lost_acked_ops", "lost acked"),
    ("server_cpu_ms_per_op", "server CPU ms/op"),
    ("server_loop_cpu_ms_per_op", "loop CPU ms/op"),
)


def table(rows: Sequence[dict]) -> tuple[list[str], list[list]]:
    out = []
    for r in rows:
        r = dict(
            r,
            errors_total=sum(r["errors"].values()) + sum(r["rejected"].values()) + r["unanswered"],
            phase=phase_label(r),
        )
        out.append([r.get(k) for k, _ in COLUMNS])
    return [h for _, h in COLUMNS], out


def render_markdown(report: dict) -> str:
    from ..common import md_table

    m = report["machine"]
    headers, rows = table(report["rows"])
    lines = [
        "# Real-time fan-out",
        "",
        f"{_servers_phrase(report.get('servers', 2))} + Redis, database: {report['database']}"
        + (f" {report['database_server_version']}" if report.get("database_server_version") else "")
        + f". Paced phases: {', '.join(f'{r:g}' for r in report['rates'])} ops/s in total (all clients "
        f"together) for about {report['paced_seconds']:g} s each; saturated: {report['ops']} ops per client"
        + (
            f", one at a time; pipelined w{report['window']}: the same, up to {report['window']} unacked "
            "in flight per client"
            if report.get("window", 1) > 1
            else ""
        )
        + ". "
        f"Run {report['finished_at']} on {m['cpu_model']} ({m['cpu_count']} cores, {m['ram_gb']} GB RAM, "
        f"load average {m.get('load_average')}); clients, servers, Redis and the database share the machine. "
        f"Times in ms."
        + (
            f" A one-row INSERT + COMMIT on this database takes {report['database_commit_p50_ms']} ms (p50)."
            if report.get("database_commit_p50_ms") is not None
            else ""
        ),
        "",
        md_table(headers, rows, align=["r", "l"] + ["r"] * (len(headers) - 2)),
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
    if report.get("floor"):
        fh, fr = floor_table(report["floor"])
        lines += [
            "## Against the floor (a bare Channels relay, same clients, same Redis, same run)",
            "",
            "The relay acks each op at once and drops what its sockets do not take in time (capacity "
            "200); the lossless relay acks an op when its sender's socket gets it behind the change "
            "frames queued before it, and drops nothing. The app is held to 0 missed deliveries, so the "
            "lossless relay is the like-for-like floor; both ratios are shown.",
            "",
            md_table(fh, fr, align=["r", "l"] + ["r"] * (len(fh) - 2)),
            "",
        ]
    if report.get("notes"):
        lines += ["## Notes", ""] + [f"- {n}" for n in report["notes"]] + [""]
    return "\n".join(lines)


def _servers_phrase(servers: int) -> str:
    return "One Daphne process" if servers == 1 else f"{servers} Daphne processes"
