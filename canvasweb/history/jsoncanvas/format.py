"""The JSON Canvas 1.0 format as Canvasweb reads and writes it: keys, limits, colours, the import
result (`ImportPlan`) and its error (`ImportRejected`)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from canvasweb.common.errors import CanvasError

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
