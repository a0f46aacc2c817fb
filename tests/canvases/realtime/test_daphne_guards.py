"""The slow-client rule in daphne_guards.check, on a fake Twisted transport (no network)."""

from __future__ import annotations

import pytest

from canvasweb.canvases.realtime import daphne_guards

KIB = 1024
MIB = 1024 * KIB


class FakeTransport:
    def __init__(self):
        self.dataBuffer, self.offset, self._tempDataLen = b"", 0, 0

    def queue(self, n: int):
        self._tempDataLen += n

    def drain(self, n: int):
        self._tempDataLen = max(0, self._tempDataLen - n)


class FakeProtocol:
    def __init__(self):
        self.transport, self.client_addr, self.dropped = FakeTransport(), "test", False

    def dropConnection(self, abort=False):
        self.dropped = abort


@pytest.fixture
def limits(settings):
    settings.CANVASWEB = {
        **settings.CANVASWEB,
        "WS_SEND_BUFFER_SOFT_BYTES": 1 * MIB,
        "WS_SEND_BUFFER_HARD_BYTES": 16 * MIB,
        "WS_SEND_STALL_SECONDS": 10,
    }


def send(protocol, n, now):
    protocol.transport.queue(n)
    return daphne_guards.check(protocol, frame_bytes=n, now=now)


def test_a_client_that_reads_nothing_is_cut_after_the_stall_window(limits):
    protocol = FakeProtocol()
    assert not send(protocol, 2 * MIB, now=0.0)
    for t in range(1, 11):
        assert not send(protocol, 10 * KIB, now=float(t)), t
    assert send(protocol, 10 * KIB, now=10.5)
    assert protocol.dropped and protocol._canvasweb_cut


def test_a_slow_client_that_keeps_reading_is_never_stalled(limits):
    protocol = FakeProtocol()
    send(protocol, 4 * MIB, now=0.0)
    for t in range(
        1, 60
    ):  # reads 100 KiB a second, receives 90 KiB a second: backlog above soft for a minute
        protocol.transport.drain(100 * KIB)
        assert not send(protocol, 90 * KIB, now=float(t)), t
    assert not protocol.dropped


def test_one_frame_larger_than_the_hard_limit_is_sent(limits):
    protocol = FakeProtocol()
    assert not send(protocol, 40 * MIB, now=0.0)  # e.g. the snapshot of a very large canvas
    assert not protocol.dropped


def test_a_backlog_over_the_hard_limit_cuts_at_once(limits):
    protocol = FakeProtocol()
    assert not send(protocol, 17 * MIB, now=0.0)
    assert send(protocol, 1 * KIB, now=0.1)


def test_draining_below_the_soft_limit_resets_everything(limits):
    protocol = FakeProtocol()
    send(protocol, 2 * MIB, now=0.0)
    protocol.transport.drain(2 * MIB)
    assert not send(protocol, 1 * KIB, now=9.0)
    assert not send(protocol, 2 * MIB, now=15.0)
    assert not send(protocol, 1 * KIB, now=24.0)
    assert send(protocol, 1 * KIB, now=25.5)


class FakeAutobahnProtocol:
    """The options Autobahn's factory copies onto every protocol (Daphne sets 1 MiB)."""

    def __init__(self):
        self.maxMessagePayloadSize = self.maxFramePayloadSize = MIB
        self.failByDrop = True
        self.closeHandshakeTimeout = 1


def test_connection_limits_refuse_big_frames_with_a_close_frame_and_wait_for_the_reply(settings):
    settings.CANVASWEB = {
        **settings.CANVASWEB,
        "WS_MAX_FRAME_BYTES": 64 * KIB,
        "WS_CLOSE_HANDSHAKE_SECONDS": 10,
    }
    protocol = FakeAutobahnProtocol()
    daphne_guards.apply_connection_limits(protocol)
    assert protocol.maxMessagePayloadSize == protocol.maxFramePayloadSize == 64 * KIB
    assert protocol.failByDrop is False  # a close frame with 1009, not a dropped connection
    # Autobahn's 1 s ends in an abort whose RST can discard the 1009 a busy client has not read.
    assert protocol.closeHandshakeTimeout == 10


def test_a_frame_limit_above_daphnes_keeps_daphnes(settings):
    settings.CANVASWEB = {**settings.CANVASWEB, "WS_MAX_FRAME_BYTES": 4 * MIB}
    protocol = FakeAutobahnProtocol()
    daphne_guards.apply_connection_limits(protocol)
    assert protocol.maxMessagePayloadSize == MIB
