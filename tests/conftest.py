"""Shared fixtures: users with each role on one canvas, and small helpers."""
from __future__ import annotations

import itertools

import pytest
from django.contrib.auth import get_user_model

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
        return services.apply_operation(actor=user_actor(user, channel=channel), canvas_id=canvas_id or canvas.pk,
                                        op=op, client_op_id=client_op_id)

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
    settings.LLM = {**settings.LLM, "BASE_URL": _scripted_llm_server.base_url, "API_KEY": "test-key",
                    "MODEL": "scripted-model", "TIMEOUT_SECONDS": 2.0, "MAX_RETRIES": 0}
    return _scripted_llm_server
