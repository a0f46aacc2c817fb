"""What the agent may touch: role ∩ canvas policy, enforced in code on every call (auto mode writes directly)."""

from __future__ import annotations

import copy
import json

import pytest

from canvasweb.agent import tools
from canvasweb.agent.models import AgentRun, AgentToolCall, Proposal
from canvasweb.agent.runner import AgentRunner
from canvasweb.canvases import services
from canvasweb.canvases.models import Edge, Node
from canvasweb.history.models import ChangeLogEntry, SecurityEvent
from tests.agent.conftest import (
    call,
    canvas_state,
    create_node,
    handle_of,
    prepare_turn,
    run_calls,
    set_policy,
)

pytestmark = pytest.mark.django_db


def refused(results, events, code=None):
    assert all(e["outcome"] == "refused" for e in events), events
    assert all(r["ok"] is False for r in results)
    if code:
        assert {r["error"]["code"] for r in results} == {code}, results
    return [r["error"]["message"] for r in results]


def unchanged(before, keys=("nodes", "edges", "log", "revisions")):
    after = canvas_state()
    for key in keys:
        assert after[key] == before[key], key


@pytest.fixture
def auto_tagged(seeded, alice):
    canvas, ids = seeded
    set_policy(alice, canvas.pk, mode="auto", scope="tagged")
    canvas.refresh_from_db()
    return canvas, ids


def test_tagged_scope_refuses_untagged_nodes_and_allows_tagged_and_agent_written(auto_tagged, bob):
    canvas, ids = auto_tagged
    turn = prepare_turn(bob, canvas.pk)
    before, security = canvas_state(), SecurityEvent.objects.count()
    results, events, runner, _ = run_calls(
        bob,
        canvas.pk,
        [
            call("update_node", {"node": handle_of(turn, ids["redis"]), "content": "Cache: none"}),
            call("move_node", {"node": handle_of(turn, ids["redis"]), "x": 500, "y": 500}),
            call("archive_node", {"node": handle_of(turn, ids["redis"])}),
            call("supersede_node", {"node": handle_of(turn, ids["redis"]), "content": "Cache: Memcached"}),
            call(
                "link_nodes",
                {
                    "source": handle_of(turn, ids["redis"]),
                    "target": handle_of(turn, ids["tagged"]),
                    "relation": "causes",
                },
            ),
        ],
        turn=turn,
    )
    messages = refused(results, events, "FORBIDDEN")
    assert all("agent-writable" in m for m in messages)
    unchanged(before)
    assert SecurityEvent.objects.count() - security == 5

    results, events, runner, _ = run_calls(
        bob,
        canvas.pk,
        [
            call("update_node", {"node": handle_of(turn, ids["tagged"]), "content": "Region: eu-west-1"}),
            call("add_node", {"content": "Agent note", "x": 5, "y": 5}),
        ],
        turn=turn,
    )
    assert [e["outcome"] for e in events] == ["applied", "applied"]
    new_handle = results[1]["node"]
    results, events, _, _ = run_calls(
        bob,
        canvas.pk,
        [
            call("update_node", {"node": new_handle, "content": "Agent note, edited by the agent"}),
            call(
                "link_nodes",
                {"source": new_handle, "target": handle_of(turn, ids["redis"]), "relation": "relates_to"},
            ),
        ],
        turn=turn,
        runner=runner,
    )
    assert [e["outcome"] for e in events] == ["applied", "applied"]


def test_pinned_anchors_are_protected_unless_the_owner_allows_it(auto_tagged, alice, bob):
    canvas, ids = auto_tagged
    set_policy(alice, canvas.pk, scope="all")
    turn = prepare_turn(bob, canvas.pk)
    anchor = handle_of(turn, ids["anchor"])
    before = canvas_state()
    results, events, _, _ = run_calls(
        bob,
        canvas.pk,
        [
            call("update_node", {"node": anchor, "content": "Goal: cancelled"}),
            call("move_node", {"node": anchor, "x": 1, "y": 1}),
            call("archive_node", {"node": anchor}),
            call("supersede_node", {"node": anchor, "content": "Goal: nothing"}),
        ],
        turn=turn,
    )
    assert all("pinned" in m for m in refused(results, events, "FORBIDDEN"))
    unchanged(before)
    set_policy(alice, canvas.pk, protect_pinned=False)
    results, events, _, _ = run_calls(
        bob, canvas.pk, [call("move_node", {"node": anchor, "x": 1, "y": 1})], turn=turn
    )
    assert events[0]["outcome"] == "applied"


def test_invisible_nodes_cannot_be_reached_by_handle_or_id(auto_tagged, alice, bob):
    canvas, ids = auto_tagged
    set_policy(alice, canvas.pk, scope="all")
    turn = prepare_turn(bob, canvas.pk)
    assert ids["secret"] not in turn.handles.values()  # an editor never sees a secret node
    secret_node = Node.objects.get(pk=ids["secret"])
    before = canvas_state()
    results, events, _, _ = run_calls(
        bob,
        canvas.pk,
        [
            call("update_node", {"node": ids["secret"], "content": "x"}),  # its raw id
            call("read_node", {"node": ids["secret"]}),
            call(
                "update_node", {"node": f"n{len(turn.handles) + 1}", "content": "x"}
            ),  # the next, unissued handle
            call("read_node", {"node": "n999"}),
            call(
                "link_nodes",
                {"source": handle_of(turn, ids["redis"]), "target": ids["secret"], "relation": "causes"},
            ),
        ],
        turn=turn,
    )
    refused(results, events)
    assert [r["error"]["code"] for r in results] == [
        "INVALID",
        "INVALID",
        "NOT_FOUND",
        "NOT_FOUND",
        "INVALID",
    ]
    search, _, _, _ = run_calls(
        bob, canvas.pk, [call("search_nodes", {"query": "prod db password key"})], turn=turn
    )
    assert search[0]["results"] == []
    unchanged(before)
    assert Node.objects.get(pk=ids["secret"]).version == secret_node.version


def test_an_owners_agent_sees_secret_placeholders_but_may_not_touch_them(auto_tagged, alice):
    canvas, ids = auto_tagged
    set_policy(alice, canvas.pk, scope="all")
    turn = prepare_turn(alice, canvas.pk)
    handle = handle_of(turn, ids["secret"])
    before = canvas_state()
    results, events, _, _ = run_calls(
        alice,
        canvas.pk,
        [
            call("update_node", {"node": handle, "content": "rotated"}),
            call("archive_node", {"node": handle}),
            call(
                "link_nodes",
                {"source": handle_of(turn, ids["redis"]), "target": handle, "relation": "causes"},
            ),
            call("supersede_node", {"node": handle, "content": "new password"}),
        ],
        turn=turn,
    )
    assert all("secret" in m for m in refused(results, events, "FORBIDDEN"))
    unchanged(before)
    results, events, _, _ = run_calls(alice, canvas.pk, [call("read_node", {"node": handle})], turn=turn)
    text = json.dumps(results)
    assert results[0]["node"]["secret"] is True and "withheld" in results[0]["node"]["text"]
    assert "Hunter2" not in text and "CANARY" not in text


def test_other_canvases_are_out_of_reach(auto_tagged, alice, bob, make_user):
    canvas, ids = auto_tagged
    set_policy(alice, canvas.pk, scope="all")
    other = services.canvas_create(user=bob, name="bob's own canvas")  # bob owns it; still out of reach here
    foreign = create_node(bob, other.pk, "bob's private plan", x=0, y=0)
    turn = prepare_turn(bob, canvas.pk)
    before = canvas_state()
    results, events, _, _ = run_calls(
        bob,
        canvas.pk,
        [
            call("update_node", {"node": foreign, "content": "hijacked"}),
            call(
                "link_nodes",
                {"source": handle_of(turn, ids["redis"]), "target": foreign, "relation": "causes"},
            ),
            call("read_node", {"node": foreign}),
        ],
        turn=turn,
    )
    assert "node handle" in refused(results, events, "INVALID")[0]
    # A handle from this canvas's own turn never maps to another canvas's node, even with the same number.
    other_turn = prepare_turn(bob, other.pk)
    assert foreign in other_turn.handles.values()
    results, events, _, _ = run_calls(
        bob, canvas.pk, [call("read_node", {"node": handle_of(other_turn, foreign)})], turn=turn
    )
    assert "private plan" not in json.dumps(results)
    unchanged(before)


def test_deletes_are_never_offered_and_never_possible(auto_tagged, alice, bob):
    canvas, ids = auto_tagged
    set_policy(alice, canvas.pk, scope="all")
    runner = AgentRunner.for_user(user=alice, canvas_id=canvas.pk)
    offered = {t["function"]["name"] for t in runner.tools_offered()}
    assert offered == set(tools.ALL_TOOLS) and not any("delete" in n for n in offered)
    turn = prepare_turn(alice, canvas.pk)
    before = canvas_state()
    results, events, _, _ = run_calls(
        alice,
        canvas.pk,
        [
            call("delete_node", {"node": handle_of(turn, ids["redis"])}),
            call("delete_edge", {"edge": ids["edge"]}),
            call("remove_node", {"node": "n1"}),
            call("clear_canvas", {}),
            call("node.delete", {"id": ids["redis"]}),
        ],
        turn=turn,
    )
    refused(results, events)
    assert [r["error"]["code"] for r in results] == ["FORBIDDEN"] * 4 + ["FORBIDDEN"]
    unchanged(before)
    assert not ChangeLogEntry.objects.filter(actor_kind="agent", action="deleted").exists()
    assert not [
        op for op in AgentToolCall.objects.values_list("op", flat=True) if op and "delete" in op["type"]
    ]


def test_archive_can_be_switched_off_and_off_mode_offers_nothing(auto_tagged, alice, bob):
    canvas, ids = auto_tagged
    set_policy(alice, canvas.pk, scope="all", allow_archive=False)
    runner = AgentRunner.for_user(user=bob, canvas_id=canvas.pk)
    assert "archive_node" not in {t["function"]["name"] for t in runner.tools_offered()}
    turn = prepare_turn(bob, canvas.pk)
    results, events, _, _ = run_calls(
        bob,
        canvas.pk,
        [call("archive_node", {"node": handle_of(turn, ids["redis"])})],
        turn=turn,
        runner=runner,
    )
    refused(results, events, "FORBIDDEN")
    set_policy(alice, canvas.pk, mode="off")
    runner = AgentRunner.for_user(user=bob, canvas_id=canvas.pk)
    assert runner.tools_offered() == []
    before = canvas_state()
    results, events, _, _ = run_calls(
        bob,
        canvas.pk,
        [call("add_node", {"content": "x"}), call("search_nodes", {"query": "cache"})],
        turn=turn,
        runner=runner,
    )
    assert all("switched off" in m for m in refused(results, events, "FORBIDDEN"))
    unchanged(before)


def test_the_agent_writes_no_credentials_and_cannot_declassify(auto_tagged, alice, bob):
    canvas, ids = auto_tagged
    set_policy(alice, canvas.pk, scope="all")
    turn = prepare_turn(bob, canvas.pk)
    before = canvas_state()
    results, events, _, _ = run_calls(
        bob,
        canvas.pk,
        [
            call("add_node", {"content": "backup key sk-CANARYsecret0123456789abcd"}),
            call("add_node", {"content": "the password is Hunter2-Canary-77"}),  # a secret node's value
            call("add_node", {"content": "AWS AKIACANARY0123456789"}),
            call(
                "add_node",
                {"content": "-----BEGIN RSA PRIVATE KEY-----\nMIIB\n-----END RSA PRIVATE KEY-----"},
            ),
            call(
                "update_node",
                {"node": handle_of(turn, ids["redis"]), "tags": ["token=abcdef0123456789abcdef"]},
            ),
            call(
                "link_nodes",
                {
                    "source": handle_of(turn, ids["redis"]),
                    "target": handle_of(turn, ids["tagged"]),
                    "relation": "causes",
                    "label": "password: Hunter2-Canary-77",
                },
            ),
        ],
        turn=turn,
    )
    refused(results, events, "FORBIDDEN")
    text = json.dumps(results) + json.dumps(events)
    assert "Hunter2" not in text and "CANARYsecret" not in text
    unchanged(before)
    # The replacement of an internal node stays internal; the schema has no way to lower sensitivity.
    results, events, _, _ = run_calls(
        bob,
        canvas.pk,
        [
            call(
                "supersede_node", {"node": handle_of(turn, ids["internal"]), "content": "Budget is 45k EUR"}
            ),
            call("update_node", {"node": handle_of(turn, ids["internal"]), "sensitivity": "public"}),
            call("add_node", {"content": "classified", "sensitivity": "secret"}),
            call("add_node", {"content": "anchor me", "pinned": True}),
        ],
        turn=turn,
    )
    assert [e["outcome"] for e in events] == ["applied", "refused", "refused", "refused"]
    new = Node.objects.get(superseded_by=None, content="Budget is 45k EUR")
    assert (
        new.sensitivity == "internal"
        and not Node.objects.filter(sensitivity="secret", author_kind="agent").exists()
    )


def test_provenance_and_change_log_name_the_agent_the_user_and_the_conversation(auto_tagged, alice, bob):
    canvas, ids = auto_tagged
    set_policy(alice, canvas.pk, scope="all")
    turn = prepare_turn(bob, canvas.pk, text="remember that we switched to Memcached")
    results, events, runner, _ = run_calls(
        bob,
        canvas.pk,
        [
            call(
                "supersede_node",
                {"node": handle_of(turn, ids["redis"]), "content": "Cache: Memcached for sessions"},
            )
        ],
        turn=turn,
    )
    assert events[0]["outcome"] == "applied" and results[0]["node"].startswith("n")
    new = Node.objects.get(content="Cache: Memcached for sessions")
    assert new.author_kind == "agent" and new.created_by == bob
    assert new.provenance == {
        "on_behalf_of": {"id": bob.pk, "username": "bob"},
        "conversation_id": turn.conversation.pk,
        "message_id": turn.assistant_message.pk,
        "agent_run_id": runner.run.run_id,
        "approved_by": None,
        "via": None,
    }
    entries = ChangeLogEntry.objects.filter(revision=events[0]["revision"], canvas=canvas)
    assert entries.count() == 3  # node created, old node updated, supersedes edge created
    for entry in entries:
        assert (
            entry.actor_kind,
            entry.actor_user,
            entry.conversation_id,
            entry.message_id,
            entry.agent_run_id,
        ) == ("agent", bob, turn.conversation.pk, turn.assistant_message.pk, runner.run.run_id)
    assert Edge.objects.get(source=new).author_kind == "agent"
    assert Node.objects.get(pk=ids["redis"]).superseded_by_id == new.pk


def test_per_turn_write_cap_and_per_user_rate_limits(auto_tagged, alice, bob, settings):
    canvas, _ = auto_tagged
    calls = [call("add_node", {"content": f"note {i}", "x": i, "y": 0}) for i in range(12)]
    security = SecurityEvent.objects.count()
    results, events, _, _ = run_calls(bob, canvas.pk, calls)
    outcomes = [e["outcome"] for e in events]
    assert outcomes == ["applied"] * 10 + ["refused"] * 2
    assert {r["error"]["code"] for r in results[10:]} == {"RATE_LIMITED"}
    assert SecurityEvent.objects.count() - security == 2

    settings.AGENT = {**settings.AGENT, "MAX_WRITES_PER_WINDOW": 12}  # 10 already used this window
    results, events, _, _ = run_calls(bob, canvas.pk, calls[:4])
    assert [e["outcome"] for e in events] == ["applied", "applied", "refused", "refused"]
    assert "rate limit" in results[2]["error"]["message"]

    settings.AGENT = {**settings.AGENT, "MAX_TURNS_PER_WINDOW": AgentRun.objects.filter(user=bob).count()}
    runner = AgentRunner.for_user(user=bob, canvas_id=canvas.pk)
    assert runner.tools_offered() == []
    assert SecurityEvent.objects.filter(user=bob, op_type="agent.turn", code="RATE_LIMITED").count() == 1
    results, events, _, _ = run_calls(bob, canvas.pk, [call("search_nodes", {"query": "x"})], runner=runner)
    assert results[0]["error"]["code"] == "RATE_LIMITED"


def test_the_max_calls_per_response_cap(auto_tagged, bob, settings):
    canvas, _ = auto_tagged
    settings.AGENT = {**settings.AGENT, "MAX_CALLS_PER_ROUND": 3}
    _results, events, _, _ = run_calls(bob, canvas.pk, [call("search_nodes", {"query": "cache"})] * 5)
    assert [e["outcome"] for e in events] == ["read"] * 3 + ["refused"] * 2


def test_every_refused_call_has_exactly_one_security_event_whatever_stage_refused_it(auto_tagged, alice, bob):
    """Schema, handle, policy, write-path and dry-run refusals are each recorded once."""
    canvas, ids = auto_tagged
    turn = prepare_turn(bob, canvas.pk)
    mixed = [
        call("nonsense_tool", {}),  # unknown tool
        call("add_node", "{broken"),  # bad JSON
        call("update_node", {"node": "n77", "content": "x"}),  # unknown handle
        call("update_node", {"node": handle_of(turn, ids["redis"]), "content": "x"}),  # scope (write path)
        call("add_node", {"content": "sk-CANARYsecret0123456789abcd"}),  # output filter
    ]
    for mode in ("auto", "propose"):
        set_policy(alice, canvas.pk, mode=mode)
        security = SecurityEvent.objects.count()
        # copy: the runner masks credentials in the calls' arguments in place
        results, events, _, _ = run_calls(bob, canvas.pk, copy.deepcopy(mixed), turn=turn)
        refused(results, events)
        assert SecurityEvent.objects.count() - security == len(mixed), mode
        assert not Proposal.objects.exists()
