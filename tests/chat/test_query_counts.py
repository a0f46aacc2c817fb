"""Hot endpoints ask the database a fixed number of questions, however much data there is."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from canvasweb.chat import services
from tests.conftest import node_op

pytestmark = pytest.mark.django_db


def _client(user):
    client = APIClient()
    client.force_authenticate(user)
    return client


def _turns(user, canvas, count, conversation_id=None):
    for i in range(count):
        turn = services.turn_prepare(
            user=user,
            canvas_id=canvas.pk,
            text=f"第 {i} 个问题 about the rollout",
            viewport=None,
            conversation_id=conversation_id,
        )
        services.turn_finish(turn=turn, text=f"answer {i}", usage=None, latency_ms=1)
        services.record_model_round(
            turn=turn,
            purpose="agent round 2",
            messages=[],
            tools=None,
            text="",
            tool_calls=None,
            usage=None,
            latency_ms=1,
        )
        conversation_id = turn.conversation.pk
    return conversation_id


def _count(fn) -> int:
    with CaptureQueriesContext(connection) as queries:
        fn()
    return len(queries.captured_queries)


def test_message_list_is_not_one_query_per_assistant_message(canvas, alice, django_assert_max_num_queries):
    small = _turns(alice, canvas, 2)
    large = _turns(alice, canvas, 9)
    client = _client(alice)
    few = _count(lambda: client.get(f"/api/conversations/{small}/messages/"))
    many = _count(lambda: client.get(f"/api/conversations/{large}/messages/"))
    assert few == many
    with django_assert_max_num_queries(8):
        body = client.get(f"/api/conversations/{large}/messages/").json()
    assistant = [m for m in body if m["role"] == "assistant"]
    assert len(assistant) == 9
    assert all(
        len(m["model_request_ids"]) == 2 and m["model_request_id"] == m["model_request_ids"][0]
        for m in assistant
    )


def test_message_list_pages_backwards_from_the_newest(canvas, alice):
    conversation = _turns(alice, canvas, 5)  # 10 messages
    client = _client(alice)
    everything = client.get(f"/api/conversations/{conversation}/messages/").json()
    ids = [m["id"] for m in everything]
    assert ids == sorted(ids) and len(ids) == 10
    first = client.get(f"/api/conversations/{conversation}/messages/?limit=4")
    assert [m["id"] for m in first.json()] == ids[-4:]
    assert first["X-Next-Before"] == str(ids[-4])
    second = client.get(
        f"/api/conversations/{conversation}/messages/?limit=4&before={first['X-Next-Before']}"
    )
    assert [m["id"] for m in second.json()] == ids[-8:-4]
    last = client.get(f"/api/conversations/{conversation}/messages/?limit=4&before={second['X-Next-Before']}")
    assert [m["id"] for m in last.json()] == ids[:2] and "X-Next-Before" not in last


@pytest.mark.parametrize(
    "query", ["limit=0", "limit=501", "limit=abc", "before=-3", "before=1.5", "before=0"]
)
def test_message_list_refuses_bad_paging_with_a_json_error(canvas, alice, query):
    conversation = _turns(alice, canvas, 1)
    response = _client(alice).get(f"/api/conversations/{conversation}/messages/?{query}")
    assert response.status_code == 400
    assert response.json()["error"]["field"] in ("limit", "before")


def test_context_preview_and_snapshot_do_not_grow_with_the_canvas(canvas, alice, apply):
    client = _client(alice)

    def preview():
        assert (
            client.post(
                f"/api/canvases/{canvas.pk}/context-preview/", {"text": "发布 plan"}, format="json"
            ).status_code
            == 200
        )

    def snapshot():
        assert client.get(f"/api/canvases/{canvas.pk}/snapshot/").status_code == 200

    apply(alice, node_op("first fact"))
    preview()
    small_preview = _count(preview)
    small_snapshot = _count(snapshot)
    ids = [apply(alice, node_op(f"fact {i} 发布", x=i * 3.0)).changes[0]["id"] for i in range(25)]
    for target in ids[1:6]:
        apply(
            alice, {"type": "edge.create", "edge": {"source": ids[0], "target": target, "relation": "causes"}}
        )
    preview()  # the index catches up once
    assert _count(preview) == small_preview
    assert _count(snapshot) == small_snapshot
