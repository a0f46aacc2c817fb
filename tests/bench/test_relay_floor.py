"""The two floors of `bench_sync --floor` (bench/relay_asgi.py): the lossy relay acks at once, the
lossless one acks through its own copy of the group message; the report's ratios come from the rows."""

from __future__ import annotations

import json

import pytest
from channels.layers import channel_layers
from channels.testing import WebsocketCommunicator

from canvasweb.bench.sync.report import floor_ratios, floor_targets


@pytest.fixture
def memory_layer(settings):
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    channel_layers.backends.clear()
    yield
    channel_layers.backends.clear()


async def _connect(app, canvas_id: int) -> WebsocketCommunicator:
    comm = WebsocketCommunicator(app, f"/ws/canvases/{canvas_id}/")
    connected, _ = await comm.connect()
    assert connected
    await comm.send_to(text_data=json.dumps({"type": "hello"}))
    assert json.loads(await comm.receive_from())["type"] == "welcome"
    assert json.loads(await comm.receive_from())["type"] == "snapshot"
    return comm


def _op(cid: str) -> str:
    return json.dumps({"type": "op", "client_op_id": cid, "op": {"type": "node.move", "id": "n", "x": 1}})


@pytest.mark.django_db  # Channels' dispatch closes old database connections around each message
@pytest.mark.parametrize("lossless", [False, True])
async def test_relay_acks_every_op_and_relays_it_to_the_others(memory_layer, monkeypatch, lossless):
    monkeypatch.setenv("CANVASWEB_RELAY_LOSSLESS", "1" if lossless else "0")
    from canvasweb.bench.relay_asgi import application

    sender, other = await _connect(application, 7), await _connect(application, 7)
    try:
        await sender.send_to(text_data=_op("c1"))
        got = {json.loads(await sender.receive_from())["type"]}
        if not lossless:  # the lossy relay also forwards the sender's own change (clients skip it)
            got.add(json.loads(await sender.receive_from())["type"])
        assert got == ({"ack"} if lossless else {"ack", "change"})
        change = json.loads(await other.receive_from())
        assert (change["type"], change["client_op_id"]) == ("change", "c1")
        # Lossless: the ack was the sender's copy of the group message, so nothing else is queued.
        assert await sender.receive_nothing(timeout=0.2) is True
    finally:
        await sender.disconnect()
        await other.disconnect()


def _row(clients: int, phase: str, ops: float, missed: int, p50: float = 10.0) -> dict:
    return {
        "clients": clients,
        "phase": phase,
        "paced_rate": None,
        "committed_ops_per_s": ops,
        "fanout_p50_ms": p50,
        "fanout_p99_ms": 2 * p50,
        "ack_p50_ms": 5.0,
        "deliveries_missed": missed,
    }


def test_both_floor_ratios_are_computed_from_the_rows_and_the_lossless_one_must_drop_nothing():
    app = [_row(10, "saturated", 600.0, 0), _row(50, "saturated", 480.0, 0)]
    lossy = [_row(10, "saturated", 800.0, 0), _row(50, "saturated", 800.0, 62_000)]
    lossless = [_row(10, "saturated", 750.0, 0), _row(50, "saturated", 400.0, 3)]
    ten, fifty = floor_ratios(app, lossy, lossless)
    assert (ten["ratio_vs_relay"], ten["ops_ratio"], ten["ratio_vs_lossless_relay"]) == (0.75, 0.75, 0.8)
    assert (fifty["ratio_vs_relay"], fifty["ratio_vs_lossless_relay"]) == (0.6, 1.2)
    assert (fifty["relay_missed"], fifty["lossless_relay_missed"]) == (62_000, 3)
    assert fifty["lossless_relay_ops_per_s"] == 400.0
    targets = {t["name"]: t for t in floor_targets([ten, fifty])}
    assert targets["saturated ops/s vs lossless relay @ 10 clients"]["met"] is True
    assert targets["saturated ops/s vs relay (lossy: drops) @ 50 clients"]["met"] is False
    # 1.2 of a relay that missed deliveries is no floor: not met, and said so.
    missed = [t for t in targets.values() if "NOT a floor" in t["name"]]
    assert [(t["value"], t["met"]) for t in missed] == [(1.2, False)]


def test_without_a_lossless_run_only_the_lossy_ratio_is_given():
    (row,) = floor_ratios([_row(10, "saturated", 600.0, 0)], [_row(10, "saturated", 800.0, 5)])
    assert row["ratio_vs_relay"] == 0.75 and row["ratio_vs_lossless_relay"] is None
    assert not any("lossless" in t["name"] for t in floor_targets([row]))
