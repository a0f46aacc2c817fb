"""API test helpers: logged-in clients per role and response validation against the OpenAPI schema."""
from __future__ import annotations

import copy

import jsonschema
import pytest
from drf_spectacular.generators import SchemaGenerator
from rest_framework.test import APIClient


@pytest.fixture
def client_for():
    """client_for(user) -> APIClient logged in with a session (CSRF not enforced; see test_auth for CSRF)."""

    def make(user=None, *, csrf: bool = False) -> APIClient:
        client = APIClient(enforce_csrf_checks=csrf)
        if user is not None:
            client.force_login(user)
        return client

    return make


@pytest.fixture
def owner_client(client_for, alice):
    return client_for(alice)


@pytest.fixture
def editor_client(client_for, bob):
    return client_for(bob)


@pytest.fixture
def viewer_client(client_for, vic):
    return client_for(vic)


def err(response) -> dict:
    """The {"code", "message", "field"} of an error response (asserting the shape)."""
    body = response.json()
    assert set(body) == {"error"}, body
    assert set(body["error"]) == {"code", "message", "field"}, body
    assert isinstance(body["error"]["message"], str) and body["error"]["message"]
    return body["error"]


def _to_json_schema(node):
    """OpenAPI 3.0 → JSON Schema: `nullable` becomes a null alternative; objects reject undocumented keys."""
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


_SCHEMA_CACHE: dict = {}


@pytest.fixture(scope="session")
def openapi_schema():
    if "schema" not in _SCHEMA_CACHE:
        _SCHEMA_CACHE["schema"] = SchemaGenerator().get_schema(request=None, public=True)
    return copy.deepcopy(_SCHEMA_CACHE["schema"])


@pytest.fixture(scope="session")
def matches_schema(openapi_schema):
    """matches_schema(response, operation_id): the body is exactly what the schema documents for that status."""
    components = _to_json_schema(openapi_schema["components"])
    operations = {
        op["operationId"]: op for methods in openapi_schema["paths"].values() for op in methods.values()
    }

    def check(response, operation_id: str) -> None:
        documented = operations[operation_id]["responses"]
        status = str(response.status_code)
        assert status in documented, f"{operation_id}: status {status} is not documented"
        content = documented[status].get("content")
        if content is None:
            assert not response.content, f"{operation_id}: {status} should have no body"
            return
        schema = _to_json_schema(content["application/json"]["schema"])
        jsonschema.validate(response.json(), {**schema, "components": components},
                            cls=jsonschema.Draft202012Validator)

    return check
