"""JSON Canvas 1.0: export → import round trip, an Obsidian file, malformed files rejected whole."""

from __future__ import annotations

import json
import math
import pathlib

import pytest

from canvasweb.canvases import services
from canvasweb.canvases.actors import user_actor
from canvasweb.canvases.models import Canvas, Edge, Membership, Node
from canvasweb.history import jsoncanvas
from canvasweb.history.jsoncanvas import ImportRejected
from canvasweb.history.models import ChangeLogEntry
from canvasweb.history.services import canvas_import
from tests.conftest import node_op

pytestmark = pytest.mark.django_db

DATA = pathlib.Path(__file__).parent / "data"
NODE_FIELDS = ("content", "kind", "x", "y", "weight", "tags", "pinned", "sensitivity", "archived")


def created_id(result) -> str:
    return next(c["id"] for c in result.changes if c["entity"] == "node" and c["action"] == "created")


def rich_canvas(canvas, apply, alice, bob):
    services.canvas_update(actor=user_actor(alice), canvas_id=canvas.pk, description="Q4 launch / 第四季度")
    a = created_id(
        apply(
            alice,
            node_op(
                "数据库端口是 5433",
                x=10.25,
                y=-20.5,
                kind="config",
                weight=2.5,
                tags=["db", "anchor"],
                pinned=True,
                sensitivity="internal",
            ),
        )
    )
    b = created_id(apply(bob, node_op("deploy on Fridays", x=300, y=0, kind="requirement")))
    apply(
        bob,
        {
            "type": "node.supersede",
            "id": b,
            "node": {
                "content": "never deploy on Fridays",
                "x": 300,
                "y": 200,
                "kind": "requirement",
                "weight": 3,
            },
        },
    )
    s = created_id(
        apply(alice, node_op("password is hunter2", x=-300, y=0, sensitivity="secret", kind="config"))
    )
    old = created_id(apply(bob, node_op("old idea", x=0, y=400, kind="question", tags=["color:#00ff00"])))
    apply(bob, {"type": "node.archive", "id": old})
    apply(
        alice,
        {
            "type": "edge.create",
            "edge": {"source": a, "target": b, "relation": "conflicts_with", "label": "端口冲突"},
        },
    )
    apply(alice, {"type": "edge.create", "edge": {"source": s, "target": a, "relation": "depends_on"}})
    return a, b, s, old


def node_shape(node: Node, id_of) -> tuple:
    return (*tuple(getattr(node, f) for f in NODE_FIELDS), id_of(node.superseded_by_id))


def test_export_import_round_trip_preserves_every_field(canvas, apply, alice, bob):
    rich_canvas(canvas, apply, alice, bob)
    document = jsoncanvas.export_canvas(canvas=canvas, role="owner")
    text = json.dumps(document)  # what the .canvas file holds
    result = canvas_import(user=bob, document=jsoncanvas.parse_text(text))
    copy = Canvas.objects.get(pk=result["canvas"]["id"])
    assert copy.pk != canvas.pk and copy.name == "Launch plan" and copy.description == "Q4 launch / 第四季度"
    assert Membership.objects.get(canvas=copy).user == bob and result["unknown_keys"] == []

    old_to_new = dict(result["id_map"].items())
    new_to_old = {new: old for old, new in old_to_new.items()}

    def id_in_original(value):
        return None if value is None else str(value)

    def id_in_copy(value):
        return None if value is None else new_to_old[str(value)]

    original = {str(n.id): node_shape(n, id_in_original) for n in Node.objects.filter(canvas=canvas)}
    imported = {new_to_old[str(n.id)]: node_shape(n, id_in_copy) for n in Node.objects.filter(canvas=copy)}
    assert imported == original and len(imported) == 5

    def edges_of(c, mapping):
        return sorted(
            (mapping(e.source_id), mapping(e.target_id), e.relation, e.label)
            for e in Edge.objects.filter(canvas=c)
        )

    assert (
        edges_of(copy, id_in_copy) == edges_of(canvas, id_in_original)
        and len(edges_of(copy, id_in_copy)) == 3
    )
    # One revision after the canvas's creation, every entry logged with reason "import".
    entries = ChangeLogEntry.objects.filter(canvas=copy, revision=result["revision"])
    assert result["revision"] == 2 and {e.reason for e in entries} == {"import"}
    assert {e.actor_user for e in entries} == {bob}


def test_export_respects_the_exporters_visibility(canvas, apply, alice, bob, vic):
    a, _b, s, old = rich_canvas(canvas, apply, alice, bob)
    owner = jsoncanvas.export_canvas(canvas=canvas, role="owner")
    editor = jsoncanvas.export_canvas(canvas=canvas, role="editor")
    viewer = jsoncanvas.export_canvas(canvas=canvas, role="viewer")
    assert s in {n["id"] for n in owner["nodes"]}
    assert s not in {n["id"] for n in editor["nodes"]} and "hunter2" not in json.dumps(editor)
    assert {n["id"] for n in viewer["nodes"]} == {n["id"] for n in editor["nodes"]} - {a}
    # a→b (conflicts_with) and the supersedes edge; the edge from the secret node is left out.
    assert all(e["fromNode"] != s for e in editor["edges"]) and len(editor["edges"]) == 2
    assert [e["canvasweb"]["relation"] for e in viewer["edges"]] == ["supersedes"]
    # Shape: JSON Canvas text nodes with integer geometry, our fields namespaced.
    node = next(n for n in owner["nodes"] if n["id"] == a)
    assert node["type"] == "text" and node["text"] == "数据库端口是 5433" and node["color"] == "5"
    assert (node["x"], node["y"], node["width"] > 0, node["height"] > 0) == (10, -20, True, True)
    assert node["canvasweb"]["x"] == 10.25 and node["canvasweb"]["sensitivity"] == "internal"
    assert next(n for n in owner["nodes"] if n["id"] == old)["color"] == "#00ff00"
    edge = next(e for e in owner["edges"] if e["fromNode"] == a)
    assert edge["label"] == "端口冲突" and edge["canvasweb"] == {"relation": "conflicts_with"}


def test_obsidian_sample_imports_with_groups_files_links_and_colours(alice):
    document = jsoncanvas.parse_text((DATA / "obsidian-sample.canvas").read_text())
    result = canvas_import(user=alice, document=document, name="From Obsidian")
    canvas = Canvas.objects.get(pk=result["canvas"]["id"])
    assert canvas.name == "From Obsidian" and result["nodes"] == 8 and result["edges"] == 3
    by_file_id = {
        fid: Node.objects.get(pk=new)
        for fid, new in result["id_map"].items()
        if Node.objects.filter(pk=new).exists()
    }
    outer, inner = by_file_id["6f1c2a7d9e0b4c11"], by_file_id["b2d4e6f8a0c2e4f6"]
    assert (outer.content, outer.tags) == ("Backend plan", ["group", "color:4"])
    assert (inner.content, inner.tags) == ("Database", ["group", "group:Backend plan"])
    goal = by_file_id["1a2b3c4d5e6f7081"]
    assert goal.content.startswith("# Goal") and goal.tags == ["color:1", "group:Backend plan"]
    port = by_file_id["2b3c4d5e6f708192"]
    assert set(port.tags) == {"color:#ff8800", "group:Backend plan", "group:Database"}
    file_node = by_file_id["3c4d5e6f70819203"]
    assert file_node.content == "Notes/Database setup.md#Ports" and "file" in file_node.tags
    link = by_file_id["4d5e6f7081920314"]
    assert link.content == "https://jsoncanvas.org/spec/1.0/" and link.tags == ["link", "group:Backend plan"]
    assert by_file_id["6f70819203142536"].tags == [] and (goal.x, goal.y) == (-400, -280)
    edge = Edge.objects.get(canvas=canvas, label="constrains")
    assert (edge.source_id, edge.target_id, edge.relation) == (goal.id, port.id, "relates_to")
    assert Edge.objects.filter(canvas=canvas, target=outer).exists()  # edges to groups are kept
    assert {"where": "nodes[6] (id '5e6f708192031425')", "keys": ["styleAttributes"]} in result[
        "unknown_keys"
    ]
    assert any("itself" in note for note in result["notes"])
    assert {e.reason for e in ChangeLogEntry.objects.filter(canvas=canvas, entity="node")} == {"import"}


def _valid():
    return {
        "nodes": [
            {"id": "a", "type": "text", "text": "A", "x": 0, "y": 0, "width": 100, "height": 50},
            {"id": "b", "type": "text", "text": "B", "x": 200, "y": 0, "width": 100, "height": 50},
        ],
        "edges": [{"id": "e", "fromNode": "a", "toNode": "b"}],
    }


def _with(path_value):
    document = _valid()
    for path, value in path_value:
        target = document
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
    return document


MALFORMED = {
    "not an object": ([1, 2], "JSON object"),
    "nodes not a list": ({"nodes": {"a": 1}}, "`nodes` must be a list"),
    "x is a string": (_with([(("nodes", 0, "x"), "12")]), "nodes[0] (id 'a'): x must be a number"),
    "x is a bool": (_with([(("nodes", 0, "x"), True)]), "x must be a number"),
    "huge y": (_with([(("nodes", 1, "y"), 1e12)]), "nodes[1] (id 'b'): y must be between"),
    "NaN x": (_with([(("nodes", 0, "x"), math.nan)]), "x must be a finite number"),
    "infinite width": (_with([(("nodes", 0, "width"), math.inf)]), "width must be a finite number"),
    "text not a string": (_with([(("nodes", 0, "text"), ["A"])]), "text must be a string"),
    "missing text": (_with([(("nodes", 0, "text"), None)]), "text must be a string"),
    "unknown type": (_with([(("nodes", 0, "type"), "video")]), "type must be one of"),
    "duplicate node id": (_with([(("nodes", 1, "id"), "a")]), "duplicate id"),
    "edge id reuses a node id": (_with([(("edges", 0, "id"), "b")]), "edges[0] (id 'b'): duplicate id"),
    "edge to missing node": (
        _with([(("edges", 0, "toNode"), "zz")]),
        "toNode 'zz' is not a node in this file",
    ),
    "bad side": (_with([(("edges", 0, "fromSide"), "middle")]), "fromSide must be one of"),
    "bad color": (_with([(("nodes", 0, "color"), 7)]), "color must be"),
    "bad namespaced kind": (_with([(("nodes", 0, "canvasweb"), {"kind": "poem"})]), "canvasweb.kind must be"),
    "bad namespaced weight": (
        _with([(("nodes", 0, "canvasweb"), {"weight": 99})]),
        "canvasweb.weight must be",
    ),
    "superseded_by missing": (
        _with([(("nodes", 0, "canvasweb"), {"superseded_by": "nope"})]),
        "superseded_by 'nope' is not a node",
    ),
    "bad relation": (
        _with([(("edges", 0, "canvasweb"), {"relation": "loves"})]),
        "canvasweb.relation must be",
    ),
    "text too long": (_with([(("nodes", 0, "text"), "x" * 10_001)]), "the limit is 10000"),
}


@pytest.mark.parametrize("name", sorted(MALFORMED))
def test_malformed_files_are_rejected_whole(alice, name):
    document, expected = MALFORMED[name]
    before = (Canvas.objects.count(), Node.objects.count(), ChangeLogEntry.objects.count())
    with pytest.raises(ImportRejected) as info:
        canvas_import(user=alice, document=document)
    assert any(expected in problem for problem in info.value.problems), info.value.problems
    assert (Canvas.objects.count(), Node.objects.count(), ChangeLogEntry.objects.count()) == before


def test_every_problem_is_listed_at_once(alice):
    document = _with(
        [(("nodes", 0, "x"), "left"), (("nodes", 1, "y"), math.inf), (("edges", 0, "toNode"), "zz")]
    )
    with pytest.raises(ImportRejected) as info:
        canvas_import(user=alice, document=document)
    assert len(info.value.problems) == 3 and "3 problems" in info.value.message
    assert not Canvas.objects.exists()


def test_nan_and_bad_json_text_are_rejected():
    with pytest.raises(ImportRejected, match="NaN is not allowed"):
        jsoncanvas.parse_text('{"nodes": [{"id": "a", "type": "text", "text": "", "x": NaN, "y": 0}]}')
    with pytest.raises(ImportRejected, match="not valid JSON"):
        jsoncanvas.parse_text('{"nodes": [')


def test_empty_canvas_file_imports(alice):
    result = canvas_import(user=alice, document={})
    assert result["nodes"] == 0 and Canvas.objects.get(pk=result["canvas"]["id"]).name == "Imported canvas"


def test_export_and_import_endpoints(canvas, apply, alice, bob, vic, client_for, schema_check):
    rich_canvas(canvas, apply, alice, bob)
    response = client_for(vic).get(f"/api/canvases/{canvas.pk}/export.canvas")
    schema_check(response, "canvas_export")
    assert response.status_code == 200
    assert response["Content-Disposition"] == 'attachment; filename="Launch-plan.canvas"'
    document = response.json()
    assert all(n["canvasweb"]["sensitivity"] == "public" for n in document["nodes"])

    imported = client_for(vic).post("/api/canvases/import/?name=Copy", document, format="json")
    schema_check(imported, "canvas_import")
    assert imported.status_code == 201 and imported.json()["canvas"]["name"] == "Copy"
    assert imported.json()["canvas"]["role"] == "owner"
    assert imported["Location"] == f"/api/canvases/{imported.json()['canvas']['id']}/"

    bad = client_for(vic).post(
        "/api/canvases/import/", _with([(("edges", 0, "toNode"), "zz")]), format="json"
    )
    schema_check(bad, "canvas_import")
    error = bad.json()["error"]
    assert bad.status_code == 400 and error["code"] == "INVALID_CANVAS_FILE"
    assert error["problems"] == ["edges[0] (id 'e'): toNode 'zz' is not a node in this file"]
    nan = client_for(vic).generic(
        "POST", "/api/canvases/import/", '{"nodes": [{"x": NaN}]}', content_type="application/json"
    )
    assert nan.status_code == 400
    assert client_for(vic).get(f"/api/canvases/{canvas.pk + 1000}/export.canvas").status_code == 404


def test_imported_groups_do_not_sit_under_their_members(alice):
    from canvasweb.canvases.placement import node_rect

    document = jsoncanvas.parse_text((DATA / "obsidian-sample.canvas").read_text())
    result = canvas_import(user=alice, document=document, name="Groups placed")
    nodes = list(Node.objects.filter(canvas_id=result["canvas"]["id"]))
    groups = [n for n in nodes if "group" in n.tags]
    members = [n for n in nodes if "group" not in n.tags]
    assert len(groups) == 2
    for g in groups:
        box = node_rect(x=g.x, y=g.y, weight=g.weight, content=g.content)
        for m in members:
            assert not box.overlaps(node_rect(x=m.x, y=m.y, weight=m.weight, content=m.content), gap=0), (
                g.content,
                m.content,
            )
    assert not node_rect(x=groups[0].x, y=groups[0].y).overlaps(
        node_rect(x=groups[1].x, y=groups[1].y), gap=0
    )
