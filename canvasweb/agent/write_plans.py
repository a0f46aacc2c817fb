"""The agent's write tools turned into canvas operations, plus what a proposal shows.

Each plan is checked against the agent rules (policy.py) and placed on a free spot; the
write path (canvasweb.canvases.services) still checks everything again when it applies it.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass, field

from canvasweb.canvases import permissions
from canvasweb.canvases.models import Canvas, Node
from canvasweb.canvases.operations import COORDINATE_LIMIT
from canvasweb.common.errors import InvalidOperation

from .placement import place_agent_node
from .policy import PolicyChecks

PLACE_OFFSET = 260.0


@dataclass
class _Planned:
    """A validated write: the canvas operation plus what a proposal shows."""

    op: dict
    summary: str
    diff: dict
    base_versions: dict[str, int] = field(default_factory=dict)
    refs: list[str] = field(default_factory=list)
    level: int = 0
    new_node_id: str | None = None


class WritePlans(PolicyChecks):
    """Write tool call → a checked, placed canvas operation."""

    def _plan(self, name: str, args: dict, *, canvas: Canvas, role: str, turn) -> _Planned:
        level_of = permissions.sensitivity_level
        if name == "add_node":
            self._check_text(args["content"], "content")
            self._check_tags(args.get("tags"))
            near = self._node(args["near"], role=role, field_name="near") if "near" in args else None
            x, y = self._place(args, near=near)
            body = {
                "id": str(uuid.uuid4()),
                "content": args["content"],
                "kind": args.get("kind", "note"),
                "x": x,
                "y": y,
                "weight": float(args.get("weight", 1.0)),
                "tags": args.get("tags", []),
                "sensitivity": args.get("sensitivity", "public"),
            }
            return _Planned(
                op={"type": "node.create", "node": body},
                summary=f"Add {body['kind']}: {_quote(body['content'])}",
                diff={"node": body, "fields": []},
                level=level_of(body["sensitivity"]),
                new_node_id=body["id"],
            )
        if name == "link_nodes":
            source = self._node(args["source"], role=role, field_name="source")
            target = self._node(args["target"], role=role, field_name="target")
            for node, where in ((source, "source"), (target, "target")):
                self._check_not_secret(node, where)
            if source.pk == target.pk:
                raise InvalidOperation("a node cannot be linked to itself", field="target")
            label = args.get("label", "")
            self._check_text(label, "label")
            edge = {
                "id": str(uuid.uuid4()),
                "source": str(source.pk),
                "target": str(target.pk),
                "relation": args["relation"],
                "label": label,
            }
            return _Planned(
                op={"type": "edge.create", "edge": edge},
                summary=f"Link {_quote(source.content)} {args['relation'].replace('_', ' ')} "
                f"{_quote(target.content)}",
                diff={"edge": edge, "source": _ref(source), "target": _ref(target), "fields": []},
                refs=[str(source.pk), str(target.pk)],
                level=max(level_of(source.sensitivity), level_of(target.sensitivity)),
            )
        node = self._node(args["node"], role=role, field_name="node")
        self._check_not_secret(node, "node")
        node_id = str(node.pk)
        base = {node_id: node.version}
        level = level_of(node.sensitivity)
        if name == "update_node":
            fields = {key: args[key] for key in ("content", "kind", "weight", "tags") if key in args}
            if "content" in fields:
                self._check_text(fields["content"], "content")
            self._check_tags(fields.get("tags"))
            changes = [
                {"field": key, "before": getattr(node, key), "after": value} for key, value in fields.items()
            ]
            return _Planned(
                op={"type": "node.update", "id": node_id, "fields": fields},
                summary=f"Update {_quote(node.content)}: {', '.join(fields)}",
                diff={"target": _ref(node), "fields": changes},
                base_versions=base,
                level=level,
            )
        if name == "move_node":
            return _Planned(
                op={"type": "node.move", "id": node_id, "x": float(args["x"]), "y": float(args["y"])},
                summary=f"Move {_quote(node.content)}",
                diff={
                    "target": _ref(node),
                    "fields": [
                        {"field": "x", "before": node.x, "after": float(args["x"])},
                        {"field": "y", "before": node.y, "after": float(args["y"])},
                    ],
                },
                base_versions=base,
                level=level,
            )
        if name == "archive_node":
            return _Planned(
                op={"type": "node.archive", "id": node_id, "archived": True},
                summary=f"Archive {_quote(node.content)}",
                diff={
                    "target": _ref(node),
                    "fields": [{"field": "archived", "before": node.archived, "after": True}],
                },
                base_versions=base,
                level=level,
            )
        if name == "supersede_node":
            self._check_text(args["content"], "content")
            x, y = self._place(args, near=node)
            # The replacement keeps the old node's sensitivity, tags, weight and (by default) kind:
            # the agent cannot declassify a fact by restating it.
            body = {
                "id": str(uuid.uuid4()),
                "content": args["content"],
                "kind": args.get("kind", node.kind),
                "x": x,
                "y": y,
                "weight": node.weight,
                "tags": list(node.tags or []),
                "sensitivity": node.sensitivity,
            }
            return _Planned(
                op={"type": "node.supersede", "id": node_id, "node": body},
                summary=f"Replace {_quote(node.content)} with {_quote(body['content'])}",
                diff={
                    "target": _ref(node),
                    "node": body,
                    "edge": {"source": body["id"], "target": node_id, "relation": "supersedes"},
                    "fields": [{"field": "content", "before": node.content, "after": body["content"]}],
                },
                base_versions=base,
                level=level,
                new_node_id=body["id"],
            )
        raise InvalidOperation(f"unknown tool {name}", field="name")  # pragma: no cover

    def _place(self, args: dict, *, near: Node | None) -> tuple[float, float]:
        x = y = 0.0  # explicit x and y are the wanted point
        if "x" in args and "y" in args:
            pass
        elif near is not None:
            x, y = near.x + PLACE_OFFSET, near.y + 40.0 * self.writes
        else:
            anchor = Node.objects.filter(
                pk__in=list(self.handles.values())[:1], canvas_id=self.canvas_id
            ).first()
            x, y = (
                (anchor.x + PLACE_OFFSET, anchor.y + 60.0 * (self.writes + 1))
                if anchor
                else (0.0, 60.0 * self.writes)
            )
        x, y = float(args.get("x", x)), float(args.get("y", y))
        # the nearest free spot: never on top of a card or of another proposal's ghost card
        return place_agent_node(
            canvas_id=self.canvas_id,
            want=(x, y),
            content=args.get("content", ""),
            weight=args.get("weight", 1.0),
            limit=COORDINATE_LIMIT,
        )


def _quote(text: str, limit: int = 60) -> str:
    line = " ".join((text or "").split())
    return json.dumps(line if len(line) <= limit else line[: limit - 1] + "…", ensure_ascii=False)


def _ref(node: Node) -> dict:
    return {
        "id": str(node.pk),
        "content": node.content,
        "kind": node.kind,
        "version": node.version,
        "sensitivity": node.sensitivity,
    }
