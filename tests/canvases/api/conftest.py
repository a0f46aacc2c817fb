"""API test helpers: logged-in clients per role and response validation against the OpenAPI schema."""

from __future__ import annotations

import pytest


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
