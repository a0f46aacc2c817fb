"""JSON Canvas 1.0 (https://jsoncanvas.org) export and import checks.

Export: every node the exporter may see becomes a `text` node, every edge between
two such nodes an edge. Canvasweb's own fields travel under one namespaced key,
`"canvasweb"`, on each node, edge and the document, so an export imports back
with every field intact while Obsidian and other JSON Canvas apps keep working.

Import (`plan_import`) checks a whole document and returns what to create; the
writes happen in `canvasweb.history.json_import.canvas_import`. Any problem rejects
the file whole (`ImportRejected` lists every problem found). Mapping of things
Canvasweb has no equivalent for (docs/history.md):

* `group` → a `note` node whose content is the group's label, tagged `group`;
  every node lying inside the group's box is tagged `group:<label>`.
* `file` → a `note` with the file path (and `#subpath`) as content, tagged `file`.
* `link` → a `note` with the URL as content, tagged `link`.
* a node's `color` (for nodes without our namespace) → tag `color:<value>`.
* node sizes, edge sides/ends and edge colours are not kept.
* ids: every node and edge gets a new UUID (ids are global in Canvasweb);
  the mapping is returned as `id_map`.
* unknown keys are reported (`unknown_keys`), not kept.
"""

from __future__ import annotations

import json
import math
import re
import uuid
from dataclasses import dataclass, field
from typing import Any

from canvasweb.canvases import selectors as canvas_selectors
from canvasweb.canvases.models import Canvas, NodeKind, Relation, Sensitivity
from canvasweb.canvases.operations import (
    COORDINATE_LIMIT,
    MAX_CONTENT_CHARS,
    MAX_LABEL_CHARS,
    MAX_TAG_CHARS,
    MAX_TAGS,
    MAX_WEIGHT,
    MIN_WEIGHT,
)
from canvasweb.canvases.placement import Rect, card_height, card_width, free_spot
from canvasweb.common.errors import CanvasError
from canvasweb.common.json_safety import find_unsafe, finite_float

NAMESPACE = "canvasweb"
FORMAT_VERSION = 1
MAX_ITEMS = 5000
MAX_PROBLEMS = 50

NODE_TYPES = ("text", "file", "link", "group")
SIDES = ("top", "right", "bottom", "left")
ENDS = ("none", "arrow")
COMMON_NODE_KEYS = {"id", "type", "x", "y", "width", "height", "color", NAMESPACE}
TYPE_KEYS = {
    "text": {"text"},
    "file": {"file", "subpath"},
    "link": {"url"},
    "group": {"label", "background", "backgroundStyle"},
}
EDGE_KEYS = {
    "id",
    "fromNode",
    "toNode",
    "fromSide",
    "toSide",
    "fromEnd",
    "toEnd",
    "color",
    "label",
    NAMESPACE,
}
NODE_NS_KEYS = {"kind", "weight", "tags", "pinned", "sensitivity", "archived", "superseded_by", "x", "y"}
EDGE_NS_KEYS = {"relation"}
DOC_NS_KEYS = {"format", "name", "description", "canvas_id", "revision"}
DOC_KEYS = {"nodes", "edges", NAMESPACE}

# Export colours by kind (JSON Canvas presets: 1 red, 2 orange, 3 yellow, 4 green, 5 cyan, 6 purple).
KIND_COLORS = {"requirement": "1", "question": "3", "decision": "4", "config": "5", "fact": "6"}
COLOR_RE = re.compile(r"^(?:[1-6]|#[0-9a-fA-F]{3}|#[0-9a-fA-F]{6})$")
COLOR_TAG = "color:"
NODE_WIDTH = 320


class ImportRejected(CanvasError):
    """The file is not a JSON Canvas Canvasweb can import; nothing was created."""

    code = "INVALID_CANVAS_FILE"
    http_status = 400

    def __init__(self, problems: list[str]):
        self.problems = problems[:MAX_PROBLEMS]
        more = len(problems) - len(self.problems)
        summary = "; ".join(self.problems) + (f"; and {more} more" if more > 0 else "")
        super().__init__(
            f"the file was not imported ({len(problems)} problem{'s' * (len(problems) != 1)}): {summary}",
            field=None,
        )

    def as_dict(self) -> dict:
        return {**super().as_dict(), "problems": self.problems}


# --- export ---------------------------------------------------------------------------------------------------


def export_canvas(*, canvas: Canvas, role: str, include_secret: bool = True) -> dict:
    """The canvas as a JSON Canvas document, holding only what `role` may see.

    With include_secret=False, secret nodes (and the edges that touch them) are left out even for
    a role that may see them: a file leaves the product's access control once it is downloaded.
    """
    canvas = Canvas.objects.get(pk=canvas.pk)
    visible = canvas_selectors.visible_nodes(canvas=canvas, role=role)
    if not include_secret:
        visible = visible.exclude(sensitivity="secret")
    nodes = list(visible.order_by("created_at", "id"))
    exported = {str(n.id) for n in nodes}
    out_nodes = []
    for node in nodes:
        ns: dict[str, Any] = {
            "kind": node.kind,
            "weight": node.weight,
            "tags": list(node.tags or []),
            "pinned": node.pinned,
            "sensitivity": node.sensitivity,
            "archived": node.archived,
            "superseded_by": str(node.superseded_by_id)
            if node.superseded_by_id and str(node.superseded_by_id) in exported
            else None,
        }
        x, y = round(node.x), round(node.y)
        if x != node.x:
            ns["x"] = node.x
        if y != node.y:
            ns["y"] = node.y
        item: dict[str, Any] = {
            "id": str(node.id),
            "type": "text",
            "text": node.content,
            "x": x,
            "y": y,
            "width": NODE_WIDTH,
            "height": _height(node.content),
        }
        color = _export_color(node.kind, node.tags or [])
        if color:
            item["color"] = color
        item[NAMESPACE] = ns
        out_nodes.append(item)
    out_edges = []
    for edge in canvas_selectors.visible_edges(canvas=canvas, role=role).order_by("created_at", "id"):
        if str(edge.source_id) not in exported or str(edge.target_id) not in exported:
            continue
        item = {"id": str(edge.id), "fromNode": str(edge.source_id), "toNode": str(edge.target_id)}
        if edge.label:
            item["label"] = edge.label
        item[NAMESPACE] = {"relation": edge.relation}
        out_edges.append(item)
    return {
        "nodes": out_nodes,
        "edges": out_edges,
        NAMESPACE: {
            "format": FORMAT_VERSION,
            "name": canvas.name,
            "description": canvas.description,
            "canvas_id": canvas.pk,
            "revision": canvas.revision,
        },
    }


def _height(text: str) -> int:
    lines = sum(max(1, math.ceil(len(line) / 40)) for line in (text or "").splitlines() or [""])
    return 60 + 24 * min(lines, 20)


def _export_color(kind: str, tags: list[str]) -> str | None:
    for tag in tags:
        if tag.startswith(COLOR_TAG) and COLOR_RE.match(tag[len(COLOR_TAG) :]):
            return tag[len(COLOR_TAG) :]
    return KIND_COLORS.get(kind)


def filename_for(canvas: Canvas) -> str:
    stem = re.sub(r"[^\w\- ]+", "", canvas.name, flags=re.UNICODE).strip().replace(" ", "-") or "canvas"
    return f"{stem[:80]}.canvas"


# --- import ---------------------------------------------------------------------------------------------------


@dataclass
class ImportPlan:
    name: str = ""
    description: str = ""
    nodes: list[dict] = field(default_factory=list)  # node.create bodies (new ids)
    archived: list[str] = field(default_factory=list)  # new node ids to archive
    superseded: list[tuple[str, str]] = field(default_factory=list)  # (new old-id, new successor id)
    edges: list[dict] = field(default_factory=list)  # edge.create bodies (new ids)
    id_map: dict[str, str] = field(default_factory=dict)  # file id → new UUID
    unknown_keys: list[dict] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def parse_text(text: str | bytes) -> Any:
    """JSON text → document; NaN/Infinity and invalid JSON are import problems."""

    def no_constants(name):
        raise ValueError(f"{name} is not allowed in JSON Canvas files")

    try:
        return json.loads(text, parse_constant=no_constants)
    except RecursionError:
        raise ImportRejected(["the file is nested too deeply"]) from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise ImportRejected([f"the file is not valid JSON: {exc}"]) from None


def plan_import(document: Any) -> ImportPlan:
    """Check a whole JSON Canvas document and return what to create, or raise ImportRejected."""
    problems: list[str] = []
    plan = ImportPlan()
    unsafe = find_unsafe(
        document
    )  # lone surrogates, ints beyond float range (files not read by the API parser)
    if unsafe is not None:
        raise ImportRejected([unsafe[1]])
    if not isinstance(document, dict):
        raise ImportRejected(["the file must be a JSON object with `nodes` and `edges` lists"])
    _report_unknown(plan, "the document", document, DOC_KEYS)
    nodes = document.get("nodes", [])
    edges = document.get("edges", [])
    if not isinstance(nodes, list):
        problems.append("`nodes` must be a list")
        nodes = []
    if not isinstance(edges, list):
        problems.append("`edges` must be a list")
        edges = []
    if len(nodes) + len(edges) > MAX_ITEMS:
        raise ImportRejected(
            [f"the file holds {len(nodes) + len(edges)} nodes and edges; the limit is {MAX_ITEMS}"]
        )
    doc_ns = document.get(NAMESPACE)
    if doc_ns is not None:
        if not isinstance(doc_ns, dict):
            problems.append(f"`{NAMESPACE}` must be an object")
        else:
            _report_unknown(plan, f"the document's {NAMESPACE} key", doc_ns, DOC_NS_KEYS)
            if isinstance(doc_ns.get("name"), str):
                plan.name = doc_ns["name"].strip()[:200]
            if isinstance(doc_ns.get("description"), str):
                plan.description = doc_ns["description"][:2000]

    # Pass 1: ids (unique across nodes and edges) and geometry for group containment.
    seen: dict[str, str] = {}
    parsed_nodes: list[dict] = []
    for index, raw in enumerate(nodes):
        where = f"nodes[{index}]"
        if not isinstance(raw, dict):
            problems.append(f"{where} must be an object")
            continue
        node_id = raw.get("id")
        if not isinstance(node_id, str) or not node_id:
            problems.append(f"{where}.id must be a non-empty string")
            continue
        where = f"{where} (id {node_id!r})"
        if node_id in seen:
            problems.append(f"{where}: duplicate id (also used by {seen[node_id]})")
            continue
        seen[node_id] = f"nodes[{index}]"
        parsed = _check_node(raw, where, problems, plan)
        if parsed is not None:
            parsed_nodes.append(parsed)
    for index, raw in enumerate(edges):
        if isinstance(raw, dict) and isinstance(raw.get("id"), str) and raw["id"]:
            if raw["id"] in seen:
                problems.append(
                    f"edges[{index}] (id {raw['id']!r}): duplicate id (also used by {seen[raw['id']]})"
                )
            else:
                seen[raw["id"]] = f"edges[{index}]"

    # Every node with a usable id counts as a target, even one with other problems (no knock-on errors).
    node_ids = {file_id for file_id, where in seen.items() if where.startswith("nodes[")}
    for node in parsed_nodes:
        successor = node["ns"].get("superseded_by")
        if successor is not None and successor not in node_ids:
            problems.append(
                f"{node['where']}: {NAMESPACE}.superseded_by {successor!r} is not a node in this file"
            )

    parsed_edges = []
    for index, raw in enumerate(edges):
        edge = _check_edge(raw, index, node_ids, problems, plan)
        if edge is not None:
            parsed_edges.append(edge)

    if problems:
        raise ImportRejected(problems)

    # Pass 2: build the bodies.
    for node in parsed_nodes:
        plan.id_map[node["file_id"]] = str(uuid.uuid4())
    groups = [n for n in parsed_nodes if n["type"] == "group"]
    for node in parsed_nodes:
        tags = list(node["tags"])
        for group in groups:
            if group is not node and _inside(node, group):
                tags.append(_group_tag(group))
        tags = _unique_tags(tags)
        if len(tags) > MAX_TAGS:
            plan.notes.append(f"{node['where']}: kept the first {MAX_TAGS} of {len(tags)} tags")
            tags = tags[:MAX_TAGS]
        body = {
            "id": plan.id_map[node["file_id"]],
            "content": node["content"],
            "x": node["x"],
            "y": node["y"],
            "kind": node["ns"].get("kind", NodeKind.NOTE.value),
            "tags": tags,
        }
        for name in ("weight", "pinned", "sensitivity"):
            if name in node["ns"]:
                body[name] = node["ns"][name]
        plan.nodes.append(body)
        if node["ns"].get("archived"):
            plan.archived.append(body["id"])
        if node["ns"].get("superseded_by"):
            plan.superseded.append((body["id"], plan.id_map[node["ns"]["superseded_by"]]))
    _lift_groups(plan, parsed_nodes)
    for edge in parsed_edges:
        if edge["from"] == edge["to"]:
            plan.notes.append(f"{edge['where']}: skipped, Canvasweb has no edges from a node to itself")
            continue
        new_id = str(uuid.uuid4())
        plan.id_map[edge["file_id"]] = new_id
        plan.edges.append(
            {
                "id": new_id,
                "source": plan.id_map[edge["from"]],
                "target": plan.id_map[edge["to"]],
                "relation": edge["relation"],
                "label": edge["label"],
            }
        )
    if groups:
        plan.notes.append(
            f"{len(groups)} group(s) became notes tagged `group`; nodes inside them are tagged "
            "`group:<label>`"
        )
    if any(n["type"] == "file" for n in parsed_nodes):
        plan.notes.append("file nodes became notes holding the file path, tagged `file`")
    if any(n["type"] == "link" for n in parsed_nodes):
        plan.notes.append("link nodes became notes holding the URL, tagged `link`")
    return plan


def _report_unknown(plan: ImportPlan, where: str, obj: dict, known: set[str]) -> None:
    unknown = sorted(str(k) for k in obj.keys() - known)
    if unknown:
        plan.unknown_keys.append({"where": where, "keys": unknown})


def _number(
    raw: dict,
    name: str,
    where: str,
    problems: list[str],
    *,
    label: str | None = None,
    limit: float = COORDINATE_LIMIT,
    minimum: float | None = None,
) -> float | None:
    value = raw.get(name)
    label = label or name
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        problems.append(f"{where}: {label} must be a number")
        return None
    number = finite_float(value)  # None for NaN and for an int too large for a float
    if number is None:
        problems.append(f"{where}: {label} must be a finite number")
        return None
    low = -limit if minimum is None else minimum
    if not low <= number <= limit:
        problems.append(f"{where}: {label} must be between {low:g} and {limit:g}")
        return None
    return number


def _check_node(raw: dict, where: str, problems: list[str], plan: ImportPlan) -> dict | None:
    before = len(problems)
    node_type = raw.get("type")
    if node_type not in NODE_TYPES:
        problems.append(f"{where}: type must be one of {', '.join(NODE_TYPES)}")
        return None
    _report_unknown(plan, where, raw, COMMON_NODE_KEYS | TYPE_KEYS[node_type])
    x = _number(raw, "x", where, problems)
    y = _number(raw, "y", where, problems)
    width = height = None
    for name in ("width", "height"):
        if name in raw:
            value = _number(raw, name, where, problems, limit=2 * COORDINATE_LIMIT, minimum=0)
            if name == "width":
                width = value
            else:
                height = value
    color = raw.get("color")
    if color is not None and (not isinstance(color, str) or not COLOR_RE.match(color)):
        problems.append(f'{where}: color must be a preset "1"-"6" or a hex colour like "#ff0000"')

    tags: list[str] = []
    content = ""
    if node_type == "text":
        content = _string(raw, "text", where, problems, required=True)
    elif node_type == "file":
        path = _string(raw, "file", where, problems, required=True)
        subpath = _string(raw, "subpath", where, problems, required=False)
        content = path + subpath
        tags.append("file")
    elif node_type == "link":
        content = _string(raw, "url", where, problems, required=True)
        tags.append("link")
    else:
        content = _string(raw, "label", where, problems, required=False)
        for name in ("background", "backgroundStyle"):
            _string(raw, name, where, problems, required=False)
        tags.append("group")
    if len(content) > MAX_CONTENT_CHARS:
        problems.append(f"{where}: the text is {len(content)} characters; the limit is {MAX_CONTENT_CHARS}")
    if "\x00" in content:
        problems.append(f"{where}: the text must not contain NUL characters")

    ns_raw = raw.get(NAMESPACE)
    ns: dict[str, Any] = {}
    if ns_raw is not None:
        if not isinstance(ns_raw, dict):
            problems.append(f"{where}: {NAMESPACE} must be an object")
        else:
            _report_unknown(plan, f"{where}.{NAMESPACE}", ns_raw, NODE_NS_KEYS)
            ns = _check_node_ns(ns_raw, where, problems)
            if "tags" in ns:
                tags = list(ns["tags"])
            # The exact coordinate, unless the node was moved in another app since (the integer differs).
            if "x" in ns and x is not None and round(ns["x"]) == x:
                x = ns["x"]
            if "y" in ns and y is not None and round(ns["y"]) == y:
                y = ns["y"]
    elif isinstance(color, str) and COLOR_RE.match(color):
        tags.append(f"{COLOR_TAG}{color}")
    if len(problems) > before:
        return None
    return {
        "file_id": raw["id"],
        "where": where,
        "type": node_type,
        "content": content,
        "x": x,
        "y": y,
        "width": width,
        "height": height,
        "label": content if node_type == "group" else "",
        "tags": tags,
        "ns": ns,
    }


def _string(raw: dict, name: str, where: str, problems: list[str], *, required: bool) -> str:
    if name not in raw:
        if required:
            problems.append(f"{where}: {name} is required for a {raw.get('type')} node")
        return ""
    value = raw[name]
    if not isinstance(value, str):
        problems.append(f"{where}: {name} must be a string")
        return ""
    return value


def _check_node_ns(ns: dict, where: str, problems: list[str]) -> dict:
    out: dict[str, Any] = {}
    prefix = f"{where}: {NAMESPACE}."
    if "kind" in ns:
        if ns["kind"] not in NodeKind.values:
            problems.append(f"{prefix}kind must be one of {', '.join(NodeKind.values)}")
        else:
            out["kind"] = ns["kind"]
    if "sensitivity" in ns:
        if ns["sensitivity"] not in Sensitivity.values:
            problems.append(f"{prefix}sensitivity must be one of {', '.join(Sensitivity.values)}")
        else:
            out["sensitivity"] = ns["sensitivity"]
    if "weight" in ns:
        value = _number(
            ns, "weight", where, problems, label=f"{NAMESPACE}.weight", limit=MAX_WEIGHT, minimum=MIN_WEIGHT
        )
        if value is not None:
            out["weight"] = value
    for name in ("x", "y"):
        if name in ns:
            value = _number(ns, name, where, problems, label=f"{NAMESPACE}.{name}")
            if value is not None:
                out[name] = value
    for name in ("pinned", "archived"):
        if name in ns:
            if not isinstance(ns[name], bool):
                problems.append(f"{prefix}{name} must be true or false")
            else:
                out[name] = ns[name]
    if "tags" in ns:
        tags = ns["tags"]
        if (
            not isinstance(tags, list)
            or len(tags) > MAX_TAGS
            or not all(
                isinstance(t, str) and 1 <= len(t.strip()) <= MAX_TAG_CHARS and "\x00" not in t for t in tags
            )
        ):
            problems.append(
                f"{prefix}tags must be a list of at most {MAX_TAGS} strings of 1-{MAX_TAG_CHARS} characters"
            )
        else:
            out["tags"] = [t.strip() for t in tags]
    if ns.get("superseded_by") is not None:
        if not isinstance(ns["superseded_by"], str):
            problems.append(f"{prefix}superseded_by must be a node id or null")
        else:
            out["superseded_by"] = ns["superseded_by"]
    return out


def _check_edge(
    raw: Any, index: int, node_ids: set[str], problems: list[str], plan: ImportPlan
) -> dict | None:
    where = f"edges[{index}]"
    if not isinstance(raw, dict):
        problems.append(f"{where} must be an object")
        return None
    edge_id = raw.get("id")
    if not isinstance(edge_id, str) or not edge_id:
        problems.append(f"{where}.id must be a non-empty string")
        return None
    where = f"{where} (id {edge_id!r})"
    before = len(problems)
    _report_unknown(plan, where, raw, EDGE_KEYS)
    ends = {}
    for name in ("fromNode", "toNode"):
        value = raw.get(name)
        if not isinstance(value, str) or not value:
            problems.append(f"{where}: {name} must be a node id")
        elif value not in node_ids:
            problems.append(f"{where}: {name} {value!r} is not a node in this file")
        else:
            ends[name] = value
    for name in ("fromSide", "toSide"):
        if name in raw and raw[name] not in SIDES:
            problems.append(f"{where}: {name} must be one of {', '.join(SIDES)}")
    for name in ("fromEnd", "toEnd"):
        if name in raw and raw[name] not in ENDS:
            problems.append(f"{where}: {name} must be one of {', '.join(ENDS)}")
    color = raw.get("color")
    if color is not None and (not isinstance(color, str) or not COLOR_RE.match(color)):
        problems.append(f'{where}: color must be a preset "1"-"6" or a hex colour like "#ff0000"')
    label = raw.get("label", "")
    if not isinstance(label, str):
        problems.append(f"{where}: label must be a string")
    elif len(label) > MAX_LABEL_CHARS or "\x00" in label:
        problems.append(f"{where}: label must be at most {MAX_LABEL_CHARS} characters")
    relation = Relation.RELATES_TO.value
    ns = raw.get(NAMESPACE)
    if ns is not None:
        if not isinstance(ns, dict):
            problems.append(f"{where}: {NAMESPACE} must be an object")
        else:
            _report_unknown(plan, f"{where}.{NAMESPACE}", ns, EDGE_NS_KEYS)
            if "relation" in ns:
                if ns["relation"] not in Relation.values:
                    problems.append(
                        f"{where}: {NAMESPACE}.relation must be one of {', '.join(Relation.values)}"
                    )
                else:
                    relation = ns["relation"]
    if len(problems) > before:
        return None
    return {
        "file_id": edge_id,
        "where": where,
        "from": ends["fromNode"],
        "to": ends["toNode"],
        "relation": relation,
        "label": label,
    }


def _lift_groups(plan: ImportPlan, parsed_nodes: list[dict]) -> None:
    """A group becomes a note card: put it at the free spot nearest its frame's corner, not under its members."""
    by_id = {body["id"]: body for body in plan.nodes}
    taken = [
        Rect(n["x"], n["y"], n["width"] or card_width(None), n["height"] or card_height(n["content"]))
        for n in parsed_nodes
        if n["type"] != "group"
    ]
    for node in parsed_nodes:
        if node["type"] != "group":
            continue
        body = by_id[plan.id_map[node["file_id"]]]
        size = (card_width(body.get("weight")), card_height(body["content"]))
        body["x"], body["y"] = free_spot(
            taken=taken, want=(node["x"], node["y"] - size[1]), size=size, limit=COORDINATE_LIMIT
        )
        taken.append(Rect(body["x"], body["y"], *size))


def _inside(node: dict, group: dict) -> bool:
    gx, gy, gw, gh = group["x"], group["y"], group["width"], group["height"]
    if gw is None or gh is None:
        return False
    w, h = node["width"] or 0, node["height"] or 0
    return gx <= node["x"] and gy <= node["y"] and node["x"] + w <= gx + gw and node["y"] + h <= gy + gh


def _group_tag(group: dict) -> str:
    label = " ".join(group["label"].split()) or f"untitled-{group['file_id'][:8]}"
    return f"group:{label}"[:MAX_TAG_CHARS].strip()


def _unique_tags(tags: list[str]) -> list[str]:
    out: list[str] = []
    for tag in tags:
        tag = tag.strip()[:MAX_TAG_CHARS]
        if tag and tag not in out:
            out.append(tag)
    return out


__all__ = [
    "NAMESPACE",
    "ImportPlan",
    "ImportRejected",
    "export_canvas",
    "filename_for",
    "parse_text",
    "plan_import",
]
