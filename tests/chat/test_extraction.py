"""The model path of fact capture, against the scripted OpenAI-compatible server: good JSON, garbage, timeout."""

from __future__ import annotations

import json

import pytest

from canvasweb.canvases.models import Node
from canvasweb.chat import extraction, services
from canvasweb.chat.models import FactSuggestion
from tests.conftest import node_op

pytestmark = pytest.mark.django_db


def model_fact(**fields):
    base = {
        "statement": "Queue retention: 14 days",
        "kind": "correction",
        "subject": "queue retention",
        "value": "14 days",
        "value_type": "duration",
        "previous_value": "7 days",
        "corrects": "n1",
        "tentative": False,
    }
    return {**base, **fields}


def prepared(user, canvas, text, llm):
    llm.push({"content": "ok"})
    return services.turn_prepare(user=user, canvas_id=canvas.pk, text=text, viewport=None)


def extraction_prompt(llm) -> str:
    return json.dumps(llm.extraction_requests[-1]["messages"], ensure_ascii=False)


def test_good_json_replaces_the_rules_suggestions(canvas, alice, apply, scripted_llm):
    old = apply(alice, node_op("Messages stay in the queue for a week.")).changes[0]["id"]
    turn = prepared(alice, canvas, "Let's keep queue messages two weeks from now on.", scripted_llm)
    scripted_llm.push_extraction({"json": {"facts": [model_fact()]}})
    result = extraction.refine_with_model(message_id=turn.user_message.pk, role="editor")
    assert result is not None
    [s] = result["suggestions"]
    assert (s["content"], s["source"], s["supersede_node_id"], s["previous_value"]) == (
        "Queue retention: 14 days",
        "model",
        old,
        "7 days",
    )
    assert set(result["removed_suggestion_ids"]) == {x["id"] for x in turn.suggestions}
    request = scripted_llm.extraction_requests[-1]
    assert request["response_format"]["json_schema"]["name"] == "canvas_fact_extraction"
    assert "[n1] Messages stay in the queue for a week." in extraction_prompt(scripted_llm)
    assert old not in extraction_prompt(scripted_llm)  # handles, never ids


@pytest.mark.parametrize(
    "entry",
    [
        {"garbage": True},
        {"content": "Sure! Here are the facts: retention is 14 days"},
        {"json": {"facts": [model_fact(corrects="n99")]}},  # a handle we never gave
        {"json": {"facts": [model_fact(value_type="colour")]}},
        {"json": {"facts": [{"statement": "x"}]}},
        {"json": {"facts": [model_fact()], "note": "extra"}},
        {"status": 500},
        {"delay": 3.0, "json": {"facts": []}},  # longer than the timeout
    ],
)
def test_anything_off_keeps_the_rules_suggestions(canvas, alice, apply, scripted_llm, settings, entry):
    settings.CAPTURE = {**settings.CAPTURE, "TIMEOUT_SECONDS": 1.0}
    apply(alice, node_op("Report export limit: 500 rows"))
    turn = prepared(alice, canvas, "Change the report export limit from 500 rows to 800 rows.", scripted_llm)
    before = list(FactSuggestion.objects.values_list("pk", "content"))
    assert before and before[0][1] == "Report export limit: 800 rows"
    scripted_llm.push_extraction(entry)
    assert extraction.refine_with_model(message_id=turn.user_message.pk, role="editor") is None
    assert list(FactSuggestion.objects.values_list("pk", "content")) == before


def test_the_model_never_sees_secret_nodes_or_credentials(canvas, alice, apply, scripted_llm):
    apply(alice, node_op("Vault unseal note: keep the shard in the red safe", sensitivity="secret"))
    apply(alice, node_op("Staging DB password=Tr0ub4dor&3 on port 5544"))
    turn = prepared(alice, canvas, "The staging port is now 5545.", scripted_llm)
    scripted_llm.push_extraction({"json": {"facts": []}})
    extraction.refine_with_model(message_id=turn.user_message.pk, role="owner")
    prompt = extraction_prompt(scripted_llm)
    assert "red safe" not in prompt and "Tr0ub4dor" not in prompt and "5544" in prompt


def test_a_credential_as_a_model_value_is_dropped(canvas, alice, scripted_llm):
    turn = prepared(alice, canvas, "noted", scripted_llm)
    scripted_llm.push_extraction(
        {
            "json": {
                "facts": [
                    model_fact(
                        statement="token",
                        value="sk-live-abcdef1234567890abcd",
                        corrects=None,
                        previous_value=None,
                    )
                ]
            }
        }
    )
    result = extraction.refine_with_model(message_id=turn.user_message.pk, role="editor")
    assert result is not None and result["suggestions"] == []


def test_viewers_and_disabled_capture_do_not_call_the_model(canvas, alice, vic, scripted_llm, settings):
    turn = prepared(alice, canvas, "Headcount: 12", scripted_llm)
    assert extraction.refine_with_model(message_id=turn.user_message.pk, role="viewer") is None
    settings.CAPTURE = {**settings.CAPTURE, "WITH_MODEL": False}
    assert extraction.refine_with_model(message_id=turn.user_message.pk, role="editor") is None
    assert scripted_llm.extraction_requests == []


def test_accepting_a_model_suggestion_supersedes_through_the_write_path(canvas, alice, apply, scripted_llm):
    old = apply(alice, node_op("回款账期 30 天")).changes[0]["id"]
    turn = prepared(alice, canvas, "财务说账期以后按 45 天算。", scripted_llm)
    scripted_llm.push_extraction(
        {
            "json": {
                "facts": [
                    model_fact(
                        statement="回款账期：45 天", subject="回款账期", value="45 天", previous_value="30 天"
                    )
                ]
            }
        }
    )
    [s] = extraction.refine_with_model(message_id=turn.user_message.pk, role="editor")["suggestions"]
    result = services.suggestion_accept(user=alice, suggestion_id=s["id"])
    assert str(Node.objects.get(pk=old).superseded_by_id) == result["suggestion"]["created_node_id"]


def test_a_secret_value_pasted_elsewhere_is_masked_for_the_model(canvas, alice, apply, scripted_llm):
    apply(alice, node_op("Backup vault code Zq81-Kestrel-4410", sensitivity="secret"))
    apply(alice, node_op("ops note: the vault code Zq81-Kestrel-4410 rotates monthly"))
    turn = prepared(alice, canvas, "I pasted Zq81-Kestrel-4410 into the runbook.", scripted_llm)
    scripted_llm.push_extraction({"json": {"facts": []}})
    extraction.refine_with_model(message_id=turn.user_message.pk, role="owner")
    prompt = extraction_prompt(scripted_llm)
    assert "Zq81-Kestrel-4410" not in prompt and "rotates monthly" in prompt
