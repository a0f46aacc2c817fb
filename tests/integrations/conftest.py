"""Canvases with planted facts for the MCP and OpenAI-compatible tests, API tokens, a live ASGI server."""

from __future__ import annotations

import threading
import time

import pytest
from rest_framework.authtoken.models import Token

from canvasweb.canvases import services
from canvasweb.canvases.actors import user_actor
from canvasweb.integrations.mcp.session import forget_sessions
from canvasweb.testing.servers import free_port, wait_for_port

# The value of the secret node: it must never appear in anything a client or the upstream model gets.
SECRET_VALUE = "Zq7-bluefin-4411"
ANCHOR = "Goal: the invoicing service goes live on 12 March"
FACT = "The invoicing database listens on port 6117"
ZH_FACT = "发票服务的负责人是王芳"
INTERNAL = "Internal: the vendor contract ends in 2027"


def create_node(user, canvas_id, content, **fields) -> str:
    result = services.apply_operation(
        actor=user_actor(user),
        canvas_id=canvas_id,
        op={
            "type": "node.create",
            "node": {"content": content, "x": fields.pop("x", 0.0), "y": fields.pop("y", 0.0), **fields},
        },
    )
    return result.changes[0]["id"]


@pytest.fixture(autouse=True)
def _fresh_mcp_sessions():
    forget_sessions()
    yield
    forget_sessions()


@pytest.fixture
def planted(canvas, alice):
    """The shared canvas (alice owner, bob editor, vic viewer) with an anchor, facts, an internal and a secret."""
    cid = canvas.pk
    ids = {
        "anchor": create_node(alice, cid, ANCHOR, x=20, y=20, pinned=True, kind="requirement"),
        "fact": create_node(alice, cid, FACT, x=120, y=60, kind="config"),
        "zh": create_node(alice, cid, ZH_FACT, x=200, y=120, kind="fact"),
        "internal": create_node(alice, cid, INTERNAL, x=260, y=-40, sensitivity="internal"),
        "secret": create_node(
            alice,
            cid,
            f"Vault passphrase for invoicing: {SECRET_VALUE}",
            x=80,
            y=-60,
            sensitivity="secret",
            kind="config",
        ),
    }
    canvas.refresh_from_db()
    return ids


@pytest.fixture
def tokens(alice, bob, vic):
    return {u.username: Token.objects.get_or_create(user=u)[0].key for u in (alice, bob, vic)}


@pytest.fixture
def live_server_url(transactional_db):
    """The real ASGI application (Django + /mcp/) served by uvicorn in a thread, on the test database."""
    import uvicorn

    from canvasweb.config.asgi import application

    port = free_port()
    server = uvicorn.Server(
        uvicorn.Config(
            application, host="127.0.0.1", port=port, lifespan="off", log_level="warning", loop="asyncio"
        )
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    wait_for_port(port)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(10)
    time.sleep(0.05)
