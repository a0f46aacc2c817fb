"""History test helpers: an agent in auto mode, API clients and schema checks for the history endpoints."""

from __future__ import annotations

import pytest

from canvasweb.canvases import services
from canvasweb.canvases.actors import agent_actor, user_actor


@pytest.fixture
def auto_agent(canvas, alice):
    """Switch the shared canvas's agent to auto mode; returns agent_for(user) -> Actor."""
    services.canvas_update(actor=user_actor(alice), canvas_id=canvas.pk, agent_policy={"mode": "auto"})

    def agent_for(user, conversation_id=1):
        return agent_actor(user, conversation_id=conversation_id)

    return agent_for


@pytest.fixture
def as_agent(canvas, auto_agent):
    def run(user, op, conversation_id=1):
        return services.apply_operation(actor=auto_agent(user, conversation_id), canvas_id=canvas.pk, op=op)

    return run


@pytest.fixture
def schema_check(matches_schema):
    """schema_check(response, operation_id): the body is exactly what the OpenAPI schema documents."""
    return matches_schema
