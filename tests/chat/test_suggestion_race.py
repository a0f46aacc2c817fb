"""Two concurrent accepts of one suggestion: exactly one writes (the row is locked while it is checked)."""

from __future__ import annotations

import threading

import pytest
from django.db import connection

from canvasweb.canvases.models import Node
from canvasweb.chat import suggestions as services
from canvasweb.chat.models import Conversation, FactSuggestion, Message
from canvasweb.common.errors import InvalidOperation

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_second_of_two_concurrent_accepts_is_refused(canvas, alice, monkeypatch):
    conversation = Conversation.objects.create(canvas=canvas, user=alice)
    message = Message.objects.create(
        conversation=conversation, role="user", source="user_input", content="端口 7001"
    )
    suggestion = FactSuggestion.objects.create(
        conversation=conversation, message=message, content="端口是 7001", kind="config", reason="test"
    )
    second_read = threading.Event()
    real_lookup, real_apply = services._suggestion_for, services.canvas_services.apply_operation

    def lookup(**kwargs):
        found = real_lookup(**kwargs)
        if threading.current_thread().name == "second":
            second_read.set()
        return found

    def apply(**kwargs):
        if threading.current_thread().name == "first":
            # Give the second accept every chance to read the suggestion while the first is mid-write.
            second_read.wait(timeout=1.5)
        return real_apply(**kwargs)

    monkeypatch.setattr(services, "_suggestion_for", lookup)
    monkeypatch.setattr(services.canvas_services, "apply_operation", apply)
    outcomes: dict[str, object] = {}

    def accept(name: str) -> None:
        try:
            outcomes[name] = services.suggestion_accept(user=alice, suggestion_id=suggestion.pk)
        except InvalidOperation as exc:
            outcomes[name] = exc
        finally:
            connection.close()

    first = threading.Thread(target=accept, args=("first",), name="first")
    second = threading.Thread(target=accept, args=("second",), name="second")
    first.start()
    second.start()
    first.join(30)
    second.join(30)
    refused = [o for o in outcomes.values() if isinstance(o, InvalidOperation)]
    assert len(outcomes) == 2 and len(refused) == 1, outcomes
    suggestion.refresh_from_db()
    assert Node.objects.filter(pk=suggestion.created_node_id).exists()
    assert Node.objects.filter(canvas=canvas, content="端口是 7001").count() == 1
