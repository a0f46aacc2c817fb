"""Obsidian groups on import: a group becomes a `note` tagged `group`, and every node lying inside
its box is tagged `group:<label>`."""

from __future__ import annotations

from canvasweb.canvases.operations import (
    COORDINATE_LIMIT,
    MAX_TAG_CHARS,
)
from canvasweb.canvases.placement import Rect, card_height, card_width, free_spot

from .format import (
    ImportPlan,
)


def lift_groups(plan: ImportPlan, parsed_nodes: list[dict]) -> None:
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


def inside_group(node: dict, group: dict) -> bool:
    gx, gy, gw, gh = group["x"], group["y"], group["width"], group["height"]
    if gw is None or gh is None:
        return False
    w, h = node["width"] or 0, node["height"] or 0
    return gx <= node["x"] and gy <= node["y"] and node["x"] + w <= gx + gw and node["y"] + h <= gy + gh


def group_tag(group: dict) -> str:
    label = " ".join(group["label"].split()) or f"untitled-{group['file_id'][:8]}"
    return f"group:{label}"[:MAX_TAG_CHARS].strip()


def unique_tags(tags: list[str]) -> list[str]:
    out: list[str] = []
    for tag in tags:
        tag = tag.strip()[:MAX_TAG_CHARS]
        if tag and tag not in out:
            out.append(tag)
    return out
