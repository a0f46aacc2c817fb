"""bench_live_turn on a tiny canvas: the documented fields, and its reload really rebuilds where compiles run."""

from __future__ import annotations

import json

import pytest
from django.core.management import call_command

from canvasweb.bench import live_turn_bench
from canvasweb.chat import executor
from canvasweb.chat import services as chat_services

pytestmark = pytest.mark.django_db(transaction=True)  # a compile worker reads committed rows only


@pytest.fixture
def processes(settings):
    settings.CANVASWEB = {**settings.CANVASWEB, "COMPILE_MODE": "process", "COMPILE_WORKERS": 1}
    executor.shutdown()
    yield
    executor.shutdown()


def test_bench_live_turn_tiny(tmp_path):
    out = tmp_path / "out"
    call_command(
        "bench_live_turn", "--nodes", "60", "--repeat", "2", "--out", str(out), stdout=open("/dev/null", "w")
    )
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    assert report["format"] == live_turn_bench.REPORT_FORMAT
    assert report["compile_mode"] == "inline"  # the test settings
    (row,) = report["rows"]
    assert row["nodes"] == 60
    for key in ("still_ms", "after_edit_ms", "reload_ms", "move_ms"):
        assert row[key]["p50"] > 0
    assert 8 <= row["statements_per_move"] <= 14
    assert row["cache_estimate_bytes"] > 0
    assert report["targets"] == []  # none of the target sizes in this run
    assert (out / "report.md").read_text(encoding="utf-8").startswith("# Live turn")


def test_forget_drops_the_canvas_in_the_compile_worker_too(processes, canvas, alice, apply):
    apply(alice, {"type": "node.create", "node": {"content": "the build server is in Oslo", "x": 0, "y": 0}})
    executor.run(executor.worker_info, key=canvas.pk)  # start the worker before measuring it
    executor.run(
        chat_services.context_preview,
        user=alice,
        canvas_id=canvas.pk,
        text="where?",
        viewport=None,
        key=canvas.pk,
    )
    _, held = executor.run(live_turn_bench._held_in_this_process, canvas.pk, key=canvas.pk)
    assert held is not None and held > 0  # the worker holds the canvas, this process does not

    live_turn_bench._forget(canvas.pk)

    _, held = executor.run(live_turn_bench._held_in_this_process, canvas.pk, key=canvas.pk)
    assert held is None
