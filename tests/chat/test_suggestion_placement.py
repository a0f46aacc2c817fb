"""An accepted suggestion lands at the wanted spot if free, else at the nearest free one."""

from __future__ import annotations

import pytest

from canvasweb.canvases.models import Node
from canvasweb.canvases.placement import node_rect
from canvasweb.chat.models import FactSuggestion
from tests.chat.test_chat_api import client_for, run_turn
from tests.conftest import node_op

pytestmark = pytest.mark.django_db


def rect(node):
    return node_rect(x=node.x, y=node.y, weight=node.weight, content=node.content)


def test_accept_on_an_occupied_spot_goes_to_a_free_one(canvas, alice, apply, scripted_llm):
    apply(alice, node_op("今天的站会改到 10:30", x=300, y=200))
    run_turn(alice, canvas, "Correction: the staging cache port is 6390 now.", scripted_llm)
    suggestion = FactSuggestion.objects.order_by("pk").first()
    assert suggestion is not None
    response = client_for(alice).post(
        f"/api/suggestions/{suggestion.pk}/accept/", {"x": 310, "y": 210}, format="json"
    )
    assert response.status_code == 200, response.json()
    new = Node.objects.get(pk=response.json()["suggestion"]["created_node_id"])
    others = [rect(n) for n in Node.objects.filter(canvas=canvas).exclude(pk=new.pk)]
    assert not any(rect(new).overlaps(o, gap=0) for o in others)
    assert abs(new.x - 310) < 600 and abs(new.y - 210) < 400
