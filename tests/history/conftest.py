"""History test helpers: an agent in auto mode, API clients and schema checks for the history endpoints."""
from __future__ import annotations

import copy

import jsonschema
import pytest
from drf_spectacular.generators import SchemaGenerator
from rest_framework.test import APIClient

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
def client_for():
    def make(user=None) -> APIClient:
        client = APIClient()
        if user is not None:
            client.force_login(user)
        return client

    return make


def _to_json_schema(node):
    if isinstance(node, list):
        return [_to_json_schema(item) for item in node]
    if not isinstance(node, dict):
        return node
    node = {k: _to_json_schema(v) for k, v in node.items() if k not in ("discriminator", "readOnly", "writeOnly")}
    if "properties" in node and "additionalProperties" not in node:
        node["additionalProperties"] = False
    if node.pop("nullable", False):
        return {"anyOf": [node, {"type": "null"}]}
    return node


_SCHEMA: dict = {}


@pytest.fixture(scope="session")
def schema_check():
    """schema_check(response, operation_id): the body is exactly what the OpenAPI schema documents."""
    if "schema" not in _SCHEMA:
        _SCHEMA["schema"] = SchemaGenerator().get_schema(request=None, public=True)
    schema = copy.deepcopy(_SCHEMA["schema"])
    components = _to_json_schema(schema["components"])
    operations = {op["operationId"]: op for methods in schema["paths"].values() for op in methods.values()}

    def check(response, operation_id: str) -> None:
        documented = operations[operation_id]["responses"]
        status = str(response.status_code)
        assert status in documented, f"{operation_id}: status {status} is not documented"
        content = documented[status].get("content")
        if content is None:
            assert not response.content
            return
        body_schema = _to_json_schema(content["application/json"]["schema"])
        jsonschema.validate(response.json(), {**body_schema, "components": components},
                            cls=jsonschema.Draft202012Validator)

    return check
