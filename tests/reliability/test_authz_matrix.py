"""Item 4: the authorization matrix, generated.

Every role (owner, editor, viewer, non-member) x every op kind (the nine single ops and a batch)
x every target (own canvas, ids from a foreign canvas sent to our canvas, the foreign canvas itself,
a node/edge the role may not see), over REST (POST /api/canvases/{id}/ops/ with a token) and the
WebSocket (the real ASGI app), plus the agent's write tools. Where the role may not do it:
refused (100 %), one SecurityEvent per refusal, 0 rows changed, and a refusal about an invisible
node is indistinguishable from one about an id that does not exist. Where it may: it commits.

Then the monotonicity property (Liveblocks' "adding a none scope never increases access"):
removing a role level never enlarges the set of allowed (op, target) pairs, observed in the matrix
and checked exhaustively on the permission functions.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import uuid
from dataclasses import dataclass

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.contrib.auth import get_user_model
from django.db import transaction
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from canvasweb.canvases import permissions, services
from canvasweb.canvases.actors import user_actor
from canvasweb.canvases.models import Canvas, Edge, Membership, Node, OpReceipt
from canvasweb.history.models import ChangeLogEntry, SecurityEvent

ROLES = ("owner", "editor", "viewer", "outsider")
KINDS = (
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
)
TARGETS = ("own", "foreign_ids", "foreign_canvas", "invisible")
REFUSAL_CODES = {"FORBIDDEN", "NOT_FOUND", "INVALID", "CONFLICT"}
HIDDEN_FOR = {"editor": "secret", "viewer": "internal"}  # a sensitivity each role may not see


@dataclass(frozen=True)
class Case:
    role: str
    kind: str
    target: str
    canvas_id: int
    op: dict

    @property
    def should_pass(self) -> bool:
        return self.role in ("owner", "editor") and self.target == "own"

    def label(self) -> str:
        return f"{self.role}/{self.kind}/{self.target}"


def _node(user, canvas_id, content, sensitivity="public"):
    result = services.apply_operation(
        actor=user_actor(user),
        canvas_id=canvas_id,
        op={"type": "node.create", "node": {"content": content, "x": 0, "y": 0, "sensitivity": sensitivity}},
    )
    return result.changes[0]["id"]


def _edge(user, canvas_id, source, target):
    result = services.apply_operation(
        actor=user_actor(user),
        canvas_id=canvas_id,
        op={"type": "edge.create", "edge": {"source": source, "target": target, "relation": "relates_to"}},
    )
    return result.changes[0]["id"]


def build_world() -> dict:
    """Canvas A (owner/editor/viewer; the outsider is no member) and canvas B (a stranger's)."""
    User = get_user_model()
    users = {
        role: User.objects.create_user(username=f"authz-{role}", password="pass-12345") for role in ROLES
    }
    users["stranger"] = User.objects.create_user(username="authz-stranger", password="pass-12345")
    owner = users["owner"]
    a = services.canvas_create(user=owner, name="A")
    for role in ("editor", "viewer"):
        services.member_set(actor=user_actor(owner), canvas_id=a.pk, user_id=users[role].pk, role=role)
    services.canvas_update(actor=user_actor(owner), canvas_id=a.pk, agent_policy={"mode": "auto"})
    world = {
        "users": users,
        "a": a.pk,
        "tokens": {r: Token.objects.create(user=u).key for r, u in users.items()},
    }
    world["pub1"], world["pub2"] = _node(owner, a.pk, "public one"), _node(owner, a.pk, "public two")
    world["internal"] = _node(owner, a.pk, "internal budget 40k", "internal")
    world["secret"] = _node(owner, a.pk, "secret hunter2", "secret")
    world["e_pub"] = _edge(owner, a.pk, world["pub1"], world["pub2"])
    world["e_internal"] = _edge(owner, a.pk, world["pub1"], world["internal"])
    world["e_secret"] = _edge(owner, a.pk, world["pub1"], world["secret"])
    b = services.canvas_create(user=users["stranger"], name="B")
    world["b"] = b.pk
    world["b1"], world["b2"] = (
        _node(users["stranger"], b.pk, "foreign one"),
        _node(users["stranger"], b.pk, "x"),
    )
    world["e_b"] = _edge(users["stranger"], b.pk, world["b1"], world["b2"])
    return world


def _single(kind: str, *, node: str, other: str, edge: str, sensitivity: str = "public") -> dict:
    fresh = str(uuid.uuid4())
    body = {"id": fresh, "content": "new", "x": 1, "y": 2, "sensitivity": sensitivity}
    return {
        "node.create": {"type": "node.create", "node": body},
        "node.update": {"type": "node.update", "id": node, "fields": {"content": "changed", "weight": 2}},
        "node.move": {"type": "node.move", "id": node, "x": 10, "y": 20},
        "node.delete": {"type": "node.delete", "id": node},
        "node.supersede": {"type": "node.supersede", "id": node, "node": {**body, "sensitivity": "public"}},
        "node.archive": {"type": "node.archive", "id": node, "archived": True},
        "edge.create": {
            "type": "edge.create",
            "edge": {"source": other, "target": node, "relation": "causes"},
        },
        "edge.update": {"type": "edge.update", "id": edge, "fields": {"label": "changed"}},
        "edge.delete": {"type": "edge.delete", "id": edge},
    }[kind]


def make_case(world: dict, role: str, kind: str, target: str) -> Case | None:
    a, b = world["a"], world["b"]
    if target == "invisible" and role not in HIDDEN_FOR:
        return None  # the owner sees everything; a non-member sees nothing (covered by "own")
    if target == "own":
        canvas_id, spec = a, {"node": world["pub1"], "other": world["pub2"], "edge": world["e_pub"]}
    elif target == "foreign_ids":  # our canvas, someone else's ids (IDOR)
        canvas_id, spec = a, {"node": world["b1"], "other": world["pub1"], "edge": world["e_b"]}
    elif target == "foreign_canvas":
        canvas_id, spec = b, {"node": world["b1"], "other": world["b2"], "edge": world["e_b"]}
    else:
        hidden = HIDDEN_FOR[role]
        canvas_id, spec = (
            a,
            {
                "node": world[hidden],
                "other": world["pub1"],
                "edge": world[f"e_{hidden}"],
                "sensitivity": hidden,
            },
        )
    inner = "node.update" if kind == "batch" else kind
    op = _single(inner, **spec)
    if target == "foreign_ids" and kind == "node.create":
        op["node"]["id"] = world["b1"]  # claim an id that lives in another canvas
    if kind == "batch":
        # A valid create first: the refusal of the second op must take it back too (atomic).
        op = {"type": "batch", "ops": [_single("node.create", node="", other="", edge=""), op]}
    return Case(role=role, kind=kind, target=target, canvas_id=canvas_id, op=op)


def all_cases(world: dict) -> list[Case]:
    cases = [make_case(world, r, k, t) for r, k, t in itertools.product(ROLES, KINDS, TARGETS)]
    return [c for c in cases if c is not None]


def fingerprint() -> str:
    """Every row the ops could touch."""
    rows = {
        "nodes": sorted(json.dumps(n, sort_keys=True, default=str) for n in Node.objects.values()),
        "edges": sorted(json.dumps(e, sort_keys=True, default=str) for e in Edge.objects.values()),
        "log": list(ChangeLogEntry.objects.order_by("id").values_list("id", "hash")),
        "receipts": OpReceipt.objects.count(),
        "canvases": sorted(Canvas.objects.values_list("id", "revision")),
        "members": sorted(Membership.objects.values_list("canvas_id", "user_id", "role")),
    }
    return hashlib.sha256(json.dumps(rows, default=str).encode()).hexdigest()


def _not_found_shape(message: str, ids: list[str]) -> str:
    for value in ids:
        message = message.replace(value, "<id>")
    return message


# --- REST -------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_rest_matrix(record_figures):
    world = build_world()
    clients = {}
    for role in ROLES:
        clients[role] = APIClient()
        clients[role].credentials(HTTP_AUTHORIZATION=f"Token {world['tokens'][role]}")
    cases = all_cases(world)
    failures, refused, allowed = [], 0, {role: set() for role in ROLES}
    for case in cases:
        user = world["users"][case.role]
        with transaction.atomic():
            before, events = fingerprint(), SecurityEvent.objects.count()
            response = clients[case.role].post(
                f"/api/canvases/{case.canvas_id}/ops/",
                {"client_op_id": f"authz-{uuid.uuid4().hex[:12]}", "op": case.op},
                format="json",
            )
            after, new_events = (
                fingerprint(),
                list(SecurityEvent.objects.order_by("-id")[: SecurityEvent.objects.count() - events]),
            )
            transaction.set_rollback(True)  # every case starts from the same world
        if response.status_code == 200:
            allowed[case.role].add((case.kind, case.target))
            if not case.should_pass:
                failures.append(f"{case.label()}: ALLOWED (200) but must be refused")
            elif after == before:
                failures.append(f"{case.label()}: 200 but nothing changed")
            continue
        code = response.json().get("error", {}).get("code")
        if not _refused_cleanly(case, f"{response.status_code} {code}", code, before, after, failures):
            continue
        refused += 1
        if (
            len(new_events) != 1
            or new_events[0].user_id != user.pk
            or new_events[0].code != code
            or new_events[0].channel != "rest"
        ):
            failures.append(
                f"{case.label()}: {len(new_events)} security events for one refusal "
                f"{[(e.user_id, e.code, e.channel) for e in new_events]}"
            )
    record_figures(
        "authz_rest",
        {
            "cases": len(cases),
            "must_refuse": sum(not c.should_pass for c in cases),
            "refused": refused,
            "allowed": sum(c.should_pass for c in cases),
            "failures": len(failures),
        },
    )
    assert not failures, "\n".join(failures)
    _assert_monotone(allowed)


@pytest.mark.django_db
def test_invisible_is_indistinguishable_from_missing():
    """A refusal about a node you may not see reads exactly like one about an id that does not exist."""
    world = build_world()
    for role, hidden in HIDDEN_FOR.items():
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {world['tokens'][role]}")
        missing = str(uuid.uuid4())
        for kind in ("node.update", "node.move", "node.delete", "node.archive"):
            answers = []
            for node in (world[hidden], missing):
                op = _single(kind, node=node, other=world["pub1"], edge=world["e_pub"])
                body = client.post(f"/api/canvases/{world['a']}/ops/", {"op": op}, format="json").json()[
                    "error"
                ]
                answers.append((body["code"], body["field"], _not_found_shape(body["message"], [node])))
            if role == "viewer":
                assert answers[0][0] == "FORBIDDEN" and answers[0] == answers[1], (role, kind, answers)
            else:
                assert answers[0] == answers[1] and answers[0][0] == "NOT_FOUND", (role, kind, answers)
        # Edges touching an invisible node are invisible too.
        edge = world[f"e_{hidden}"]
        body = client.post(
            f"/api/canvases/{world['a']}/ops/", {"op": {"type": "edge.delete", "id": edge}}, format="json"
        ).json()["error"]
        assert body["code"] in ("NOT_FOUND", "FORBIDDEN") and "hunter2" not in json.dumps(body)


# --- WebSocket ----------------------------------------------------------------------------------


def _communicator(canvas_id, token):
    from canvasweb.config.asgi import application

    return WebsocketCommunicator(
        application,
        f"/ws/canvases/{canvas_id}/",
        headers=[(b"origin", b"http://localhost"), (b"authorization", f"Token {token}".encode())],
    )


async def _ws_op(ws, op) -> dict:
    client_op_id = f"authz-{uuid.uuid4().hex[:12]}"
    await ws.send_json_to({"type": "op", "client_op_id": client_op_id, "op": op})
    while True:
        message = await ws.receive_json_from(timeout=5)
        if message.get("client_op_id") == client_op_id and message["type"] in ("ack", "reject"):
            return message


@pytest.mark.django_db(transaction=True)
async def test_websocket_matrix(record_figures, settings):
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    world = await database_sync_to_async(build_world)()
    failures, refused, handshake_refusals, cases = [], 0, 0, []
    sockets: dict[tuple[str, int], WebsocketCommunicator | None] = {}

    async def socket_for(role, canvas_id):
        key = (role, canvas_id)
        if key not in sockets:
            ws = _communicator(canvas_id, world["tokens"][role])
            connected, _ = await ws.connect()
            if connected:
                await ws.send_json_to({"type": "hello", "last_revision": None})
                await ws.receive_json_from(timeout=5)  # welcome
                sockets[key] = ws
            else:
                await ws.disconnect()
                sockets[key] = None
        return sockets[key]

    for role, kind, target in itertools.product(ROLES, KINDS, TARGETS):
        case = make_case(world, role, kind, target)  # built now: allowed writes replace the targets
        if case is None:
            continue
        cases.append(case)
        user = world["users"][case.role]
        before = await database_sync_to_async(fingerprint)()
        events = await database_sync_to_async(SecurityEvent.objects.count)()
        connected_before = (case.role, case.canvas_id) in sockets
        ws = await socket_for(case.role, case.canvas_id)
        if ws is None:
            # Refused at the handshake (HTTP 403 before accept): a non-member never gets a socket.
            if case.should_pass:
                failures.append(f"{case.label()}: handshake refused, must be allowed")
                continue
            handshake_refusals += 1
            refused += 1
            after = await database_sync_to_async(fingerprint)()
            new = await database_sync_to_async(lambda: list(SecurityEvent.objects.order_by("-id")[:1]))()
            if after != before:
                failures.append(f"{case.label()}: handshake refusal changed rows")
            if not connected_before and (
                await database_sync_to_async(SecurityEvent.objects.count)() != events + 1
                or new[0].op_type != "connect"
                or new[0].user_id != user.pk
            ):
                failures.append(f"{case.label()}: refused handshake not recorded once")
            continue
        answer = await _ws_op(ws, case.op)
        after = await database_sync_to_async(fingerprint)()
        new_events = await database_sync_to_async(
            lambda: list(SecurityEvent.objects.filter(id__gt=0).order_by("-id")[:5])
        )()
        count = await database_sync_to_async(SecurityEvent.objects.count)()
        if answer["type"] == "ack":
            if not case.should_pass:
                failures.append(f"{case.label()}: ACKED but must be refused")
            else:
                world = await _fresh_targets(world)
            continue
        code = answer["error"]["code"]
        if not _refused_cleanly(case, code, code, before, after, failures):
            continue
        refused += 1
        if count != events + 1 or new_events[0].channel != "websocket" or new_events[0].user_id != user.pk:
            failures.append(f"{case.label()}: {count - events} security events for one refusal")
    for ws in sockets.values():
        if ws is not None:
            await ws.disconnect()
    record_figures(
        "authz_websocket",
        {
            "cases": len(cases),
            "must_refuse": sum(not c.should_pass for c in cases),
            "refused": refused,
            "handshake_refusals": handshake_refusals,
            "failures": len(failures),
        },
    )
    assert not failures, "\n".join(failures)


async def _fresh_targets(world):
    """An allowed op changed canvas A (deleted, superseded or archived pub1...): new targets for what follows."""

    def rebuild():
        owner, a = world["users"]["owner"], world["a"]
        world["pub1"], world["pub2"] = _node(owner, a, "public one"), _node(owner, a, "public two")
        world["e_pub"] = _edge(owner, a, world["pub1"], world["pub2"])
        world["e_internal"] = _edge(owner, a, world["pub1"], world["internal"])
        world["e_secret"] = _edge(owner, a, world["pub1"], world["secret"])
        return world

    return await database_sync_to_async(rebuild)()


# --- agent tools -----------------------------------------------------------------------------


@pytest.mark.django_db
def test_agent_tools_matrix(record_figures):
    from canvasweb.agent import tools
    from tests.agent.conftest import call, prepare_turn, run_calls

    world = build_world()
    failures, refused, allowed_cases, cases = [], 0, 0, 0
    for role in ROLES:
        user = world["users"][role]
        for tool in tools.WRITE_TOOLS:
            for target in ("own", "foreign_ids", "invisible"):
                if target == "invisible" and role not in HIDDEN_FOR:
                    continue
                cases += 1
                with transaction.atomic():
                    turn = prepare_turn(user, world["a"]) if role != "outsider" else None
                    handle = None
                    if turn is not None and target == "own":
                        handle = next(
                            (h for h, nid in turn.handles.items() if str(nid) == world["pub1"]), None
                        )
                    node_ref = {
                        "own": handle,
                        "foreign_ids": world["b1"],
                        "invisible": world.get(HIDDEN_FOR.get(role, ""), ""),
                    }[target]
                    other = next(
                        (h for h, nid in (turn.handles.items() if turn else []) if str(nid) == world["pub2"]),
                        "n2",
                    )
                    args = {
                        "add_node": {"content": "agent note"},
                        "update_node": {"node": node_ref, "content": "agent edit"},
                        "move_node": {"node": node_ref, "x": 5, "y": 5},
                        "link_nodes": {"source": node_ref, "target": other, "relation": "relates_to"},
                        "supersede_node": {"node": node_ref, "content": "agent replacement"},
                        "archive_node": {"node": node_ref},
                    }[tool]
                    if tool == "add_node" and target != "own":
                        args["near"] = node_ref
                    before, events = fingerprint(), SecurityEvent.objects.count()
                    if turn is None:
                        from canvasweb.agent.runner import AgentRunner

                        runner = AgentRunner.for_user(user=user, canvas_id=world["a"])
                        offered = runner.tools_offered() if runner else []
                        outcome = "refused" if not offered else "offered"
                        new_events = 0
                        after = fingerprint()
                    else:
                        _results, agent_events, _, _ = run_calls(
                            user, world["a"], [call(tool, args)], turn=turn
                        )
                        outcome = agent_events[0]["outcome"]
                        after = fingerprint()
                        new_events = SecurityEvent.objects.count() - events
                    transaction.set_rollback(True)
                should_pass = role in ("owner", "editor") and target == "own"
                label = f"agent {role}/{tool}/{target}"
                if outcome in ("applied", "proposed"):
                    allowed_cases += 1
                    if not should_pass:
                        failures.append(f"{label}: {outcome} but must be refused")
                    continue
                if should_pass:
                    failures.append(f"{label}: {outcome}, must be allowed")
                    continue
                refused += 1
                # The agent's run bookkeeping (AgentRun/AgentToolCall) may change; canvas rows may not.
                if after != before:
                    failures.append(f"{label}: refused but canvas rows changed")
                if turn is not None and new_events != 1:
                    failures.append(f"{label}: {new_events} security events for one refusal")
    record_figures(
        "authz_agent",
        {"cases": cases, "refused": refused, "allowed": allowed_cases, "failures": len(failures)},
    )
    assert not failures, "\n".join(failures)


# --- monotonicity ---------------------------------------------------------------------------------


ORDER = ("owner", "editor", "viewer", "outsider")


def _assert_monotone(allowed: dict[str, set]) -> None:
    for higher, lower in itertools.pairwise(ORDER):
        assert allowed[lower] <= allowed[higher], (
            f"{lower} may do {sorted(allowed[lower] - allowed[higher])} that {higher} may not"
        )


def test_permission_functions_are_monotone_in_the_role():
    """Exhaustive over roles x operations x sensitivities: a lower role never gets more."""
    operations = sorted(set().union(*permissions.ROLE_OPERATIONS.values()) | {"node.create", "member.manage"})
    roles = ["owner", "editor", "viewer", None]
    for higher, lower in itertools.pairwise(roles):
        for operation in operations:
            if permissions.role_allows(lower, operation):
                assert permissions.role_allows(higher, operation), (lower, higher, operation)
        if lower is None:
            continue
        for sensitivity in ("public", "internal", "secret"):
            if permissions.can_see(lower, sensitivity):
                assert permissions.can_see(higher, sensitivity)
    # Sensitivity levels are a chain too: whoever may see a level may see every lower one.
    for role in ("owner", "editor", "viewer"):
        seen = [permissions.can_see(role, s) for s in ("public", "internal", "secret")]
        assert seen == sorted(seen, reverse=True), (role, seen)


def _refused_cleanly(case, answer: str, code: str, before, after, failures: list[str]) -> bool:
    """Record what is wrong with a refusal; False when the case should have been allowed."""
    if case.should_pass:
        failures.append(f"{case.label()}: refused {answer}, must be allowed")
        return False
    if code not in REFUSAL_CODES:
        failures.append(f"{case.label()}: refused with {code}")
    if after != before:
        failures.append(f"{case.label()}: refused but rows changed")
    return True
