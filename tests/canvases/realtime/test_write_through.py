"""Write-through on Daphne's TCP transports (realtime/write_through.py), on real loopback sockets and a
fake reactor that records which descriptors are registered for writing (no event loop)."""

from __future__ import annotations

import errno
import socket

import pytest
from twisted.internet import main, protocol, tcp

from canvasweb.canvases.realtime import daphne_guards, write_through


class FakeReactor:
    def __init__(self):
        self.writers: set = set()
        self.registrations = 0

    def addWriter(self, writer):
        self.registrations += 1
        self.writers.add(writer)

    def removeWriter(self, writer):
        self.writers.discard(writer)

    def addReader(self, reader):
        pass

    def removeReader(self, reader):
        pass


class CountingSocket:
    """The real socket, with its sends counted, or failed with `error` when set."""

    def __init__(self, sock, error: OSError | None = None):
        self.sock, self.error, self.sends = sock, error, 0

    def send(self, data):
        self.sends += 1
        if self.error is not None:
            raise self.error
        return self.sock.send(data)

    def __getattr__(self, name):
        return getattr(self.sock, name)


@pytest.fixture
def pair():
    listener = socket.create_server(("127.0.0.1", 0))
    client = socket.create_connection(listener.getsockname())
    server, address = listener.accept()
    listener.close()
    reactor = FakeReactor()
    transport = tcp.Server(server, protocol.Protocol(), address, None, 0, reactor)
    transport.connected = 1
    client.settimeout(5)
    yield transport, client, reactor
    client.close()
    server.close()


def received(client, n):
    data = b""
    while len(data) < n:
        chunk = client.recv(1 << 20)
        assert chunk, "connection closed early"
        data += chunk
    return data


def pending(transport):
    return len(transport.dataBuffer) - transport.offset + transport._tempDataLen


def drain(transport, client, n):
    """Let the reactor's doWrite run and the peer read, until the peer has n bytes."""
    data = b""
    while len(data) < n:
        if pending(transport):
            assert transport.doWrite() is None
        client.settimeout(0.05)
        try:
            data += client.recv(1 << 20)
        except TimeoutError:
            pass
    return data


def test_a_frame_on_an_empty_buffer_goes_out_without_a_reactor_turn(pair):
    transport, client, reactor = pair
    assert write_through.enable(transport)
    transport.write(b"frame one")
    transport.write(b"frame two")
    assert pending(transport) == 0
    assert reactor.registrations == 0 and not reactor.writers  # no epoll register/unregister
    assert received(client, 18) == b"frame oneframe two"


def test_a_partial_send_queues_the_rest_and_later_frames_keep_their_order(pair):
    transport, client, reactor = pair
    transport.socket.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 16 * 1024)
    client.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 16 * 1024)
    write_through.enable(transport)
    big = bytes(range(256)) * 16 * 1024  # 4 MiB: more than the kernel takes at once
    transport.write(big)
    left = pending(transport)
    assert 0 < left < len(big)  # part went out at once, the rest is Twisted's
    assert reactor.writers == {transport}
    counting = transport.socket = CountingSocket(transport.socket)
    transport.write(b"tail")  # bytes are queued: it must not jump ahead of them
    assert counting.sends == 0 and pending(transport) == left + 4
    data = drain(transport, client, len(big) + 4)
    assert data == big + b"tail"
    assert not reactor.writers  # Twisted unregistered once the queue emptied
    transport.write(b"again")  # empty queue again: straight out
    assert pending(transport) == 0 and received(client, 5) == b"again"


def test_eagain_leaves_the_frame_to_twisteds_buffer(pair):
    transport, client, reactor = pair
    write_through.enable(transport)
    real = transport.socket
    counting = transport.socket = CountingSocket(real, BlockingIOError(errno.EAGAIN, "try again"))
    transport.write(b"frame")
    assert counting.sends == 1  # tried once, at once
    assert pending(transport) == 5 and reactor.writers == {transport}
    transport.socket = real
    assert drain(transport, client, 5) == b"frame"


@pytest.mark.parametrize(
    "error", [ConnectionResetError(errno.ECONNRESET, "reset"), BrokenPipeError(errno.EPIPE, "pipe")]
)
def test_a_send_error_is_left_to_twisteds_own_write_path(pair, error):
    transport, _client, reactor = pair
    write_through.enable(transport)
    counting = transport.socket = CountingSocket(transport.socket, error)
    transport.write(b"frame")  # does not raise; the frame waits in the buffer
    assert counting.sends == 1
    assert pending(transport) == 5 and reactor.writers == {transport}
    # The reactor's doWrite meets the same error and reports the connection lost, as without the patch.
    assert transport.doWrite() is main.CONNECTION_LOST


def test_a_closing_or_closed_connection_is_left_to_twisted(pair):
    transport, _client, _reactor = pair
    write_through.enable(transport)
    counting = transport.socket = CountingSocket(transport.socket)
    transport.disconnecting = True  # loseConnection() was called: Twisted flushes, then closes
    transport.write(b"frame")
    assert counting.sends == 0 and pending(transport) == 5
    transport.connected = 0
    transport.write(b"more")  # dropped, as Twisted drops writes after the connection is gone
    assert counting.sends == 0 and pending(transport) == 5


def test_non_bytes_still_raise(pair):
    transport, _client, _reactor = pair
    write_through.enable(transport)
    with pytest.raises(TypeError):
        transport.write("text")  # type: ignore[arg-type]


def test_tls_and_other_transports_are_left_alone(pair):
    transport, _client, _reactor = pair
    transport.TLS = True  # startTLS was called: bytes must go through the TLS layer
    assert not write_through.enable(transport)
    assert "write" not in vars(transport)
    assert not write_through.enable(None)

    class NotTcp:
        TLS = False

    other = NotTcp()
    assert not write_through.enable(other)
    assert "write" not in vars(other)


class FakeAutobahnProtocol:
    def __init__(self, transport):
        self.transport = transport
        self.maxMessagePayloadSize = self.maxFramePayloadSize = 0
        self.failByDrop = True
        self.closeHandshakeTimeout = 1


def test_daphne_connections_get_it_unless_turned_off(pair, settings):
    transport, client, reactor = pair
    settings.CANVASWEB = {**settings.CANVASWEB, "WS_WRITE_THROUGH": False}
    daphne_guards.apply_connection_limits(FakeAutobahnProtocol(transport))
    assert "write" not in vars(transport)
    settings.CANVASWEB = {**settings.CANVASWEB, "WS_WRITE_THROUGH": True}
    daphne_guards.apply_connection_limits(FakeAutobahnProtocol(transport))
    transport.write(b"frame")
    assert reactor.registrations == 0 and received(client, 5) == b"frame"
    write_through.disable(transport)
    transport.write(b"frame")
    assert reactor.writers == {transport}  # back to Twisted's buffered write
