"""Import: check a whole JSON Canvas document and return what to create (`plan_import`); the
writes happen in canvasweb.history.json_import."""

from __future__ import annotations

import json
import uuid
from typing import Any

from canvasweb.canvases.models import NodeKind
from canvasweb.canvases.operations import (
    MAX_TAGS,
)
from canvasweb.common.json_safety import find_unsafe

from .format import (
    DOC_KEYS,
    DOC_NS_KEYS,
    MAX_ITEMS,
    NAMESPACE,
    ImportPlan,
    ImportRejected,
)
from .groups import group_tag, inside_group, lift_groups, unique_tags
from .import_checks import check_edge, check_node, report_unknown


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
    report_unknown(plan, "the document", document, DOC_KEYS)
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
            report_unknown(plan, f"the document's {NAMESPACE} key", doc_ns, DOC_NS_KEYS)
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
        parsed = check_node(raw, where, problems, plan)
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
        edge = check_edge(raw, index, node_ids, problems, plan)
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
            if group is not node and inside_group(node, group):
                tags.append(group_tag(group))
        tags = unique_tags(tags)
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
    lift_groups(plan, parsed_nodes)
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
