"""bench_sync with two clients and five ops: its own Redis and two Daphne processes, a report, no lost acks.

Needs only redis-server installed (the command starts its own). Uses Postgres when TEST_DATABASE_URL is set,
else a temporary SQLite file. Latency goals are never asserted here.
"""

from __future__ import annotations

import json
import os
import shutil
import sys

import pytest
from django.core.management import CommandError, call_command

from canvasweb.bench import sync_bench

pytestmark = [pytest.mark.crossprocess]


def _run_bench(out, *args: str) -> dict:
    if shutil.which("redis-server") is None:
        if os.environ.get("CI"):
            pytest.fail("redis-server is not installed")
        pytest.skip("redis-server is not installed (scripts/setup.sh installs it)")
    call_command(
        "bench_sync",
        "--clients",
        "2",
        *args,
        "--out",
        str(out),
        "--no-progress",
        stdout=open("/dev/null", "w"),
        stderr=open("/dev/null", "w"),
    )
    return json.loads((out / "report.json").read_text(encoding="utf-8"))


def test_bench_sync_tiny(tmp_path):
    out = tmp_path / "out"
    report = _run_bench(out, "--ops", "5", "--rate", "20", "--paced-seconds", "0.5", "--warmup", "1")
    assert report["format"] == sync_bench.REPORT_FORMAT
    phases = [(r["clients"], r["phase"], r["paced_rate"]) for r in report["rows"]]
    assert phases == [(2, "paced", 20.0), (2, "saturated", None)]
    for row in report["rows"]:
        assert row["ops_sent"] == 10 and row["acked"] == 10
        assert row["lost_acked_ops"] == 0 and row["committed_but_not_acked"] == 0
        assert row["fanout_samples"] == 10 and row["deliveries_missed"] == 0
        assert 0 <= row["deliveries_late"] <= row["fanout_samples"]
        assert 0 < row["fanout_p50_ms"] <= row["fanout_p95_ms"] <= row["fanout_p99_ms"]
        assert row["committed_ops_per_s"] > 0
    lost = next(t for t in report["targets"] if t["name"].startswith("lost acknowledged"))
    assert lost["met"] is True
    assert (out / "report.md").read_text(encoding="utf-8").startswith("# Real-time fan-out")


def test_bench_sync_window_adds_a_pipelined_phase_for_app_and_relay(tmp_path):
    out = tmp_path / "out"
    report = _run_bench(
        out, "--ops", "6", "--phases", "saturated", "--window", "3", "--warmup", "0", "--floor"
    )
    assert report["window"] == 3
    assert [(r["phase"], r["window"]) for r in report["rows"]] == [("saturated", 1), ("pipelined", 3)]
    for row in report["rows"]:
        assert row["ops_sent"] == 12 and row["acked"] == 12
        assert row["lost_acked_ops"] == 0 and row["deliveries_missed"] == 0
    assert [(r["phase"], r["window"]) for r in report["floor_rows"]] == [("saturated", 1), ("pipelined", 3)]
    assert all(r["acked"] == 12 for r in report["floor_rows"])
    assert [(r["phase"], r["window"]) for r in report["floor"]] == [("saturated", 1), ("pipelined", 3)]
    assert "| 2 | pipelined w3 |" in (out / "report.md").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    "args",
    [["--phases", "pipelined"], ["--window", "0"], ["--phases", "paced,pipelined", "--window", "1"]],
)
def test_bench_sync_refuses_a_pipelined_phase_without_a_window(args):
    with pytest.raises(CommandError, match="window"):
        call_command("bench_sync", "--clients", "2", *args, stdout=open("/dev/null", "w"))


def test_a_snapshot_covers_the_deliveries_at_or_before_its_revision():
    from canvasweb.bench.sync.clients import PhaseState
    from canvasweb.bench.sync.phases import by_snapshot

    phase = PhaseState(name="pipelined")
    # client 0 sent three ops (revisions 10, 11, 12); client 1 got the first as an event, then a
    # snapshot at revision 11; client 2 got nothing.
    for k, revision in enumerate((10, 11, 12)):
        cid = f"op{k}"
        phase.sent[cid] = (0, 0.0)
        phase.acked[cid] = 1.0
        phase.ack_revision[cid] = revision
    phase.delivered.add(("op0", 1))
    assert by_snapshot(phase) == 0
    phase.snapshot_revision[1] = 11
    assert by_snapshot(phase) == 1  # op1 for client 1; op0 was delivered, op2 is after the snapshot
    phase.snapshot_revision[0] = 12  # a sender's own ops are never counted
    assert by_snapshot(phase) == 1


def test_bench_sync_on_one_server_runs_the_app_and_the_relay_on_one_process(tmp_path):
    out = tmp_path / "out"
    report = _run_bench(
        out, "--ops", "4", "--phases", "saturated", "--warmup", "0", "--floor", "--servers", "1"
    )
    assert report["servers"] == 1
    for row in report["rows"] + report["floor_rows"] + report["lossless_floor_rows"]:
        assert row["acked"] == 8 and row["deliveries_missed"] == 0
    (app,), (relay,), (lossless,) = report["rows"], report["floor_rows"], report["lossless_floor_rows"]
    assert (relay["server"], lossless["server"]) == ("relay", "relay-lossless")
    (floor,) = report["floor"]
    assert floor["ratio_vs_relay"] == round(app["committed_ops_per_s"] / relay["committed_ops_per_s"], 2)
    assert floor["ratio_vs_lossless_relay"] == round(
        app["committed_ops_per_s"] / lossless["committed_ops_per_s"], 2
    )
    assert floor["lossless_relay_missed"] == 0
    if sys.platform.startswith("linux"):  # the servers' CPU is read from /proc
        assert all(r["server_cpu_ms_per_op"] > 0 for r in (app, relay, lossless))
        assert all(0 < r["server_loop_cpu_ms_per_op"] <= r["server_cpu_ms_per_op"] for r in (app, relay))
    assert (
        (out / "report.md")
        .read_text(encoding="utf-8")
        .splitlines()[2]
        .startswith("One Daphne process + Redis")
    )


def test_bench_sync_refuses_zero_servers():
    with pytest.raises(CommandError, match="--servers"):
        call_command("bench_sync", "--clients", "2", "--servers", "0", stdout=open("/dev/null", "w"))
