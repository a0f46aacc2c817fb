"""Hostile input on every surface: lone surrogates, NUL characters and integers too large for a float.

Both are valid JSON that Python parses, and both used to fail deep inside the server (OverflowError in a
float check, UnicodeEncodeError in the audit hash): 500 text/html over REST, `INTERNAL` over the socket.
A NUL character is stored by SQLite but by no PostgreSQL text or jsonb column: a canvas name, a
conversation title, a `client_op_id` or a chat question holding one was a 500 (REST) or `INTERNAL`
(socket) on Postgres only. Here they must be refused at parse time as `400 INVALID` / reject `INVALID` naming the field, with nothing
written and the socket kept. The fuzz (hypothesis) puts one such value at a random place of a valid body
for every REST endpoint that takes a body and every WebSocket message type.
"""

from __future__ import annotations

import json

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from django.contrib.auth import get_user_model
from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from canvasweb.canvases import services
from canvasweb.canvases.actors import user_actor
from canvasweb.canvases.models import Canvas, Edge, Membership, Node, OpReceipt
from canvasweb.chat.models import Conversation, FactSuggestion, Message, ModelRequest
from canvasweb.history.models import ChangeLogEntry
from tests.reliability.conftest import env_int

HUGE = 10**400
SURROGATE = "a\ud800b"
NUL = "a\x00b"
DOCUMENTED_CODES = {
    "INVALID",
    "NOT_FOUND",
    "FORBIDDEN",
    "UNAUTHENTICATED",
    "CSRF_FAILED",
    "CONFLICT",
    "RATE_LIMITED",
    "TOO_LARGE",
    "UNSUPPORTED_MEDIA_TYPE",
    "METHOD_NOT_ALLOWED",
    "BAD_MESSAGE",
    "NOTHING_TO_UNDO",
    "NOTHING_TO_REDO",
    "INVALID_CANVAS_FILE",
}
WRITTEN = (
    Canvas,
    Membership,
    Node,
    Edge,
    OpReceipt,
    ChangeLogEntry,
    Conversation,
    Message,
    ModelRequest,
    FactSuggestion,
    Token,
)


def _counts() -> dict:
    return {model.__name__: model.objects.count() for model in WRITTEN}


def _raw_post(client, path: str, body, method: str = "post"):
    # ensure_ascii: the surrogate travels as the escape "\ud800", as a hostile client would send it.
    return getattr(client, method)(path, data=json.dumps(body), content_type="application/json")


def _assert_json_error(response, *, status: int = 400, code: str = "INVALID", field=...):
    assert response.status_code == status, response.content[:300]
    assert response["Content-Type"].startswith("application/json"), response["Content-Type"]
    error = response.json()["error"]
    assert error["code"] == code, error
    if field is not ...:
        assert error["field"] == field, error
    return error


@pytest.fixture
def world(db):
    User = get_user_model()
    owner = User.objects.create_user(username="hostile-owner", password="pass-12345")
    canvas = services.canvas_create(user=owner, name="边界 canvas")
    created = services.apply_operation(
        actor=user_actor(owner),
        canvas_id=canvas.pk,
        op={"type": "node.create", "node": {"content": "第一个节点", "x": 0, "y": 0}},
    )
    node_id = created.changes[0]["id"]
    second = services.apply_operation(
        actor=user_actor(owner),
        canvas_id=canvas.pk,
        op={"type": "node.create", "node": {"content": "第二个节点", "x": 10, "y": 10}},
    ).changes[0]["id"]
    conversation = Conversation.objects.create(canvas=canvas, user=owner, title="t")
    token = Token.objects.create(user=owner).key
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return {
        "owner": owner,
        "canvas": canvas,
        "node": node_id,
        "second": second,
        "client": client,
        "conversation": conversation,
        "token": token,
    }


# --- the reported cases, one by one ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "op_builder, field",
    [
        (lambda w: {"type": "node.create", "node": {"content": "x", "x": HUGE, "y": 0}}, "node.x"),
        (
            lambda w: {"type": "node.create", "node": {"content": "x", "x": 0, "y": 0, "weight": -HUGE}},
            "node.weight",
        ),
        (lambda w: {"type": "node.move", "id": w["node"], "x": 1, "y": HUGE}, "y"),
        (
            lambda w: {"type": "node.update", "id": w["node"], "fields": {"content": SURROGATE}},
            "fields.content",
        ),
        (
            lambda w: {"type": "node.update", "id": w["node"], "fields": {"tags": ["ok", SURROGATE]}},
            "fields.tags[1]",
        ),
    ],
)
def test_rest_op_with_huge_int_or_surrogate_is_400_invalid_with_field(world, op_builder, field):
    before = _counts()
    response = _raw_post(
        world["client"], f"/api/canvases/{world['canvas'].pk}/ops/", {"op": op_builder(world)}
    )
    _assert_json_error(response, field=f"op.{field}")
    assert _counts() == before


def test_the_operation_parser_refuses_a_huge_int_itself(world):
    # The agent's tool calls and imports reach the parser without the REST parser in front.
    from canvasweb.canvases.operations import parse_operation
    from canvasweb.common.errors import InvalidOperation

    with pytest.raises(InvalidOperation) as caught:
        parse_operation({"type": "node.create", "node": {"x": HUGE, "y": 0}})
    assert caught.value.field == "node.x"


def test_canvas_name_conversation_title_and_import_with_surrogate(world):
    client, canvas = world["client"], world["canvas"]
    before = _counts()
    _assert_json_error(_raw_post(client, "/api/canvases/", {"name": SURROGATE}), field="name")
    _assert_json_error(
        _raw_post(client, f"/api/canvases/{canvas.pk}/", {"name": SURROGATE}, "patch"), field="name"
    )
    _assert_json_error(
        _raw_post(client, f"/api/canvases/{canvas.pk}/conversations/", {"title": SURROGATE}), field="title"
    )
    document = {
        "nodes": [{"id": "a", "type": "text", "text": SURROGATE, "x": 0, "y": 0, "width": 10, "height": 10}],
        "edges": [],
    }
    _assert_json_error(_raw_post(client, "/api/canvases/import/", document), field="nodes[0].text")
    document["nodes"][0].update(text="fine", x=HUGE)
    _assert_json_error(_raw_post(client, "/api/canvases/import/", document), field="nodes[0].x")
    _assert_json_error(
        _raw_post(
            client, f"/api/canvases/{canvas.pk}/context-preview/", {"text": "q", "viewport": {"x": HUGE}}
        ),
        field="viewport.x",
    )
    assert _counts() == before


def test_nul_in_names_titles_op_ids_and_usernames_is_400_invalid_with_field(world):
    # Each of these reached an INSERT (or a lookup) and was a 500 on PostgreSQL.
    client, canvas = world["client"], world["canvas"]
    before = _counts()
    _assert_json_error(_raw_post(client, "/api/canvases/", {"name": NUL}), field="name")
    _assert_json_error(
        _raw_post(client, "/api/canvases/", {"name": "n", "description": NUL}), field="description"
    )
    _assert_json_error(_raw_post(client, f"/api/canvases/{canvas.pk}/", {"name": NUL}, "patch"), field="name")
    _assert_json_error(
        _raw_post(client, f"/api/canvases/{canvas.pk}/conversations/", {"title": NUL}), field="title"
    )
    _assert_json_error(
        _raw_post(
            client,
            f"/api/canvases/{canvas.pk}/ops/",
            {"client_op_id": NUL, "op": {"type": "node.move", "id": world["node"], "x": 1, "y": 1}},
        ),
        field="client_op_id",
    )
    _assert_json_error(
        _raw_post(client, f"/api/canvases/{canvas.pk}/members/", {"username": NUL, "role": "viewer"}),
        field="username",
    )
    _assert_json_error(
        _raw_post(APIClient(), "/api/auth/token/", {"username": NUL, "password": "x"}), field="username"
    )
    document = {"nodes": [], "edges": [], "canvasweb": {"name": NUL}}
    _assert_json_error(_raw_post(client, "/api/canvases/import/", document), field="canvasweb.name")
    # A query string does not pass the body parser: the canvas service refuses the name itself.
    empty = {"nodes": [], "edges": []}
    _assert_json_error(_raw_post(client, "/api/canvases/import/?name=a%00b", empty), field="name")
    assert _counts() == before


def test_the_canvas_service_refuses_nul_in_name_and_description(world):
    from canvasweb.common.errors import InvalidOperation

    for kwargs, field in (({"name": NUL}, "name"), ({"name": "n", "description": NUL}, "description")):
        with pytest.raises(InvalidOperation) as caught:
            services.canvas_create(user=world["owner"], **kwargs)
        assert caught.value.field == field


def test_import_planner_refuses_a_surrogate_in_a_file():
    from canvasweb.history.jsoncanvas import ImportRejected, parse_text, plan_import

    with pytest.raises(ImportRejected) as caught:
        plan_import(
            parse_text('{"nodes": [{"id": "a", "type": "text", "text": "a\\ud800b", "x": 0, "y": 0}]}')
        )
    assert "surrogate" in str(caught.value.problems)


def test_context_preview_viewport_huge_int_is_invalid_in_the_service(world):
    # The socket's context.preview calls the same function without the REST parser in front.
    from canvasweb.chat.context_inputs import viewport_from

    with pytest.raises(ValueError):
        viewport_from({"x": HUGE})


def test_token_request_with_surrogate_username_is_a_cheap_400(db):
    response = _raw_post(APIClient(), "/api/auth/token/", {"username": SURROGATE, "password": "x"})
    _assert_json_error(response, field="username")


def test_an_unexpected_error_under_api_is_json_500_even_with_debug(world, settings, monkeypatch):
    settings.DEBUG = True
    from canvasweb.canvases.api.views import sync as sync_views

    def explode(**kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(sync_views.selectors, "canvas_snapshot", explode)
    client = world["client"]
    client.raise_request_exception = False
    response = client.get(f"/api/canvases/{world['canvas'].pk}/snapshot/")
    error = _assert_json_error(response, status=500, code="INTERNAL")
    assert "boom" not in json.dumps(error) and b"Traceback" not in response.content


def test_a_non_drf_error_under_api_is_json_500(db, settings):
    from django.test import RequestFactory

    from canvasweb.common.api_errors import APIJSONErrorsMiddleware, handler500

    settings.DEBUG = True
    middleware = APIJSONErrorsMiddleware(lambda request: None)
    request = RequestFactory().get("/api/")
    response = middleware.process_exception(request, RuntimeError("boom"))
    assert response.status_code == 500 and json.loads(response.content)["error"]["code"] == "INTERNAL"
    request = RequestFactory().get("/")
    assert middleware.process_exception(request, RuntimeError("boom")) is None
    assert json.loads(handler500(RequestFactory().get("/api/x/")).content)["error"]["code"] == "INTERNAL"


# --- WebSocket ------------------------------------------------------------------------------------------------


async def _socket(world):
    from tests.canvases.realtime.test_consumer import communicator

    ws = communicator(world["canvas"].pk, world["token"])
    connected, _ = await ws.connect()
    assert connected
    await ws.send_json_to({"type": "hello", "last_revision": None})
    assert (await ws.receive_json_from())["type"] == "welcome"
    assert (await ws.receive_json_from())["type"] in ("snapshot", "changes")
    return ws


async def _send_raw(ws, frame: dict) -> dict:
    await ws.send_to(text_data=json.dumps(frame))
    return await ws.receive_json_from(timeout=5)


async def _still_open(ws) -> None:
    await ws.send_json_to({"type": "ping"})
    while True:
        reply = await ws.receive_json_from(timeout=5)
        if reply["type"] == "pong":
            return


def _ws_templates(world) -> dict[str, dict]:
    node, second = world["node"], world["second"]
    return {
        "hello": {"type": "hello", "last_revision": 1},
        "catch_up": {"type": "catch_up", "since": 1},
        "op": {
            "type": "op",
            "client_op_id": "c-1",
            "op": {
                "type": "batch",
                "ops": [
                    {
                        "type": "node.create",
                        "node": {
                            "content": "内容",
                            "x": 1,
                            "y": 2,
                            "weight": 1,
                            "tags": ["t"],
                            "kind": "fact",
                        },
                    },
                    {"type": "node.update", "id": node, "fields": {"content": "c", "x": 3}},
                    {"type": "edge.create", "edge": {"source": node, "target": second, "label": "l"}},
                ],
            },
        },
        "presence": {
            "type": "presence",
            "viewport": {"x": 0, "y": 0, "zoom": 1, "width": 100, "height": 100},
            "cursor": {"x": 1, "y": 2},
        },
        "ping": {"type": "ping", "n": 1},
        "chat.send": {
            "type": "chat.send",
            "text": "你好",
            "request_id": "r-1",
            "viewport": {"x": 0, "y": 0, "zoom": 1, "width": 100, "height": 100},
        },
        "chat.stop": {"type": "chat.stop", "message_id": 1},
        "context.preview": {
            "type": "context.preview",
            "text": "问题",
            "request_id": "p-1",
            "viewport": {"x": 0, "y": 0, "zoom": 1, "width": 100, "height": 100},
        },
    }


def _leaves(value, path=()):
    """Paths of every leaf (strings, numbers, booleans, null) in a JSON template."""
    if isinstance(value, dict):
        for key, child in value.items():
            yield from _leaves(child, (*path, key))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            yield from _leaves(child, (*path, index))
    else:
        yield path


def _poisoned(template, path, poison):
    copy = json.loads(json.dumps(template))
    target = copy
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = poison
    return copy


def _dotted(path) -> str:
    out = ""
    for step in path:
        out += f"[{step}]" if isinstance(step, int) else (f".{step}" if out else step)
    return out


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("kind", ["op", "presence", "chat.send", "context.preview", "hello"])
def test_ws_surrogate_and_huge_int_get_invalid_and_keep_the_socket(settings, kind):
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    world = _world_sync()

    async def run():
        ws = await _socket(world)
        template = _ws_templates(world)[kind]
        for path in list(_leaves(template)):
            if path == ("type",):
                continue
            for poison in (SURROGATE, NUL, HUGE):
                before = await database_sync_to_async(_counts)()
                reply = await _send_raw(ws, _poisoned(template, path, poison))
                _check_ws_reply(reply, kind, path)
                assert await database_sync_to_async(_counts)() == before
        await _still_open(ws)
        await ws.disconnect()

    async_to_sync(run)()


def _check_ws_reply(reply: dict, kind: str, path) -> None:
    if kind == "chat.send" and path != ("request_id",):
        # A refused question is a chat.error for its request_id, so the panel waiting for it is released.
        assert reply["type"] == "chat.error" and reply["message_id"] is None, reply
        assert reply["request_id"] == "r-1", reply
    else:
        assert reply["type"] in ("error", "reject"), reply
    if kind == "context.preview" and path != ("request_id",):
        assert reply["request_id"] == "p-1", reply  # the preview waits for its id
    error = reply["error"]
    assert error["code"] == "INVALID", reply
    dotted = _dotted(path)
    if kind == "op" and path[0] == "op" and reply["type"] == "reject":
        assert error["field"] == dotted[3:], reply
    else:
        assert error["field"] == dotted, reply


def _world_sync():
    User = get_user_model()
    owner = User.objects.create_user(username=f"ws-hostile-{User.objects.count()}", password="pass-12345")
    canvas = services.canvas_create(user=owner, name="ws 边界")
    node = services.apply_operation(
        actor=user_actor(owner),
        canvas_id=canvas.pk,
        op={"type": "node.create", "node": {"content": "一", "x": 0, "y": 0}},
    ).changes[0]["id"]
    second = services.apply_operation(
        actor=user_actor(owner),
        canvas_id=canvas.pk,
        op={"type": "node.create", "node": {"content": "二", "x": 5, "y": 5}},
    ).changes[0]["id"]
    token = Token.objects.create(user=owner).key
    return {"owner": owner, "canvas": canvas, "node": node, "second": second, "token": token}


# --- the fuzz -------------------------------------------------------------------------------------------------


def _rest_templates(world) -> list[tuple[str, str, dict]]:
    canvas, node, second = world["canvas"].pk, world["node"], world["second"]
    owner_id = world["owner"].pk
    return [
        ("post", "/api/auth/token/", {"username": "hostile-owner", "password": "pass-12345"}),
        ("post", "/api/canvases/", {"name": "新画布", "description": "d"}),
        (
            "patch",
            f"/api/canvases/{canvas}/",
            {
                "name": "n",
                "description": "d",
                "agent_policy": {
                    "mode": "auto",
                    "scope": "all",
                    "protect_pinned": True,
                    "allow_archive": False,
                },
            },
        ),
        ("post", f"/api/canvases/{canvas}/members/", {"username": "hostile-owner", "role": "owner"}),
        ("patch", f"/api/canvases/{canvas}/members/{owner_id}/", {"role": "owner"}),
        (
            "post",
            f"/api/canvases/{canvas}/ops/",
            {
                "client_op_id": "k-1",
                "op": {
                    "type": "batch",
                    "ops": [
                        {
                            "type": "node.create",
                            "node": {"content": "新", "x": 1, "y": 2, "weight": 2, "tags": ["t"]},
                        },
                        {"type": "node.move", "id": node, "x": 4, "y": 5},
                        {"type": "edge.create", "edge": {"source": node, "target": second, "label": "标签"}},
                    ],
                },
            },
        ),
        ("post", f"/api/canvases/{canvas}/conversations/", {"title": "标题"}),
        (
            "post",
            f"/api/canvases/{canvas}/context-preview/",
            {
                "text": "问题",
                "conversation_id": None,
                "viewport": {"x": 0, "y": 0, "zoom": 1, "width": 10, "height": 10},
            },
        ),
        ("post", "/api/suggestions/1/accept/", {"x": 1, "y": 2, "supersede": True, "sensitivity": "public"}),
        ("post", f"/api/canvases/{canvas}/nodes/{node}/revert/", {"revision": 2}),
        ("post", "/api/proposals/1/approve/", {"force": True}),
        (
            "post",
            "/api/canvases/import/",
            {
                "nodes": [
                    {"id": "a", "type": "text", "text": "文本", "x": 0, "y": 0, "width": 10, "height": 10}
                ],
                "edges": [],
            },
        ),
    ]


_POISONS = st.one_of(
    st.integers(min_value=309, max_value=1000).map(lambda digits: 10**digits),
    st.integers(min_value=309, max_value=1000).map(lambda digits: -(10**digits)),
    st.tuples(st.text(max_size=5), st.integers(min_value=0xD800, max_value=0xDFFF), st.text(max_size=5)).map(
        lambda parts: parts[0] + chr(parts[1]) + parts[2]
    ),
    st.tuples(st.text(max_size=5), st.text(max_size=5)).map(lambda parts: parts[0] + "\x00" + parts[1]),
)

FUZZ_FIGURES = {"rest_inputs": 0, "rest_5xx": 0, "ws_inputs": 0, "ws_internal": 0}


def test_fuzz_rest_every_endpoint_refuses_poison_without_writing(world, record_figures):
    templates = _rest_templates(world)

    @hsettings(
        max_examples=env_int("RELIABILITY_HOSTILE_EXAMPLES", 300),
        deadline=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )
    @given(data=st.data())
    def check(data):
        method, path, template = data.draw(st.sampled_from(templates))
        leaf = data.draw(st.sampled_from(list(_leaves(template))))
        poison = data.draw(_POISONS)
        body = _poisoned(template, leaf, poison)
        before = _counts()
        FUZZ_FIGURES["rest_inputs"] += 1
        response = _raw_post(APIClient() if "auth/token" in path else world["client"], path, body, method)
        if response.status_code >= 500:
            FUZZ_FIGURES["rest_5xx"] += 1
        _assert_json_error(response, field=_dotted(leaf))
        assert _counts() == before

    check()
    assert FUZZ_FIGURES["rest_5xx"] == 0
    record_figures(
        "hostile_input_rest", {"inputs": FUZZ_FIGURES["rest_inputs"], "5xx": FUZZ_FIGURES["rest_5xx"]}
    )


@pytest.mark.django_db(transaction=True)
def test_fuzz_ws_every_message_type_refuses_poison_and_keeps_the_socket(settings, record_figures):
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    world = _world_sync()
    templates = _ws_templates(world)
    cases = [
        (kind, leaf)
        for kind, template in templates.items()
        for leaf in _leaves(template)
        if leaf != ("type",)
    ]
    frames: list[tuple[str, tuple, dict]] = []

    @hsettings(
        max_examples=env_int("RELIABILITY_HOSTILE_EXAMPLES", 300),
        deadline=None,
        derandomize=True,
        suppress_health_check=list(HealthCheck),
    )
    @given(case=st.sampled_from(cases), poison=_POISONS)
    def collect(case, poison):
        kind, leaf = case
        frames.append((kind, leaf, _poisoned(templates[kind], leaf, poison)))

    collect()

    async def run():
        ws = await _socket(world)
        before = await database_sync_to_async(_counts)()
        for kind, leaf, frame in frames:
            FUZZ_FIGURES["ws_inputs"] += 1
            reply = await _send_raw(ws, frame)
            if reply.get("error", {}).get("code") == "INTERNAL":
                FUZZ_FIGURES["ws_internal"] += 1
            _check_ws_reply(reply, kind, leaf)
        assert await database_sync_to_async(_counts)() == before
        await _still_open(ws)
        await ws.disconnect()

    async_to_sync(run)()
    assert {kind for kind, _, _ in frames} == set(templates)
    record_figures(
        "hostile_input_ws",
        {
            "inputs": FUZZ_FIGURES["ws_inputs"],
            "internal": FUZZ_FIGURES["ws_internal"],
            "message_types": len(templates),
        },
    )
