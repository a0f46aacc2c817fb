"""Tool schemas and the strict argument validator (no database)."""

from __future__ import annotations

import json

import pytest

from canvasweb.agent import tools
from canvasweb.common.errors import CanvasError, Forbidden, InvalidOperation


def _schemas(schema):
    yield schema
    for sub in schema.get("properties", {}).values():
        yield from _schemas(sub)
    if "items" in schema:
        yield from _schemas(schema["items"])


@pytest.mark.parametrize("name", tools.ALL_TOOLS)
def test_every_schema_is_closed_and_bounded(name):
    schema = tools.tool_schema(name)
    assert schema["type"] == "function" and schema["function"]["name"] == name
    for sub in _schemas(schema["function"]["parameters"]):
        if sub["type"] == "object":
            assert sub["additionalProperties"] is False and "required" in sub
        elif sub["type"] == "string":
            assert "maxLength" in sub or "enum" in sub or "pattern" in sub
        elif sub["type"] in ("number", "integer"):
            assert "minimum" in sub and "maximum" in sub
        elif sub["type"] == "array":
            assert "maxItems" in sub
    json.dumps(schema)  # serialisable as sent to the model


def test_there_is_no_delete_tool_and_no_pinning_or_secret_fields():
    assert not [n for n in tools.ALL_TOOLS if "delete" in n or "remove" in n]
    for name in tools.WRITE_TOOLS:
        properties = tools.TOOL_SPECS[name]["parameters"]["properties"]
        assert "pinned" not in properties and "id" not in properties
        if "sensitivity" in properties:
            assert properties["sensitivity"]["enum"] == ["public", "internal"]
    assert "sensitivity" not in tools.TOOL_SPECS["update_node"]["parameters"]["properties"]
    assert "supersedes" not in tools.TOOL_SPECS["link_nodes"]["parameters"]["properties"]["relation"]["enum"]


@pytest.mark.parametrize(
    "name, error",
    [
        ("delete_node", Forbidden),
        ("remove_edge", Forbidden),
        ("wipe_canvas", Forbidden),
        ("set_agent_policy", InvalidOperation),
        ("", InvalidOperation),
        (None, InvalidOperation),
        (42, InvalidOperation),
    ],
)
def test_unknown_tools_are_refused(name, error):
    with pytest.raises(error):
        tools.check_tool_name(name)


@pytest.mark.parametrize(
    "raw",
    [
        "[1, 2]",
        "42",
        '"text"',
        "{bad json",
        '{"node": NaN}',
        '{"x": Infinity}',
        '{"a": 1, "a": 2}',
        17,
        "{" * 5000 + "}" * 5000,
        json.dumps({"content": "x" * 30000}),
    ],
)
def test_arguments_must_be_one_strict_json_object(raw):
    with pytest.raises(InvalidOperation):
        tools.parse_arguments(raw)


def test_empty_arguments_are_an_empty_object():
    assert tools.parse_arguments("") == {} and tools.parse_arguments(None) == {}


@pytest.mark.parametrize(
    "name, args, field",
    [
        ("add_node", {}, "content"),
        ("add_node", {"content": ""}, "content"),
        ("add_node", {"content": "x" * 2001}, "content"),
        ("add_node", {"content": "ok", "pinned": True}, "pinned"),
        ("add_node", {"content": "ok", "sensitivity": "secret"}, "sensitivity"),
        ("add_node", {"content": "ok", "x": 1e7, "y": 0}, "x"),
        ("add_node", {"content": "ok", "x": True, "y": 0}, "x"),
        ("add_node", {"content": "ok", "weight": 11}, "weight"),
        ("add_node", {"content": "ok", "tags": ["a"] * 11}, "tags"),
        ("add_node", {"content": "ok", "tags": ["x" * 41]}, "tags[0]"),
        ("add_node", {"content": "ok", "tags": ["bad\nnewline"]}, "tags[0]"),
        ("add_node", {"content": "ok", "kind": "virus"}, "kind"),
        ("add_node", {"content": "nul\x00byte"}, "content"),
        ("update_node", {"node": "n1"}, "arguments"),
        ("update_node", {"node": "n1", "sensitivity": "public"}, "sensitivity"),
        ("update_node", {"node": "3f1e0c2a-1111-4222-8333-944445555666", "content": "x"}, "node"),
        ("update_node", {"node": "n0", "content": "x"}, "node"),
        ("update_node", {"node": "N1", "content": "x"}, "node"),
        ("update_node", {"node": "n1 ", "content": "x"}, "node"),
        ("update_node", {"node": ["n1"], "content": "x"}, "node"),
        ("move_node", {"node": "n1", "x": 0}, "y"),
        ("move_node", {"node": "n1", "x": float("nan"), "y": 0}, "x"),
        ("link_nodes", {"source": "n1", "target": "n2", "relation": "supersedes"}, "relation"),
        ("link_nodes", {"source": "n1", "target": "n2", "relation": "causes", "label": "x" * 201}, "label"),
        ("archive_node", {"node": "n1", "archived": False}, "archived"),
        ("search_nodes", {"query": "x" * 201}, "query"),
        ("search_nodes", {"query": "x", "limit": 11}, "limit"),
        ("search_nodes", {"query": "x", "limit": 2.5}, "limit"),
    ],
)
def test_schema_violations_name_the_field(name, args, field):
    with pytest.raises(InvalidOperation) as info:
        tools.validate_arguments(name, args)
    assert info.value.field == field, info.value.message


@pytest.mark.parametrize(
    "name, args",
    [
        (
            "add_node",
            {
                "content": "数据库切换到 Memcached",
                "kind": "decision",
                "x": -5.5,
                "y": 10,
                "tags": ["缓存"],
                "sensitivity": "internal",
                "weight": 2,
            },
        ),
        ("add_node", {"content": "next to n2", "near": "n2"}),
        ("update_node", {"node": "n12", "tags": []}),
        ("move_node", {"node": "n1", "x": 1_000_000, "y": -1_000_000}),
        ("link_nodes", {"source": "n1", "target": "n2", "relation": "depends_on", "label": ""}),
        ("supersede_node", {"node": "n3", "content": "Cache: Memcached"}),
        ("archive_node", {"node": "n99999"}),
        ("search_nodes", {"query": "缓存", "limit": 10}),
        ("read_node", {"node": "n4"}),
    ],
)
def test_valid_arguments_pass(name, args):
    assert tools.validate_arguments(name, args) == args


def test_refusals_are_canvas_errors_with_codes():
    for exc in (Forbidden("x"), InvalidOperation("y")):
        assert isinstance(exc, CanvasError) and exc.as_dict()["code"] in ("FORBIDDEN", "INVALID")


@pytest.mark.parametrize(
    "raw, field",
    [
        ('{"content": "a\\ud800b"}', "arguments.content"),
        ('{"content": "ok", "weight": 1' + "0" * 400 + "}", "arguments.weight"),
    ],
)
def test_model_arguments_with_a_lone_surrogate_or_a_huge_int_are_invalid(raw, field):
    with pytest.raises(InvalidOperation) as caught:
        tools.parse_arguments(raw)
    assert caught.value.field == field


def test_the_schema_check_refuses_a_huge_int_without_overflow():
    with pytest.raises(InvalidOperation) as caught:
        tools.validate_arguments("move_node", {"node": "n1", "x": 10**400, "y": 0})
    assert caught.value.field == "x"
