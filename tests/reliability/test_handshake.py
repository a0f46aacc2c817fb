"""Item 5: the WebSocket handshake refuses bad, missing and `null` Origins and anonymous or expired
sessions before accept, both on the in-process ASGI app and over raw TCP against a real Daphne.
"""

from __future__ import annotations

import asyncio
import http.cookiejar
import json
import socket
import urllib.request
from datetime import timedelta

import pytest
import websockets
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.contrib.auth import get_user_model
from django.contrib.sessions.backends.db import SessionStore
from django.contrib.sessions.models import Session
from django.utils import timezone

from canvasweb.canvases import services
from canvasweb.canvases.models import Node
from canvasweb.testing.fixtures import setup_canvas_in

GOOD_ORIGIN = "http://127.0.0.1"
BAD_ORIGINS = [
    "http://evil.example",
    "null",
    "http://127.0.0.1.evil.example",
    "https://localhost:443@evil.example",
    "file://",
    "",
]


# --- in-process ASGI app --------------------------------------------------------------------------


def _session_cookie_for(user, *, expired: bool = False, deleted: bool = False) -> str:
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY

    store = SessionStore()
    store[SESSION_KEY] = str(user.pk)
    store[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
    store[HASH_SESSION_KEY] = user.get_session_auth_hash()
    store.create()
    if expired:
        Session.objects.filter(session_key=store.session_key).update(
            expire_date=timezone.now() - timedelta(seconds=1)
        )
    if deleted:
        Session.objects.filter(session_key=store.session_key).delete()
    return store.session_key


async def _connects(canvas_id, *, origin, cookie=None, token=None) -> bool:
    from canvasweb.config.asgi import application

    headers = []
    if origin is not None:
        headers.append((b"origin", origin.encode()))
    if cookie is not None:
        headers.append((b"cookie", f"sessionid={cookie}".encode()))
    if token is not None:
        headers.append((b"authorization", f"Token {token}".encode()))
    ws = WebsocketCommunicator(application, f"/ws/canvases/{canvas_id}/", headers=headers)
    connected, _ = await ws.connect(timeout=5)
    await ws.disconnect()
    return connected


@pytest.mark.django_db(transaction=True)
async def test_in_process_handshake_matrix(settings, record_figures):
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}

    def setup():
        User = get_user_model()
        alice = User.objects.create_user(username="hs-alice", password="pass-12345")
        canvas = services.canvas_create(user=alice, name="handshake")
        return (
            alice,
            canvas.pk,
            _session_cookie_for(alice),
            _session_cookie_for(alice, expired=True),
            _session_cookie_for(alice, deleted=True),
        )

    _alice, canvas_id, good, expired, deleted = await database_sync_to_async(setup)()
    assert await _connects(canvas_id, origin="http://localhost", cookie=good), (
        "control: a good session connects"
    )
    refused = []
    for origin in [*BAD_ORIGINS, None]:
        refused.append(not await _connects(canvas_id, origin=origin, cookie=good))
    for cookie in (None, expired, deleted, "not-a-session-key", "x" * 40):
        refused.append(not await _connects(canvas_id, origin="http://localhost", cookie=cookie))
    record_figures("handshake_in_process", {"attempts": len(refused), "refused": sum(refused)})
    assert all(refused), refused
    assert await database_sync_to_async(Node.objects.count)() == 0


# --- real Daphne, raw WebSockets ---------------------------------------------------------------------


def _login_cookie(cluster, username, password="pass-12345") -> str:
    """Log in over HTTP like a browser (CSRF cookie + header) and return the session id."""
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    base = cluster.url(0)
    with opener.open(f"{base}/api/auth/csrf/", timeout=10) as response:
        body = json.loads(response.read())
    token = (
        body.get("csrf_token") or body.get("csrfToken") or next(c.value for c in jar if c.name == "csrftoken")
    )
    request = urllib.request.Request(
        f"{base}/api/auth/login/",
        method="POST",
        data=json.dumps({"username": username, "password": password}).encode(),
        headers={"Content-Type": "application/json", "X-CSRFToken": token, "Referer": base + "/"},
    )
    with opener.open(request, timeout=10) as response:
        assert response.status == 200
    return next(c.value for c in jar if c.name == "sessionid")


async def _raw_status(cluster, canvas_id, *, origin, cookie=None, token=None) -> int:
    headers = {}
    if cookie:
        headers["Cookie"] = f"sessionid={cookie}"
    if token:
        headers["Authorization"] = f"Token {token}"
    try:
        ws = await websockets.connect(
            cluster.ws_url(0, canvas_id), origin=origin, additional_headers=headers, open_timeout=10
        )
    except websockets.InvalidStatus as exc:
        return exc.response.status_code
    await ws.send(json.dumps({"type": "hello", "last_revision": None}))
    assert json.loads(await asyncio.wait_for(ws.recv(), 10))["type"] == "welcome"
    await ws.close()
    return 101


async def test_real_daphne_handshake(sqlite_daphne, record_figures):
    cluster = sqlite_daphne
    data = await asyncio.to_thread(
        setup_canvas_in, cluster, users=["hs-owner", "hs-outsider"], owner="hs-owner"
    )
    canvas_id, token = data["canvas_id"], data["tokens"]["hs-owner"]
    cookie = await asyncio.to_thread(_login_cookie, cluster, "hs-owner")
    assert await _raw_status(cluster, canvas_id, origin=GOOD_ORIGIN, cookie=cookie) == 101
    assert await _raw_status(cluster, canvas_id, origin=GOOD_ORIGIN, token=token) == 101
    results = {}
    for origin in ["http://evil.example", "null", "http://127.0.0.1.evil.example"]:
        results[f"origin {origin}"] = await _raw_status(cluster, canvas_id, origin=origin, cookie=cookie)
        results[f"origin {origin} + token"] = await _raw_status(
            cluster, canvas_id, origin=origin, token=token
        )
    results["no origin"] = await _raw_status(cluster, canvas_id, origin=None, cookie=cookie)
    results["anonymous"] = await _raw_status(cluster, canvas_id, origin=GOOD_ORIGIN)
    results["non-member"] = await _raw_status(
        cluster, canvas_id, origin=GOOD_ORIGIN, token=data["tokens"]["hs-outsider"]
    )
    # Expired: the session row's expiry is in the past. Deleted: logged out elsewhere.
    expired = await asyncio.to_thread(_login_cookie, cluster, "hs-owner")
    deleted = await asyncio.to_thread(_login_cookie, cluster, "hs-owner")
    await asyncio.to_thread(
        cluster.manage,
        "shell",
        "-c",
        (
            "from django.contrib.sessions.models import Session; from django.utils import timezone; "
            "from datetime import timedelta; "
            f"Session.objects.filter(session_key='{expired}').update(expire_date=timezone.now() - timedelta(seconds=1)); "
            f"Session.objects.filter(session_key='{deleted}').delete()"
        ),
    )
    results["expired session"] = await _raw_status(cluster, canvas_id, origin=GOOD_ORIGIN, cookie=expired)
    results["deleted session"] = await _raw_status(cluster, canvas_id, origin=GOOD_ORIGIN, cookie=deleted)
    results["header with \\x0b (CVE-2026-44546)"] = await asyncio.to_thread(
        _smuggled_header_status, cluster, canvas_id, cookie
    )
    record_figures(
        "handshake_daphne",
        {
            "attempts": len(results),
            "refused": sum(s != 101 for s in results.values()),
            **dict(results.items()),
        },
    )
    assert all(status in (400, 403) for status in results.values()), results
    # The good session still works afterwards.
    assert await _raw_status(cluster, canvas_id, origin=GOOD_ORIGIN, cookie=cookie) == 101


def _smuggled_header_status(cluster, canvas_id, cookie) -> int:
    """A raw upgrade whose header carries a vertical tab trying to smuggle an allowed Origin."""
    request = (
        f"GET /ws/canvases/{canvas_id}/ HTTP/1.1\r\nHost: 127.0.0.1:{cluster.ports[0]}\r\n"
        "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
        "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
        f"Cookie: sessionid={cookie}\r\n"
        "Origin: http://evil.example\r\nX-Pad: a\x0bOrigin: http://127.0.0.1\r\n\r\n"
    )
    with socket.create_connection(("127.0.0.1", cluster.ports[0]), timeout=10) as sock:
        sock.sendall(request.encode("latin-1"))
        head = sock.recv(1024).decode("latin-1", "replace")
    return int(head.split()[1]) if head.startswith("HTTP/") else 0
