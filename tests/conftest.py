"""Shared fixtures: users with each role on one canvas, and small helpers."""

from __future__ import annotations

import copy
import itertools

import jsonschema
import pytest
from django.contrib.auth import get_user_model
from drf_spectacular.generators import SchemaGenerator
from rest_framework.test import APIClient

from canvasweb.canvases import services
from canvasweb.canvases.actors import user_actor

_counter = itertools.count()


@pytest.fixture(autouse=True)
def _single_write_path_guard(request):
    """Every test doubles as a check that canvas rows are written only by the services."""
    if request.node.get_closest_marker("allow_direct_writes"):
        yield
        return
    from tests import write_guard

    models = write_guard.install()
    yield
    write_guard.uninstall(models)


@pytest.fixture(autouse=True)
def _one_security_event_per_refusal(settings):
    # Tests count refusals row by row; tests/history/test_retention.py turns coalescing back on.
    # The suite logs in far more often than a person: the login/token throttle has its own test.
    # Compiles in this process (tests/chat/test_executor.py covers the worker processes).
    settings.CANVASWEB = {
        **settings.CANVASWEB,
        "SECURITY_EVENT_COALESCE_SECONDS": 0,
        "AUTH_THROTTLE_RATE": "10000/minute",
        "COMPILE_MODE": "inline",
    }


@pytest.fixture(autouse=True)
def _fresh_throttle_counts():
    # DRF throttles count in the cache; tests log in many times from one address.
    from django.core.cache import cache

    cache.clear()


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings):
    # PBKDF2's cost is for production; tests create many users.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def make_user(db):
    def make(username: str | None = None, password: str = "pass-12345"):
        name = username or f"user{next(_counter)}"
        return get_user_model().objects.create_user(username=name, password=password)

    return make


@pytest.fixture
def alice(make_user):
    return make_user("alice")


@pytest.fixture
def bob(make_user):
    return make_user("bob")


@pytest.fixture
def vic(make_user):
    return make_user("vic")


@pytest.fixture
def canvas(alice, bob, vic):
    """alice owns it, bob edits, vic views."""
    canvas = services.canvas_create(user=alice, name="Launch plan")
    owner = user_actor(alice)
    services.member_set(actor=owner, canvas_id=canvas.pk, username="bob", role="editor")
    services.member_set(actor=owner, canvas_id=canvas.pk, username="vic", role="viewer")
    canvas.refresh_from_db()
    return canvas


@pytest.fixture
def apply(canvas):
    """apply(user, op, **kw) -> ApplyResult on the shared canvas."""

    def run(user, op, *, channel="rest", client_op_id=None, canvas_id=None):
        return services.apply_operation(
            actor=user_actor(user, channel=channel),
            canvas_id=canvas_id or canvas.pk,
            op=op,
            client_op_id=client_op_id,
        )

    return run


def node_op(content="a fact", x=0.0, y=0.0, **fields):
    return {"type": "node.create", "node": {"content": content, "x": x, "y": y, **fields}}


@pytest.fixture(scope="session")
def _scripted_llm_server():
    from canvasweb.testing.fake_llm import ScriptedLLM

    server = ScriptedLLM().start()
    yield server
    server.stop()


@pytest.fixture
def scripted_llm(_scripted_llm_server, settings):
    """A scripted OpenAI-compatible server on loopback, wired into settings.LLM."""
    _scripted_llm_server.reset()
    settings.LLM = {
        **settings.LLM,
        "BASE_URL": _scripted_llm_server.base_url,
        "API_KEY": "test-key",
        "MODEL": "scripted-model",
        "TIMEOUT_SECONDS": 2.0,
        "MAX_RETRIES": 0,
    }
    return _scripted_llm_server


# --- REST clients and OpenAPI conformance (shared by every app's API tests) -------------------------


@pytest.fixture
def client_for():
    """client_for(user) -> APIClient logged in with a session (CSRF not enforced; see test_auth for CSRF)."""

    def make(user=None, *, csrf: bool = False) -> APIClient:
        client = APIClient(enforce_csrf_checks=csrf)
        if user is not None:
            client.force_login(user)
        return client

    return make


def _to_json_schema(node):
    """OpenAPI 3.0 → JSON Schema: `nullable` becomes a null alternative; objects reject undocumented keys."""
    if isinstance(node, list):
        return [_to_json_schema(item) for item in node]
    if not isinstance(node, dict):
        return node
    node = {
        k: _to_json_schema(v) for k, v in node.items() if k not in ("discriminator", "readOnly", "writeOnly")
    }
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
        jsonschema.validate(
            response.json(), {**schema, "components": components}, cls=jsonschema.Draft202012Validator
        )

    return check
