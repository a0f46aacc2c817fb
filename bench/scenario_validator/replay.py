"""The messages of one file's check, and the replay of a scenario's canvas ops turn by turn."""

from __future__ import annotations

from .rules import NODE_FIELDS, OP_FIELDS, RELATIONS, SENSITIVITIES, UPDATE_FIELDS
from .text import is_num


class Report:
    def __init__(self, name: str):
        self.name = name
        self.errors: list[str] = []
        self.warnings: list[str] = []
        self.notes: list[str] = []

    def error(self, msg: str) -> None:
        self.errors.append(msg)

    def warn(self, msg: str) -> None:
        self.warnings.append(msg)

    def note(self, msg: str) -> None:
        self.notes.append(msg)


class Canvas:
    """Replays scenario ops; keeps node state, status and edges."""

    def __init__(self):
        self.nodes: dict[str, dict] = {}
        self.edges: list[tuple[str, str, str]] = []

    def visible(self, key: str, role: str) -> bool:
        """Whether the node's text may legitimately reach the model for this role."""
        n = self.nodes[key]
        if n["status"] != "active":
            return False
        sens = n.get("sensitivity", "public")
        if sens == "secret":
            return False  # secret values never reach the model, whoever asks
        if sens == "internal" and role == "viewer":
            return False
        return True


def check_node_body(body, where: str, rep: Report, *, is_update: bool = False) -> bool:
    ok = True
    if not isinstance(body, dict):
        rep.error(f"{where}: node body must be an object")
        return False
    if not is_update:
        extra = set(body) - NODE_FIELDS - {"op"}
        if extra:
            rep.error(f"{where}: unknown node fields {sorted(extra)}")
        for f in ("key", "content", "x", "y"):
            if f not in body:
                rep.error(f"{where}: missing field {f!r}")
                ok = False
    if "key" in body and (not isinstance(body["key"], str) or not body["key"]):
        rep.error(f"{where}: key must be a non-empty string")
        ok = False
    if "content" in body:
        c = body["content"]
        if not isinstance(c, str) or not c.strip():
            rep.error(f"{where}: content must be a non-empty string")
            ok = False
        elif len(c) > 10000:
            rep.error(f"{where}: content longer than 10,000 characters")
    for f in ("x", "y"):
        if f in body and not is_num(body[f]):
            rep.error(f"{where}: {f} must be a number")
            ok = False
    if "weight" in body and (not is_num(body["weight"]) or not 0.1 <= body["weight"] <= 10):
        rep.error(f"{where}: weight must be a number in 0.1..10")
    if "tags" in body:
        t = body["tags"]
        if not isinstance(t, list) or not all(isinstance(x, str) and x for x in t) or len(t) > 20:
            rep.error(f"{where}: tags must be a list of up to 20 non-empty strings")
    if "pinned" in body and not isinstance(body["pinned"], bool):
        rep.error(f"{where}: pinned must be a boolean")
    if "sensitivity" in body and body["sensitivity"] not in SENSITIVITIES:
        rep.error(f"{where}: sensitivity must be one of {sorted(SENSITIVITIES)}")
    return ok


def new_node(body: dict, turn: int) -> dict:
    return {
        "content": body["content"],
        "x": float(body["x"]),
        "y": float(body["y"]),
        "weight": float(body.get("weight", 1.0)),
        "tags": list(body.get("tags", [])),
        "pinned": bool(body.get("pinned", False)),
        "sensitivity": body.get("sensitivity", "public"),
        "status": "active",
        "turn": turn,
    }


def apply_op(canvas: Canvas, op, where: str, turn: int, rep: Report) -> None:
    if not isinstance(op, dict) or "op" not in op:
        rep.error(f"{where}: op must be an object with an 'op' field")
        return
    kind = op["op"]
    if kind not in OP_FIELDS:
        rep.error(f"{where}: unknown op {kind!r}")
        return
    required, optional = OP_FIELDS[kind]
    missing = required - set(op)
    if missing:
        rep.error(f"{where}: {kind} is missing {sorted(missing)}")
        return
    if kind in ("update_node", "move_node", "supersede", "link", "archive"):
        extra = set(op) - required - optional
        if extra:
            rep.error(f"{where}: {kind} has unknown fields {sorted(extra)}")

    def need(key, label):
        if not isinstance(key, str) or key not in canvas.nodes:
            rep.error(f"{where}: {kind} {label} {key!r} is not defined by an earlier op")
            return None
        return canvas.nodes[key]

    if kind == "add_node":
        if not check_node_body(op, where, rep):
            return
        if op["key"] in canvas.nodes:
            rep.error(f"{where}: key {op['key']!r} defined twice")
            return
        canvas.nodes[op["key"]] = new_node(op, turn)
    elif kind == "update_node":
        n = need(op["key"], "key")
        if n is None:
            return
        check_node_body(op, where, rep, is_update=True)
        if not set(op) & UPDATE_FIELDS:
            rep.warn(f"{where}: update_node changes nothing")
        if n["status"] != "active":
            rep.warn(f"{where}: update_node on a {n['status']} node {op['key']!r}")
        for f in UPDATE_FIELDS & set(op):
            n[f] = float(op[f]) if f == "weight" else op[f]
    elif kind == "move_node":
        n = need(op["key"], "key")
        if n is None:
            return
        if not (is_num(op["x"]) and is_num(op["y"])):
            rep.error(f"{where}: move_node x/y must be numbers")
            return
        if n["status"] != "active":
            rep.warn(f"{where}: move_node on a {n['status']} node {op['key']!r}")
        n["x"], n["y"] = float(op["x"]), float(op["y"])
    elif kind == "supersede":
        old = need(op["old"], "old")
        body = op["new"]
        if not check_node_body(body, where + " (new)", rep):
            return
        if body["key"] in canvas.nodes:
            rep.error(f"{where}: key {body['key']!r} defined twice")
            return
        if old is None:
            return
        if old["status"] != "active":
            rep.error(f"{where}: supersede of a {old['status']} node {op['old']!r}")
        old["status"] = "superseded"
        old["superseded_by"] = body["key"]
        old["retired_turn"] = turn
        canvas.nodes[body["key"]] = new_node(body, turn)
        canvas.nodes[body["key"]]["supersedes"] = op["old"]
    elif kind == "link":
        s = need(op["source"], "source")
        t = need(op["target"], "target")
        if op["relation"] not in RELATIONS:
            rep.error(f"{where}: relation must be one of {sorted(RELATIONS)}")
        if s is None or t is None:
            return
        if op["source"] == op["target"]:
            rep.error(f"{where}: link from a node to itself")
        for n, k in ((s, op["source"]), (t, op["target"])):
            if n["status"] != "active":
                rep.warn(f"{where}: link touches a {n['status']} node {k!r}")
        canvas.edges.append((op["source"], op["target"], op["relation"]))
    elif kind == "archive":
        n = need(op["key"], "key")
        if n is None:
            return
        if n["status"] != "active":
            rep.error(f"{where}: archive of a {n['status']} node {op['key']!r}")
        n["status"] = "archived"
        n["retired_turn"] = turn


def replay(turns: list, upto: int, rep: Report | None) -> Canvas:
    canvas = Canvas()
    sink = rep if rep is not None else Report("")
    for i, t in enumerate(turns[: upto + 1]):
        for j, op in enumerate(t.get("canvas_ops") or []):
            apply_op(canvas, op, f"turn {i} op {j}", i, sink)
    return canvas
