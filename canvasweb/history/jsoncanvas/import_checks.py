"""Import checks of one node or edge of a JSON Canvas file: types, limits, our namespace;
problems are collected (not raised) so a rejected file lists all of them."""

from __future__ import annotations

from typing import Any

from canvasweb.canvases.models import NodeKind, Relation, Sensitivity
from canvasweb.canvases.operations import (
    COORDINATE_LIMIT,
    MAX_CONTENT_CHARS,
    MAX_LABEL_CHARS,
    MAX_TAG_CHARS,
    MAX_TAGS,
    MAX_WEIGHT,
    MIN_WEIGHT,
)
from canvasweb.common.json_safety import finite_float

from .format import (
    COLOR_RE,
    COLOR_TAG,
    COMMON_NODE_KEYS,
    EDGE_KEYS,
    EDGE_NS_KEYS,
    ENDS,
    NAMESPACE,
    NODE_NS_KEYS,
    NODE_TYPES,
    SIDES,
    TYPE_KEYS,
    ImportPlan,
)


def report_unknown(plan: ImportPlan, where: str, obj: dict, known: set[str]) -> None:
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


def check_node(raw: dict, where: str, problems: list[str], plan: ImportPlan) -> dict | None:
    before = len(problems)
    node_type = raw.get("type")
    if node_type not in NODE_TYPES:
        problems.append(f"{where}: type must be one of {', '.join(NODE_TYPES)}")
        return None
    report_unknown(plan, where, raw, COMMON_NODE_KEYS | TYPE_KEYS[node_type])
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
            report_unknown(plan, f"{where}.{NAMESPACE}", ns_raw, NODE_NS_KEYS)
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


def check_edge(
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
    report_unknown(plan, where, raw, EDGE_KEYS)
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
            report_unknown(plan, f"{where}.{NAMESPACE}", ns, EDGE_NS_KEYS)
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
