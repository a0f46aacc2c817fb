"""The op parser (canvases/operations.py): the checks every channel (REST, socket, agent) shares."""

from __future__ import annotations

import uuid

import pytest

from canvasweb.canvases.operations import parse_operation
from canvasweb.common.errors import InvalidOperation

ID = "0b6f0c1e-3c9e-4a57-9a8d-2b8f3f6f3c11"
OTHER = "9a2c51d4-7d0e-4b8e-8f7e-1f6f0a2b3c4d"
# uuid.UUID takes all of these; the docs' ids are lowercase and hyphenated only.
NON_CANONICAL = [
    ID.upper(),
    "{" + ID + "}",
    "urn:uuid:" + ID,
    ID.replace("-", ""),
    ID + "\n",
    " " + ID,
]


def _refusal(raw) -> InvalidOperation:
    with pytest.raises(InvalidOperation) as caught:
        parse_operation(raw)
    return caught.value


def _id_places(bad: str):
    """(op, field) for every place an op takes a node or edge id."""
    yield {"type": "node.create", "node": {"id": bad, "x": 0, "y": 0}}, "node.id"
    yield {"type": "node.update", "id": bad, "fields": {"content": "x"}}, "id"
    yield {"type": "node.move", "id": bad, "x": 0, "y": 0}, "id"
    yield {"type": "node.delete", "id": bad}, "id"
    yield {"type": "node.archive", "id": bad}, "id"
    yield {"type": "node.supersede", "id": bad, "node": {"x": 0, "y": 0}}, "id"
    yield {"type": "node.supersede", "id": ID, "node": {"id": bad, "x": 0, "y": 0}}, "node.id"
    yield {"type": "edge.create", "edge": {"id": bad, "source": ID, "target": OTHER}}, "edge.id"
    yield {"type": "edge.create", "edge": {"source": bad, "target": OTHER}}, "edge.source"
    yield {"type": "edge.create", "edge": {"source": ID, "target": bad}}, "edge.target"
    yield {"type": "edge.update", "id": bad, "fields": {"label": "x"}}, "id"
    yield {"type": "edge.delete", "id": bad}, "id"
    yield {"type": "batch", "ops": [{"type": "node.delete", "id": bad}]}, "ops[0].id"


@pytest.mark.parametrize("bad", NON_CANONICAL)
def test_only_the_canonical_uuid_form_is_an_id(bad):
    for op, field in _id_places(bad):
        error = _refusal(op)
        assert (error.code, error.field) == ("INVALID", field), op


def test_the_canonical_form_is_accepted():
    op = parse_operation(
        {"type": "edge.create", "edge": {"id": str(uuid.uuid4()), "source": ID, "target": OTHER}}
    )
    assert str(op.body["source"]) == ID


def test_a_nul_in_a_tag_or_label_gets_the_nul_message_naming_the_field():
    # Not "each tag must be 1-40 characters": the value's length is fine, its character is not.
    for raw, field in (
        ({"type": "node.create", "node": {"x": 0, "y": 0, "tags": ["a", "b", "c\x00"]}}, "node.tags[2]"),
        ({"type": "node.update", "id": ID, "fields": {"tags": ["\x00"]}}, "fields.tags[0]"),
        ({"type": "edge.create", "edge": {"source": ID, "target": OTHER, "label": "a\x00b"}}, "edge.label"),
        ({"type": "edge.update", "id": ID, "fields": {"label": "\x00"}}, "fields.label"),
        ({"type": "node.create", "node": {"x": 0, "y": 0, "content": "a\x00"}}, "node.content"),
    ):
        error = _refusal(raw)
        assert error.field == field
        assert error.message == f"{field} contains a NUL character (\\u0000), which cannot be stored"


def test_duplicate_tags_are_dropped_in_order_exact_matches_only():
    tags = ["b", "a", "b", " a ", "标签", "标签", "A", "ＤＢ", "DB", "标签\u3000"]
    op = parse_operation({"type": "node.create", "node": {"x": 0, "y": 0, "tags": tags}})
    # Case and full-width forms are different tags; surrounding (also ideographic) spaces are stripped.
    assert op.body["tags"] == ["b", "a", "标签", "A", "ＤＢ", "DB"]
    update = parse_operation({"type": "node.update", "id": ID, "fields": {"tags": ["x", "x"]}})
    assert update.fields["tags"] == ["x"]
