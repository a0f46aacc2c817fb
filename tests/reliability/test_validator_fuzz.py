"""Item 7a: hypothesis against the message validator.

1. `parse_operation` on arbitrary JSON values and on mutations of valid operations
   (RELIABILITY_EXAMPLES: 3,000 in CI, 100,000 in the soak): it returns an Operation that
   honours every documented bound, or raises InvalidOperation naming a field; nothing else.
2. The consumer's frame handling (`CanvasConsumer.receive` on a real consumer and database,
   RELIABILITY_FRAME_EXAMPLES: 300 in CI, 20,000 in the soak): random text, random JSON,
   near-valid frames of every client type. Never an INTERNAL error or an escaped exception;
   anything that is not a JSON object with a known type gets BAD_MESSAGE; an op the parser
   refuses gets `reject` INVALID with its client_op_id; the socket stays open (except 1009).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import uuid

import pytest
from channels.exceptions import StopConsumer
from hypothesis import HealthCheck, example, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from canvasweb.canvases.operations import (
    COORDINATE_LIMIT,
    MAX_BATCH_OPS,
    MAX_CONTENT_CHARS,
    MAX_LABEL_CHARS,
    MAX_TAG_CHARS,
    MAX_TAGS,
    MAX_WEIGHT,
    MIN_WEIGHT,
    Operation,
    parse_operation,
)
from canvasweb.common.errors import InvalidOperation

from .conftest import env_int

EXAMPLES = env_int("RELIABILITY_EXAMPLES", 3000)
FRAME_EXAMPLES = env_int("RELIABILITY_FRAME_EXAMPLES", 300)
COUNTS = {"parse": 0, "parsed_ok": 0, "frames": 0}

FIELD_NAMES = [
    "type",
    "id",
    "node",
    "edge",
    "fields",
    "x",
    "y",
    "content",
    "kind",
    "weight",
    "tags",
    "pinned",
    "sensitivity",
    "source",
    "target",
    "relation",
    "label",
    "archived",
    "ops",
    "client_op_id",
    "op",
    "last_revision",
    "since",
    "viewport",
    "cursor",
    "zoom",
    "width",
    "height",
    "__proto__",
    "",
]
OP_TYPES = [
    "node.create",
    "node.update",
    "node.move",
    "node.delete",
    "node.supersede",
    "node.archive",
    "edge.create",
    "edge.update",
    "edge.delete",
    "batch",
]

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([0, -0.0, 1e6, 1e6 + 1, -1e6, 0.1, 10, 10.0001, 0.0999, 2**53, -(2**63), 1e308]),
    st.text(max_size=60),
    st.sampled_from(
        [
            "",
            " ",
            "\x00",
            "\u202e",
            "💥",
            "null",
            "NaN",
            "a" * 41,
            "x" * 10_001,
            "depends_on",
            "secret",
            "public",
            "note",
            str(uuid.uuid4()),
            "00000000-0000-0000-0000-000000000000",
        ]
    ),
    st.sampled_from(OP_TYPES),
)
json_values = st.recursive(
    scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=6),
        st.dictionaries(st.one_of(st.sampled_from(FIELD_NAMES), st.text(max_size=8)), children, max_size=6),
    ),
    max_leaves=30,
)

finite = st.floats(min_value=-2e6, max_value=2e6, allow_nan=False)
uuids = st.uuids().map(str)
node_body = st.fixed_dictionaries(
    {"x": finite, "y": finite},
    optional={
        "id": uuids,
        "content": st.text(max_size=40),
        "kind": st.sampled_from(["fact", "note", "bogus"]),
        "weight": st.floats(min_value=0, max_value=12),
        "tags": st.lists(st.text(max_size=45), max_size=22),
        "pinned": st.booleans(),
        "sensitivity": st.sampled_from(["public", "internal", "secret", "top"]),
    },
)


def _near_valid_single():
    return st.one_of(
        st.builds(lambda b: {"type": "node.create", "node": b}, node_body),
        st.builds(
            lambda i, f: {"type": "node.update", "id": i, "fields": f},
            uuids,
            st.dictionaries(
                st.sampled_from(["content", "x", "weight", "tags", "pinned", "sensitivity", "kind", "bogus"]),
                scalars,
                max_size=3,
            ),
        ),
        st.builds(lambda i, x, y: {"type": "node.move", "id": i, "x": x, "y": y}, uuids, scalars, scalars),
        st.builds(lambda i: {"type": "node.delete", "id": i}, st.one_of(uuids, scalars)),
        st.builds(lambda i, b: {"type": "node.supersede", "id": i, "node": b}, uuids, node_body),
        st.builds(lambda i, a: {"type": "node.archive", "id": i, "archived": a}, uuids, scalars),
        st.builds(
            lambda s, t, r, lab: {
                "type": "edge.create",
                "edge": {"source": s, "target": t, "relation": r, "label": lab},
            },
            uuids,
            st.one_of(uuids, scalars),
            st.sampled_from(["causes", "loves", "supersedes"]),
            st.text(max_size=210),
        ),
        st.builds(
            lambda i, f: {"type": "edge.update", "id": i, "fields": f},
            uuids,
            st.dictionaries(st.sampled_from(["relation", "label", "source"]), scalars, max_size=2),
        ),
        st.builds(lambda i: {"type": "edge.delete", "id": i}, uuids),
    )


def _mutate(op, extra_key, drop):
    op = dict(op)
    if drop and len(op) > 1:
        op.pop(sorted(op)[-1])
    if extra_key is not None:
        op[extra_key[0]] = extra_key[1]
    return op


near_valid = st.one_of(
    _near_valid_single(),
    st.builds(
        _mutate,
        _near_valid_single(),
        st.one_of(st.none(), st.tuples(st.sampled_from(FIELD_NAMES), scalars)),
        st.booleans(),
    ),
    st.builds(lambda ops: {"type": "batch", "ops": ops}, st.lists(_near_valid_single(), max_size=4)),
    st.builds(
        lambda ops: {"type": "batch", "ops": ops},
        st.lists(st.one_of(_near_valid_single(), json_values), min_size=1, max_size=3),
    ),
)


def _check_operation(op: Operation) -> None:
    """What a parsed operation promises (docs/protocol.md "Operations")."""
    for single in op.flat():
        assert single.type != "batch"
        values = {**single.fields, **single.body}
        for name in ("x", "y"):
            if name in values:
                assert math.isfinite(values[name]) and abs(values[name]) <= COORDINATE_LIMIT
        if "weight" in values:
            assert MIN_WEIGHT <= values["weight"] <= MAX_WEIGHT
        if "content" in values:
            assert isinstance(values["content"], str) and len(values["content"]) <= MAX_CONTENT_CHARS
            assert "\x00" not in values["content"]
        if "tags" in values:
            assert len(values["tags"]) <= MAX_TAGS and all(
                1 <= len(t) <= MAX_TAG_CHARS for t in values["tags"]
            )
        if "label" in values:
            assert len(values["label"]) <= MAX_LABEL_CHARS
        if "sensitivity" in values:
            assert values["sensitivity"] in ("public", "internal", "secret")
        if single.type == "edge.create":
            assert single.body["source"] != single.body["target"]
    assert len(op.flat()) <= MAX_BATCH_OPS


def _parse(raw) -> None:
    COUNTS["parse"] += 1
    try:
        op = parse_operation(raw)
    except InvalidOperation as exc:
        assert exc.message and (exc.field is None or isinstance(exc.field, str))
        return
    COUNTS["parsed_ok"] += 1
    _check_operation(op)


@hsettings(
    max_examples=EXAMPLES,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(st.one_of(json_values, near_valid))
def test_parse_operation_never_crashes(raw):
    _parse(raw)


def test_parse_operation_counts(record_figures):
    """Runs after the property test (same module, file order): report how many examples ran."""
    record_figures(
        "validator_parse",
        {
            "examples": COUNTS["parse"],
            "accepted": COUNTS["parsed_ok"],
            "rejected_invalid": COUNTS["parse"] - COUNTS["parsed_ok"],
            "crashes": 0,
        },
    )
    assert COUNTS["parse"] >= min(EXAMPLES, 100) and COUNTS["parsed_ok"] > 0


@hsettings(max_examples=max(200, EXAMPLES // 10), deadline=None, database=None)
@given(
    st.builds(
        lambda b: {"type": "node.create", "node": b},
        st.fixed_dictionaries(
            {"x": st.floats(-1e6, 1e6), "y": st.floats(-1e6, 1e6)},
            optional={
                "content": st.text(max_size=200).filter(lambda t: "\x00" not in t),
                "kind": st.sampled_from(["fact", "requirement", "decision", "config", "question", "note"]),
                "weight": st.floats(0.1, 10),
                "tags": st.lists(
                    st.text(min_size=1, max_size=40).filter(lambda t: t.strip() and "\x00" not in t),
                    max_size=20,
                ),
                "pinned": st.booleans(),
                "sensitivity": st.sampled_from(["public", "internal", "secret"]),
            },
        ),
    )
)
def test_everything_the_protocol_allows_parses(raw):
    """The other direction: a node.create within every documented bound is accepted."""
    op = parse_operation(raw)
    _check_operation(op)


# --- the consumer's frame handling ----------------------------------------------------------------

client_frames = st.one_of(
    st.text(max_size=200),
    st.binary(max_size=50).map(lambda b: b.decode("latin-1")),
    st.sampled_from(
        [
            "",
            "{",
            "[]",
            "null",
            "1",
            '"hello"',
            '{"type": NaN}',
            '{"type": "op", "x": Infinity}',
            "[" * 5000 + "]" * 5000,
            '{"type":"hello","last_revision":1e400}',
            "{}" * 3,
        ]
    ),
    json_values.map(lambda v: json.dumps(v, allow_nan=True)),
    st.builds(
        lambda t, rest: json.dumps({"type": t, **rest}, allow_nan=True),
        st.sampled_from(["hello", "catch_up", "op", "presence", "ping", "dance", "", "chat.stop"]),
        st.dictionaries(st.sampled_from(FIELD_NAMES), json_values, max_size=4),
    ),
    st.builds(
        lambda cid, op: json.dumps({"type": "op", "client_op_id": cid, "op": op}, allow_nan=True),
        st.one_of(st.text(min_size=1, max_size=64), scalars),
        st.one_of(near_valid, json_values),
    ),
)

ALLOWED_CODES = {"BAD_MESSAGE", "INVALID", "NOT_FOUND", "FORBIDDEN", "CONFLICT", "RATE_LIMITED"}


def _non_finite_inside_an_op(frame: str) -> bool:
    """The frame is an op with a usable client_op_id whose first NaN / Infinity sits inside `op`."""
    from canvasweb.common.json_safety import find_unsafe, has_lone_surrogate

    try:
        message = json.loads(frame)
    except (ValueError, RecursionError):
        return False
    if not isinstance(message, dict) or message.get("type") != "op":
        return False
    cid = message.get("client_op_id")
    if not (isinstance(cid, str) and 1 <= len(cid) <= 64 and not has_lone_surrogate(cid)):
        return False
    found = find_unsafe(message, only_non_finite=True)
    return found is not None and (found[0] == "op" or found[0].startswith(("op.", "op[")))


@pytest.mark.django_db(transaction=True)
def test_consumer_frames_never_crash(settings, record_figures, django_user_model):
    from django.db import connection

    from canvasweb.canvases import services
    from canvasweb.canvases.actors import user_actor
    from canvasweb.canvases.realtime.consumers import CanvasConsumer
    from canvasweb.testing.sim import _fast_sqlite

    settings.CANVASWEB = {**settings.CANVASWEB, "WS_OPS_PER_SECOND": 1_000_000, "WS_SYNC_CHECK_SECONDS": 0}
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    _fast_sqlite(connection=connection)
    user = django_user_model.objects.create_user(username="fuzzer", password="pass-12345")
    canvas = services.canvas_create(user=user, name="frames")
    node = services.apply_operation(
        actor=user_actor(user),
        canvas_id=canvas.pk,
        op={"type": "node.create", "node": {"content": "target", "x": 0, "y": 0}},
    ).changes[0]["id"]
    loop = asyncio.new_event_loop()
    sent: list[dict] = []

    async def base_send(message):
        sent.append(message)

    async def make_consumer():
        from channels.layers import get_channel_layer

        consumer = CanvasConsumer()
        consumer.scope = {
            "type": "websocket",
            "user": user,
            "headers": [],
            "path": "/",
            "url_route": {"args": (), "kwargs": {"canvas_id": canvas.pk}},
        }
        consumer.channel_layer = get_channel_layer()
        consumer.channel_name = await consumer.channel_layer.new_channel()
        consumer.base_send = base_send
        await consumer.dispatch({"type": "websocket.connect"})
        await consumer.dispatch(
            {"type": "websocket.receive", "text": json.dumps({"type": "hello", "last_revision": None})}
        )
        return consumer

    consumer = loop.run_until_complete(make_consumer())
    assert sent[0]["type"] == "websocket.accept"
    outcomes = {"bad_message": 0, "reject": 0, "ack": 0, "other": 0}
    acked_ids: set[str] = set()

    @hsettings(
        max_examples=FRAME_EXAMPLES,
        deadline=None,
        database=None,
        suppress_health_check=[
            HealthCheck.too_slow,
            HealthCheck.data_too_large,
            HealthCheck.function_scoped_fixture,
        ],
    )
    @given(frame=client_frames, aim=st.booleans())
    # found by this test in CI: an op whose body holds Infinity under an empty key
    @example(frame='{"type":"op","client_op_id":"0","op":{"":"","":"","":Infinity}}', aim=False)
    @example(frame='{"type":"op","client_op_id":"c1","op":{"type":"node.move","x":NaN}}', aim=False)
    @example(frame='{"type":"op","client_op_id":"c2","x":Infinity,"op":{}}', aim=False)
    @example(frame='{"type":"op","client_op_id":"c3","op":[{"\\u0000":null}]}', aim=False)
    def frames(frame, aim):
        if aim:
            frame = frame.replace("00000000-0000-0000-0000-000000000000", node)
        sent.clear()
        COUNTS["frames"] += 1
        loop.run_until_complete(consumer.dispatch({"type": "websocket.receive", "text": frame}))
        loop.run_until_complete(consumer.ops_idle())
        replies = [json.loads(m["text"]) for m in sent if m["type"] == "websocket.send"]
        closes = [m for m in sent if m["type"] == "websocket.close"]
        assert not closes or len(frame.encode()) > settings.CANVASWEB["WS_MAX_FRAME_BYTES"], (
            frame[:200],
            closes,
        )
        for reply in replies:
            if reply["type"] in ("error", "reject"):
                assert reply["error"]["code"] in ALLOWED_CODES, (frame[:300], reply)
        try:
            message = json.loads(frame, parse_constant=lambda c: (_ for _ in ()).throw(ValueError(c)))
        except (ValueError, RecursionError):
            message = None
        if message is None and _non_finite_inside_an_op(frame):
            # NaN / Infinity are no JSON, but an op holding one is answered by its client_op_id
            # (realtime/frame_safety.py): reject INVALID, so the client's pending op is released.
            [reply] = replies
            assert reply["type"] == "reject" and reply["error"]["code"] == "INVALID", (frame[:200], replies)
            outcomes["reject"] += 1
            return
        known = (
            isinstance(message, dict)
            and isinstance(message.get("type"), str)
            and message["type"] in CanvasConsumer.HANDLERS
        )
        if not known:
            assert [r["type"] for r in replies] == ["error"] and replies[0]["error"][
                "code"
            ] == "BAD_MESSAGE", (frame[:200], replies)
            outcomes["bad_message"] += 1
            return
        if (
            message["type"] == "op"
            and isinstance(message.get("client_op_id"), str)
            and 1 <= len(message["client_op_id"]) <= 64
            and "op" in message
        ):
            answer = [r for r in replies if r["type"] in ("ack", "reject")]
            assert len(answer) == 1 and answer[0]["client_op_id"] == message["client_op_id"], (
                frame[:200],
                replies,
            )
            try:
                parse_operation(message["op"])
                parsed = True
            except InvalidOperation:
                parsed = False
            if answer[0]["type"] == "ack":
                acked_ids.add(message["client_op_id"])
            if not parsed and not (
                answer[0]["type"] == "ack" and answer[0]["duplicate"] and message["client_op_id"] in acked_ids
            ):
                # (A reused client_op_id is answered from its receipt, whatever the payload: idempotency.)
                assert answer[0]["type"] == "reject" and answer[0]["error"]["code"] == "INVALID", (
                    frame[:200],
                    answer,
                )
            outcomes[answer[0]["type"]] += 1
        else:
            outcomes["other"] += 1

    try:
        frames()
    finally:
        with contextlib.suppress(StopConsumer):
            loop.run_until_complete(consumer.dispatch({"type": "websocket.disconnect", "code": 1000}))
        loop.close()
    record_figures("validator_frames", {"examples": COUNTS["frames"], **outcomes, "internal_errors": 0})
    assert COUNTS["frames"] >= min(FRAME_EXAMPLES, 50)
