"""Fact suggestions over REST: supersede with old → new, warnings to confirm, conflicts_with, reload, dedup."""

from __future__ import annotations

import pytest

from canvasweb.canvases.models import Canvas, Edge, Node
from canvasweb.chat import services, suggestions
from canvasweb.chat.models import FactSuggestion
from canvasweb.history.models import ChangeLogEntry
from tests.conftest import node_op

pytestmark = pytest.mark.django_db


def say(user, canvas, text, llm, conversation_id=None):
    llm.push({"content": "ok"})
    turn = services.turn_prepare(
        user=user, canvas_id=canvas.pk, text=text, viewport=None, conversation_id=conversation_id
    )
    services.turn_finish(turn=turn, text="ok", usage=None, latency_ms=1)
    return turn


def accept(client, suggestion, **body):
    return client.post(
        f"/api/suggestions/{suggestion['id'] if isinstance(suggestion, dict) else suggestion.pk}/accept/",
        body,
        format="json",
    )


def test_a_correction_supersedes_the_node_with_old_and_new(
    canvas, alice, apply, scripted_llm, client_for, matches_schema
):
    old = apply(alice, node_op("Signed URLs expire after 10 minutes.")).changes[0]["id"]
    turn = say(alice, canvas, "Change the signed URL expiry from 10 minutes to 25 minutes.", scripted_llm)
    [s] = turn.suggestions
    assert (s["action"], s["content"], s["previous_value"], s["supersede_node_id"], s["warnings"]) == (
        "supersede",
        "Signed URL expiry: 25 minutes",
        "10 minutes",
        old,
        [],
    )
    assert s["supersede_content"] == "Signed URLs expire after 10 minutes."
    response = accept(client_for(alice), s, x=5, y=5)
    matches_schema(response, "suggestion_accept")
    assert response.status_code == 200, response.json()
    new_id = response.json()["suggestion"]["created_node_id"]
    assert str(Node.objects.get(pk=old).superseded_by_id) == new_id
    assert Node.objects.get(pk=new_id).content == "Signed URL expiry: 25 minutes"
    assert ChangeLogEntry.objects.filter(
        target_id=new_id, actor_user=alice, op_type="node.supersede"
    ).exists()
    preview = (
        client_for(alice)
        .post(f"/api/canvases/{canvas.pk}/context-preview/", {"text": "URL expiry?"}, format="json")
        .json()
    )
    assert old not in {n["node_id"] for n in preview["included"]}


def test_a_correction_of_a_correction_retires_the_intermediate_node(
    canvas, alice, apply, scripted_llm, client_for
):
    first_node = apply(alice, node_op("导出任务的截止日期是7月1日")).changes[0]["id"]
    turn = say(alice, canvas, "导出任务的截止日期改成7月8日", scripted_llm)
    [s1] = turn.suggestions
    assert s1["supersede_node_id"] == first_node
    middle = accept(client_for(alice), s1).json()["suggestion"]["created_node_id"]
    turn = say(alice, canvas, "刚才说错了，是7月15日", scripted_llm, conversation_id=turn.conversation.pk)
    [s2] = turn.suggestions
    assert (s2["supersede_node_id"], s2["previous_value"], s2["content"]) == (
        middle,
        "7月8日",
        "导出任务的截止日期：7月15日",
    )
    last = accept(client_for(alice), s2).json()["suggestion"]["created_node_id"]
    live = Node.objects.filter(canvas=canvas, superseded_by__isnull=True, archived=False)
    assert [n.content for n in live] == ["导出任务的截止日期：7月15日"] and str(live[0].pk) == last


def test_a_fact_said_again_is_offered_once_from_the_newest_message(canvas, alice, apply, scripted_llm):
    node = apply(alice, node_op("Kick-off is on June 3")).changes[0]["id"]
    first = say(alice, canvas, "Correction: the kick-off moved to June 10.", scripted_llm)
    [s1] = first.suggestions
    again = say(
        alice,
        canvas,
        "Correction: the kick-off moved to June 10.",
        scripted_llm,
        conversation_id=first.conversation.pk,
    )
    [s2] = again.suggestions
    assert (
        (s1["content"], s1["supersede_node_id"])
        == (s2["content"], s2["supersede_node_id"])
        == (s1["content"], node)
    )
    pending = FactSuggestion.objects.filter(conversation=first.conversation, status="pending")
    assert [p.pk for p in pending] == [s2["id"]]
    other = say(alice, canvas, "The venue is Hall B.", scripted_llm, conversation_id=first.conversation.pk)
    assert {p.pk for p in pending.all()} == {s2["id"], *(x["id"] for x in other.suggestions)}


def test_retiring_a_pinned_node_needs_confirmation(canvas, alice, apply, scripted_llm, client_for):
    pinned = apply(alice, node_op("Team offsite: Nov 4", pinned=True)).changes[0]["id"]
    [s] = say(alice, canvas, "Correction: the team offsite is on Nov 11.", scripted_llm).suggestions
    assert s["supersede_node_id"] == pinned and s["warnings"] == ["pinned"]
    refused = accept(client_for(alice), s)
    assert refused.status_code == 400 and refused.json()["error"]["field"] == "confirm"
    assert Node.objects.get(pk=pinned).superseded_by_id is None
    assert accept(client_for(alice), s, confirm=True).status_code == 200
    assert Node.objects.get(pk=pinned).superseded_by_id is not None


def test_the_new_value_takes_over_the_old_nodes_weight_pin_and_links(
    canvas, alice, bob, apply, scripted_llm, client_for
):
    old = apply(alice, node_op("Release freeze starts on May 2", weight=4, pinned=True)).changes[0]["id"]
    plan = apply(alice, node_op("Plan the QA sprint", kind="requirement")).changes[0]["id"]
    hidden = apply(alice, node_op("Board memo", sensitivity="secret")).changes[0]["id"]
    shelved = apply(alice, node_op("Old idea")).changes[0]["id"]
    apply(alice, {"type": "edge.create", "edge": {"source": plan, "target": old, "relation": "depends_on"}})
    apply(alice, {"type": "edge.create", "edge": {"source": old, "target": hidden, "relation": "relates_to"}})
    apply(alice, {"type": "edge.create", "edge": {"source": old, "target": shelved, "label": "was"}})
    apply(alice, {"type": "node.archive", "id": shelved})
    [s] = say(bob, canvas, "Correction: the release freeze starts on May 9.", scripted_llm).suggestions
    assert s["supersede_node_id"] == old
    before = Canvas.objects.get(pk=canvas.pk).revision
    response = accept(client_for(bob), s, confirm=True)
    assert response.status_code == 200, response.json()
    new = Node.objects.get(pk=response.json()["suggestion"]["created_node_id"])
    assert (new.weight, new.pinned) == (4, True)
    retired = Node.objects.get(pk=old)
    assert (str(retired.superseded_by_id), retired.pinned) == (str(new.pk), False)
    links = {(str(e.source_id), str(e.target_id), e.relation) for e in Edge.objects.filter(canvas=canvas)}
    assert (plan, str(new.pk), "depends_on") in links and (plan, old, "depends_on") in links
    # Links to a node bob may not see, or to an archived one, stay with the old node only.
    assert not {lk for lk in links if lk[0] == str(new.pk) and lk[1] in (hidden, shelved)}
    assert Canvas.objects.get(pk=canvas.pk).revision == before + 1  # one change: one revision, one undo


def test_lowering_the_sensitivity_of_a_correction_needs_confirmation(
    canvas, alice, apply, scripted_llm, client_for
):
    old = apply(alice, node_op("Vendor day rate: $800", sensitivity="internal")).changes[0]["id"]
    [s] = say(alice, canvas, "Change the vendor day rate from $800 to $850.", scripted_llm).suggestions
    assert s["supersede_node_id"] == old and s["sensitivity"] == "internal" and s["warnings"] == []
    refused = accept(client_for(alice), s, sensitivity="public")
    assert refused.status_code == 400 and "more restricted" in refused.json()["error"]["message"]
    assert accept(client_for(alice), s, sensitivity="public", confirm=True).status_code == 200


def test_no_supersede_without_a_value_conflict(canvas, alice, apply, scripted_llm):
    goal = apply(alice, node_op("Goal: open the ramen shop in Osaka by Aug 1.", pinned=True)).changes[0]["id"]
    turn = say(
        alice,
        canvas,
        "We're going with Square for the ramen shop payments. The shop sign is due Jul 3.",
        scripted_llm,
    )
    assert turn.suggestions and all(s["supersede_node_id"] != goal for s in turn.suggestions)


def test_a_conflict_with_a_constraint_is_linked_on_accept(canvas, alice, apply, scripted_llm, client_for):
    rule = apply(alice, node_op("Never deploy on Fridays.", kind="requirement")).changes[0]["id"]
    [s] = say(alice, canvas, "Let's deploy the billing fix on Friday.", scripted_llm).suggestions
    assert s["action"] == "conflicts_with" and s["conflict_node_id"] == rule and "Friday" in s["note"]
    response = accept(client_for(alice), s)
    assert response.status_code == 200, response.json()
    new_id = response.json()["suggestion"]["created_node_id"]
    edge = Edge.objects.get(canvas=canvas, relation="conflicts_with")
    assert (str(edge.source_id), str(edge.target_id)) == (new_id, rule)


def test_an_amount_over_a_cap_in_chinese(canvas, alice, apply, scripted_llm):
    cap = apply(alice, node_op("宣传费用上限 8 万元")).changes[0]["id"]
    turn = say(alice, canvas, "宣传费用预计要十二万元。", scripted_llm)
    assert [(s["conflict_node_id"], s["action"]) for s in turn.suggestions] == [(cap, "conflicts_with")]
    assert "冲突" in turn.suggestions[0]["note"]


def test_a_correction_of_a_value_said_only_in_chat_shows_old_and_new(canvas, alice, scripted_llm):
    turn = say(alice, canvas, "Demo day: Sep 14", scripted_llm)
    turn = say(
        alice, canvas, "Actually demo day is Sep 21.", scripted_llm, conversation_id=turn.conversation.pk
    )
    [s] = turn.suggestions
    assert (s["content"], s["previous_value"], s["action"]) == ("Demo day: Sep 21", "Sep 14", "create")
    # the earlier suggestion held the value just retired: it is no longer offered
    assert FactSuggestion.objects.get(value="Sep 14").status == "dismissed"


def test_suggestions_are_listed_with_the_conversation(
    canvas, alice, bob, scripted_llm, client_for, matches_schema
):
    turn = say(alice, canvas, "Headcount: 23", scripted_llm)
    url = f"/api/conversations/{turn.conversation.pk}/suggestions/"
    response = client_for(alice).get(url)
    matches_schema(response, "conversation_suggestions")
    assert [s["content"] for s in response.json()] == ["Headcount: 23"]
    assert client_for(bob).get(url).status_code == 404


def test_accept_refuses_bad_input_with_a_clear_error(canvas, alice, scripted_llm, client_for):
    [s] = say(alice, canvas, "Headcount: 23", scripted_llm).suggestions
    for body, field in (({"confirm": "yes"}, "confirm"), ({"x": "left"}, "x"), ({"extra": 1}, None)):
        response = accept(client_for(alice), s, **body)
        assert response.status_code == 400, body
        if field:
            assert response.json()["error"]["field"] == field


def test_the_agent_proposing_the_same_change_dismisses_the_suggestion(canvas, alice, apply, scripted_llm):
    old = apply(alice, node_op("Build runners: 4")).changes[0]["id"]
    turn = say(alice, canvas, "Change the build runners from 4 to 6.", scripted_llm)
    [s] = turn.suggestions
    assert s["supersede_node_id"] == old
    other = suggestions.dismiss_duplicates_of_agent_op(
        user_message_id=turn.user_message.pk,
        op={"type": "node.create", "node": {"content": "Unrelated note"}},
    )
    assert other == []
    dismissed = suggestions.dismiss_duplicates_of_agent_op(
        user_message_id=turn.user_message.pk,
        op={"type": "node.supersede", "id": old, "node": {"content": "Build runners: 6"}},
    )
    assert dismissed == [s["id"]] and FactSuggestion.objects.get(pk=s["id"]).status == "dismissed"


def test_correcting_a_deadline_is_no_conflict_with_it(canvas, alice, apply, scripted_llm):
    due = apply(alice, node_op("报名截止日期是9月1日")).changes[0]["id"]
    [s] = say(alice, canvas, "报名截止日期改成9月5日", scripted_llm).suggestions
    assert (s["action"], s["supersede_node_id"], s["conflict_node_id"]) == ("supersede", due, None)


def test_the_new_value_takes_the_old_nodes_place(canvas, alice, apply, scripted_llm):
    old = apply(alice, node_op("Build cache TTL: 6 hours", kind="config", pinned=True, tags=["ci"])).changes[
        0
    ]["id"]
    [s] = say(alice, canvas, "Change the build cache TTL from 6 hours to 12 hours.", scripted_llm).suggestions
    created = services.suggestion_accept(user=alice, suggestion_id=s["id"], confirm=True)["suggestion"]
    new = Node.objects.get(pk=created["created_node_id"])
    assert (new.kind, new.pinned, new.tags) == ("config", True, ["ci", "captured"])
    assert str(Node.objects.get(pk=old).superseded_by_id) == str(new.pk)


def test_a_held_correction_still_retires_the_value_the_canvas_shows(canvas, alice, apply, scripted_llm):
    old = apply(alice, node_op("Van hire: $380")).changes[0]["id"]
    turn = say(
        alice,
        canvas,
        "No wait, $380 was the weekday rate. Over the bank holiday it works out at $520. Don't card it yet.",
        scripted_llm,
    )
    [s] = turn.suggestions
    assert (s["action"], s["content"], s["previous_value"], s["supersede_node_id"]) == (
        "supersede",
        "Van hire: $520",
        "$380",
        old,
    )
    # Held and nothing on the canvas to retire: nothing is offered.
    turn = say(alice, canvas, "The florist quoted $210. Don't card it yet.", scripted_llm)
    assert turn.suggestions == []


def test_a_fact_said_to_be_secret_is_offered_only_to_who_can_mark_it_secret(canvas, alice, bob, scripted_llm):
    # bob (editor) cannot make a card secret: accepting would show the code to every editor
    said = "The garage door code is 2614, but don't put it where anyone can see."
    assert say(bob, canvas, said, scripted_llm).suggestions == []
    [s] = say(alice, canvas, said, scripted_llm).suggestions  # the owner can
    assert s["sensitivity"] == "secret"
    # an internal fact is still offered to an editor, as internal
    [i] = say(bob, canvas, "The floor price is 4200 dollars, only for the team.", scripted_llm).suggestions
    assert i["sensitivity"] == "internal"


def test_a_conflict_clause_is_as_private_as_the_message_says(canvas, alice, apply, scripted_llm):
    apply(alice, node_op("Rent ceiling: £1,000 a month.", kind="requirement"))
    [s] = say(
        alice, canvas, "Keep this between us: the rent is going to be £1,300 a month.", scripted_llm
    ).suggestions
    assert s["action"] == "conflicts_with" and s["sensitivity"] == "internal"
