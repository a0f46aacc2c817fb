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

Parts: format.py (keys, limits, ImportPlan, ImportRejected), export.py, import_plan.py (the
whole document), import_checks.py (one node or edge), groups.py (Obsidian groups).
"""

from __future__ import annotations

from .export import export_canvas, filename_for
from .format import NAMESPACE, ImportPlan, ImportRejected
from .import_plan import parse_text, plan_import

__all__ = [
    "NAMESPACE",
    "ImportPlan",
    "ImportRejected",
    "export_canvas",
    "filename_for",
    "parse_text",
    "plan_import",
]
