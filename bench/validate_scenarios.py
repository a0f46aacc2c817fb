#!/usr/bin/env python3
"""Validate drift scenarios (format "drift-scenario/1").

Plain Python 3, no third-party packages. Usage:

    python bench/validate_scenarios.py [PATH ...] [--strict] [--markdown] [--verbose]

PATH is a scenario file or a folder (every *.json in it is checked); the
default is bench/scenarios next to this script. The exit status is 1 when any
error is found (with --strict, also when any warning is found).

Besides the shape of the format (see the drift FORMAT.md), the script replays
the canvas ops turn by turn and checks, for every probe, the rules that make a
probe fair:

* keys used by ops are defined earlier; supersede/archive target live nodes;
* after_turn is a valid turn index; as_role is owner/editor/viewer;
* forbid strings are not substrings of expect_all strings, and the question
  contains no expected or forbidden string;
* every expected string is stated somewhere in the turns or ops up to the
  probe, and not only in a node the probing role may not see (secret node
  values never reach the model; viewers never see internal nodes);
* no forbidden string sits in legitimately visible text at the probe: a live
  node the role may see, or one of the last --recent turns (default 10);
* warnings for weak probes: expected text repeated in the recent turns (a
  sliding window sees it), short or frequently repeated strings, probes
  earlier than turn 30, expected text only in a far node that no selection
  mechanism (pin, distance, link, question match) would reach, and a stale
  (forbidden) value repeated in the chat at or after the turn that retired it;
* optional fields: a probe's `tags` (a list of strings; tags outside the
  FORMAT.md list are warned about, since a typo splits a pattern in the
  report) and a turn's `at` (an ISO-8601 timestamp, a local extension read by
  drift_bench's replay clock; a time earlier than the previous turn's is
  warned about).

Any size is accepted: long conversations (hundreds of turns, many probes, no
canvas ops) and canvases of 150+ nodes; fewer than 40 turns or 2 probes is
warned about.

It also classifies each probe by the drift kind it exercises and prints a
summary table (--markdown prints it as a Markdown table for the README), the
per-pattern coverage (probes and scenarios per tag) and the share of probed
facts never placed on the canvas (expected strings that no node held, whatever
its status, at the probe).
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from datetime import datetime
from pathlib import Path

FORMAT = "drift-scenario/1"
ROLES = {"owner", "editor", "viewer"}
SENSITIVITIES = {"public", "internal", "secret"}
RELATIONS = {"depends_on", "causes", "conflicts_with", "relates_to"}
NODE_FIELDS = {"key", "content", "x", "y", "weight", "tags", "pinned", "sensitivity"}
UPDATE_FIELDS = {"content", "weight", "tags", "pinned", "sensitivity"}
OP_FIELDS = {
    "add_node": ({"op", "key", "content", "x", "y"}, {"weight", "tags", "pinned", "sensitivity"}),
    "update_node": ({"op", "key"}, UPDATE_FIELDS),
    "move_node": ({"op", "key", "x", "y"}, set()),
    "supersede": ({"op", "old", "new"}, set()),
    "link": ({"op", "source", "target", "relation"}, set()),
    "archive": ({"op", "key"}, set()),
}

# Probe tags named in the drift FORMAT.md (others are allowed, with a warning).
KNOWN_TAGS = {
    "paraphrase",
    "long-message",
    "correction-in-chat",
    "corrected-twice",
    "correction-by-supersede",
    "far-unpinned",
    "busy-canvas",
    "linked",
    "role-viewer",
    "role-editor",
    "distractor",
    "archived",
    "never-placed",  # used by the development sets: the fact was never put on the canvas
}
CORRECTION_TAGS = {"correction-in-chat", "corrected-twice", "correction-by-supersede"}
LONG_TURNS = 300  # a conversation this long counts as "long" in the summary

NEAR = 700.0  # effective distance (distance / weight) counted as "near the viewport"
FAR = 1500.0  # raw distance counted as "far off the viewport"
MIN_PROBE_TURN = 30
MAX_TURN_HITS = 4

# Drift kinds, in the order used in reports.
KINDS = [
    "supersede",
    "far-anchor",
    "linked",
    "question-match",
    "secret-viewer",
    "secret-editor",
    "archived",
    "uncaptured",
]

STOPWORDS = set(
    """the and for are but not you all any can had her was one our out has have
    what when where which who whom why how does did this that these those with
    from into onto over under than then them they their there here been being
    about after again also just only very more most some such own same should
    would could will shall may might must let lets use used using now new old
    its it's we're were your yours ours his she him get got make made need like
    much many each other per via still yet ever never once both either neither
    again what's whats tell told say said know think keep kept go going""".split()
)

CJK = re.compile(r"[\u3400-\u9fff]")
CJK_RUN = re.compile(r"[\u3400-\u9fff]+")
WORD = re.compile(r"[a-z0-9][a-z0-9_.\-]*[a-z0-9]|[a-z0-9]")


def est_tokens(text: str) -> int:
    """Rough token estimate: one per CJK character, one per four other characters."""
    cjk = len(CJK.findall(text))
    return int(cjk + (len(text) - cjk) / 4)


def keywords(text: str) -> set[str]:
    """Keywords for question matching: English words (3+ chars, no stopwords) and Chinese bigrams."""
    low = text.lower()
    out = set()
    for w in WORD.findall(low):
        if len(w) >= 3 and w not in STOPWORDS and not w.isdigit():
            out.add(w[:-1] if w.endswith("s") and len(w) > 4 else w)
    for run in CJK_RUN.findall(text):
        if len(run) == 1:
            continue
        out.update(run[i : i + 2] for i in range(len(run) - 1))
    return out


def parse_at(v):
    """A turn's optional "at" as an aware datetime (naive means UTC), or None if it is not ISO-8601."""
    if not isinstance(v, str) or not v:
        return None
    try:
        t = datetime.fromisoformat(v.replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        return None
    return t if t.tzinfo else t.replace(tzinfo=__import__("datetime").timezone.utc)


def is_num(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def distance(node: dict, viewport: dict) -> float:
    return math.hypot(node["x"] - viewport["x"], node["y"] - viewport["y"])


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


def contains(haystack: str, needle: str) -> bool:
    return needle.lower() in haystack.lower()


def classify_expected(canvas: Canvas, s: str, role: str, viewport: dict, question: str):
    """Return (kind, note) for one expected string; kind None means 'no mechanism'."""
    holders = [k for k, n in canvas.nodes.items() if canvas.visible(k, role) and contains(n["content"], s)]
    if not holders:
        return "uncaptured", None
    qk = keywords(question)
    best = None
    rank = {"near": 0, "far-anchor": 1, "anchor": 1, "linked": 2, "question-match": 3, "distance": 4}
    for k in holders:
        n = canvas.nodes[k]
        d = distance(n, viewport)
        eff = d / n["weight"]
        if n["pinned"]:
            kind = "far-anchor" if d >= FAR else "anchor"
        elif eff <= NEAR:
            kind = "near"
        else:
            kind = None
            for a, b, _ in canvas.edges:
                other = b if a == k else a if b == k else None
                if other is None or not canvas.visible(other, role):
                    continue
                o = canvas.nodes[other]
                if o["pinned"] or distance(o, viewport) / o["weight"] <= NEAR:
                    kind = "linked" if d >= FAR else "distance"
                    break
            if kind is None and (keywords(n["content"]) & qk):
                kind = "question-match" if d >= FAR else "distance"
            if kind is None and d < FAR:
                kind = "distance"
        if kind is not None and (best is None or rank[kind] < rank[best]):
            best = kind
    return best, holders


def validate_file(path: Path, seen_ids: dict, args) -> tuple[Report, dict | None]:
    rep = Report(path.name)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        rep.error(f"cannot read JSON: {exc}")
        return rep, None
    if not isinstance(data, dict):
        rep.error("top level must be an object")
        return rep, None
    if data.get("format") != FORMAT:
        rep.error(f"format must be {FORMAT!r}")
    sid = data.get("id")
    if not isinstance(sid, str) or not sid:
        rep.error("id must be a non-empty string")
    elif sid in seen_ids:
        rep.error(f"id {sid!r} also used by {seen_ids[sid]}")
    else:
        seen_ids[sid] = path.name
    if data.get("lang") not in ("en", "zh"):
        rep.error("lang must be 'en' or 'zh'")
    if not isinstance(data.get("description"), str):
        rep.error("description must be a string")
    extra = set(data) - {"format", "id", "lang", "description", "turns", "probes"}
    if extra:
        rep.warn(f"unknown top-level fields {sorted(extra)}")
    turns = data.get("turns")
    probes = data.get("probes")
    if not isinstance(turns, list) or not turns:
        rep.error("turns must be a non-empty list")
        return rep, None
    if not isinstance(probes, list) or not probes:
        rep.error("probes must be a non-empty list")
        probes = []

    # Turns.
    last_at = None
    for i, t in enumerate(turns):
        if not isinstance(t, dict):
            rep.error(f"turn {i}: must be an object")
            continue
        if t.get("role") not in ("user", "assistant"):
            rep.error(f"turn {i}: role must be 'user' or 'assistant'")
        if not isinstance(t.get("content"), str) or not t["content"].strip():
            rep.error(f"turn {i}: content must be a non-empty string")
            t["content"] = str(t.get("content") or "")
        if "canvas_ops" in t and not isinstance(t["canvas_ops"], list):
            rep.error(f"turn {i}: canvas_ops must be a list")
            t["canvas_ops"] = []
        extra = set(t) - {"role", "content", "canvas_ops", "at"}
        if extra:
            rep.warn(f"turn {i}: unknown fields {sorted(extra)}")
        if "at" in t:
            at_time = parse_at(t["at"])
            if at_time is None:
                rep.error(f"turn {i}: at must be an ISO-8601 timestamp such as 2026-03-02T10:15:00Z")
            else:
                if last_at is not None and at_time < last_at:
                    rep.warn(f"turn {i}: at {t['at']} is earlier than the previous timestamped turn")
                last_at = at_time
        if i > 0 and isinstance(turns[i - 1], dict) and t.get("role") == turns[i - 1].get("role"):
            rep.warn(f"turn {i}: two {t.get('role')} turns in a row")
    if isinstance(turns[0], dict) and turns[0].get("role") != "user":
        rep.warn("turn 0 is not a user turn")
    if len(turns) < 40:
        rep.warn(f"{len(turns)} turns (expected 40 or more)")
    if len(probes) < 2:
        rep.warn(f"{len(probes)} probes (expected 2 or more)")

    full = replay(turns, len(turns) - 1, rep)  # reports op errors once

    # Text of every turn and every op, per turn, for "where is it stated".
    def op_texts(t):
        out = []
        for op in t.get("canvas_ops") or []:
            if isinstance(op, dict):
                body = op.get("new") if op.get("op") == "supersede" else op
                if isinstance(body, dict) and isinstance(body.get("content"), str):
                    out.append(body["content"])
        return out

    turn_text = [t["content"] if isinstance(t, dict) else "" for t in turns]
    stated = [" \n".join([turn_text[i], *op_texts(t)]) for i, t in enumerate(turns) if isinstance(t, dict)]

    probe_rows = []
    kinds_seen: list[str] = []
    uncaptured = False
    # Canvas state after each turn, built incrementally (long conversations: no replay per probe).
    states: dict[int, Canvas] = {}
    wanted = sorted(
        {
            p["after_turn"]
            for p in probes
            if isinstance(p, dict)
            and isinstance(p.get("after_turn"), int)
            and not isinstance(p.get("after_turn"), bool)
            and 0 <= p["after_turn"] < len(turns)
        }
    )
    if wanted:
        import copy

        running = Canvas()
        sink = Report("")
        pos = 0
        for at_turn in wanted:
            for i in range(pos, at_turn + 1):
                for j, op in enumerate(
                    turns[i].get("canvas_ops") or [] if isinstance(turns[i], dict) else []
                ):
                    apply_op(running, op, f"turn {i} op {j}", i, sink)
            pos = at_turn + 1
            states[at_turn] = copy.deepcopy(running)
    # Which strings each node ever held (any status), per turn it was created, for "never placed".
    placed_texts: list[tuple[int, str]] = []
    for i, t in enumerate(turns):
        if isinstance(t, dict):
            for op in t.get("canvas_ops") or []:
                if isinstance(op, dict):
                    body = op.get("new") if op.get("op") == "supersede" else op
                    if (
                        isinstance(body, dict)
                        and isinstance(body.get("content"), str)
                        and op.get("op") in ("add_node", "supersede", "update_node")
                    ):
                        placed_texts.append((i, body["content"]))
    expected_total = expected_unplaced = 0
    for pi, p in enumerate(probes):
        where = f"probe {pi}"
        if not isinstance(p, dict):
            rep.error(f"{where}: must be an object")
            continue
        extra = set(p) - {"after_turn", "viewport", "as_role", "question", "expect_all", "forbid", "tags"}
        if extra:
            rep.warn(f"{where}: unknown fields {sorted(extra)}")
        tags = p.get("tags", [])
        if not isinstance(tags, list) or not all(isinstance(x, str) and x.strip() for x in tags):
            rep.error(f"{where}: tags must be a list of non-empty strings")
            tags = []
        for tag in tags:
            if tag not in KNOWN_TAGS:
                rep.warn(
                    f"{where}: tag {tag!r} is not in the FORMAT.md list (a typo splits a pattern in reports)"
                )
        at = p.get("after_turn")
        if not isinstance(at, int) or isinstance(at, bool) or not 0 <= at < len(turns):
            rep.error(f"{where}: after_turn must be a turn index 0..{len(turns) - 1}")
            continue
        if at < MIN_PROBE_TURN:
            rep.warn(
                f"{where}: after_turn {at} < {MIN_PROBE_TURN}; a sliding window may still see early turns"
            )
        vpt = p.get("viewport")
        if not (
            isinstance(vpt, dict)
            and is_num(vpt.get("x"))
            and is_num(vpt.get("y"))
            and is_num(vpt.get("zoom"))
            and vpt["zoom"] > 0
        ):
            rep.error(f"{where}: viewport needs numeric x, y and zoom > 0")
            continue
        role = p.get("as_role", "editor")
        if role not in ROLES:
            rep.error(f"{where}: as_role must be one of {sorted(ROLES)}")
            continue
        q = p.get("question")
        if not isinstance(q, str) or not q.strip():
            rep.error(f"{where}: question must be a non-empty string")
            continue
        expect = p.get("expect_all")
        forbid = p.get("forbid", [])
        if not isinstance(expect, list) or not all(isinstance(s, str) and s.strip() for s in expect):
            rep.error(f"{where}: expect_all must be a list of non-empty strings")
            continue
        if not isinstance(forbid, list) or not all(isinstance(s, str) and s.strip() for s in forbid):
            rep.error(f"{where}: forbid must be a list of non-empty strings")
            continue
        if not expect:
            rep.warn(f"{where}: expect_all is empty")

        canvas = states.get(at) or replay(turns, at, None)
        if set(tags) & CORRECTION_TAGS and not forbid:
            rep.warn(f"{where}: tagged as a correction but forbids no retired value")
        if "role-viewer" in tags and role != "viewer":
            rep.warn(f"{where}: tagged role-viewer but asked as {role}")
        unplaced_here = 0
        for s in expect:
            expected_total += 1
            if not any(turn <= at and contains(text, s) for turn, text in placed_texts):
                expected_unplaced += 1
                unplaced_here += 1
        recent_lo = max(0, at - args.recent + 1)
        recent = turn_text[recent_lo : at + 1]
        kinds: list[str] = []

        for s in expect + forbid:
            n_cjk = len(CJK.findall(s))
            if (n_cjk == 0 and len(s.strip()) < 3) or (n_cjk > 0 and len(s.strip()) < 2):
                rep.warn(f"{where}: {s!r} is very short; is it distinctive?")
            if contains(q, s):
                rep.error(f"{where}: the question contains {s!r}")

        for s in expect:
            hits = [i for i, txt in enumerate(stated) if contains(txt, s)]
            if not hits:
                rep.error(f"{where}: expected {s!r} is never stated in any turn or op")
                continue
            if min(hits) > at:
                rep.error(f"{where}: expected {s!r} is first stated at turn {min(hits)}, after the probe")
                continue
            if len(hits) > MAX_TURN_HITS:
                rep.warn(f"{where}: expected {s!r} appears in {len(hits)} turns; is it distinctive?")
            if any(contains(txt, s) for txt in recent):
                rep.warn(
                    f"{where}: expected {s!r} appears in the last {args.recent} turns; a sliding window sees it"
                )
            hidden = [
                k
                for k, n in canvas.nodes.items()
                if n["status"] == "active" and not canvas.visible(k, role) and contains(n["content"], s)
            ]
            if hidden:
                rep.error(
                    f"{where}: expected {s!r} is in node(s) {hidden} that {role} may not see / that are secret"
                )
            kind, holders = classify_expected(canvas, s, role, vpt, q)
            if kind == "uncaptured":
                in_ops = any(contains(c, s) for t in turns for c in op_texts(t))
                if in_ops:
                    rep.warn(
                        f"{where}: expected {s!r} is only in superseded/archived/hidden nodes and in chat text"
                    )
                kinds.append("uncaptured")
                uncaptured = True
            elif kind is None:
                rep.warn(
                    f"{where}: expected {s!r} is only in far node(s) {holders}: not pinned, not linked "
                    f"to a near node, no keyword shared with the question"
                )
            elif kind in ("far-anchor", "linked", "question-match"):
                kinds.append(kind)

        for s in forbid:
            for e in expect:
                if contains(e, s):
                    rep.error(f"{where}: forbidden {s!r} is a substring of expected {e!r}")
            for k, n in canvas.nodes.items():
                if canvas.visible(k, role) and contains(n["content"], s):
                    rep.error(f"{where}: forbidden {s!r} is in live node {k!r} that {role} may see")
            for i, txt in enumerate(recent):
                if contains(txt, s):
                    rep.error(
                        f"{where}: forbidden {s!r} is in recent turn {recent_lo + i} (legitimately visible)"
                    )
            holders = [(k, n) for k, n in canvas.nodes.items() if contains(n["content"], s)]
            if not holders:
                if not any(contains(txt, s) for txt in stated[: at + 1]):
                    rep.warn(f"{where}: forbidden {s!r} is never stated before the probe")
                else:
                    kinds.append("supersede")
                    kinds.append("uncaptured")
                    uncaptured = True
                continue
            for k, n in holders:
                if n["status"] in ("superseded", "archived"):
                    since = n.get("retired_turn", at)
                    later = [i for i in range(since, at + 1) if contains(turn_text[i], s)]
                    if later:
                        rep.warn(
                            f"{where}: forbidden {s!r} is repeated in turn(s) {later}, at or after the turn "
                            f"that retired node {k!r}; history keeps the stale value visible"
                        )
                if n["status"] == "superseded":
                    kinds.append("supersede")
                elif n["status"] == "archived":
                    kinds.append("archived")
                elif n["sensitivity"] == "secret":
                    kinds.append("secret-viewer" if role == "viewer" else "secret-editor")
                elif n["sensitivity"] == "internal" and role == "viewer":
                    kinds.append("secret-viewer")

        kinds = [k for k in KINDS if k in kinds]
        kinds_seen.extend(kinds)
        probe_rows.append(
            {
                "after_turn": at,
                "role": role,
                "kinds": kinds,
                "tags": sorted(set(tags)),
                "expected": len(expect),
                "unplaced": unplaced_here,
            }
        )

    if uncaptured and "uncaptured" not in str(data.get("description", "")).lower():
        rep.note("probes rely on facts never placed on the canvas; say 'uncaptured' in the description")

    all_text = "".join(turn_text)
    info = {
        "id": sid,
        "lang": data.get("lang"),
        "turns": len(turns),
        "chars": len(all_text),
        "tokens": est_tokens(all_text),
        "nodes": len(full.nodes),
        "edges": len(full.edges),
        "probes": len(probes),
        "probe_rows": probe_rows,
        "kinds": [k for k in KINDS if k in kinds_seen],
        "description": data.get("description", ""),
        "expected": expected_total,
        "unplaced": expected_unplaced,
        "long": len(turns) >= LONG_TURNS,
    }
    return rep, info


def share(part: int, whole: int) -> str:
    return f"{100.0 * part / whole:.0f} %" if whole else "-"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("paths", nargs="*", help="scenario files or folders (default: bench/scenarios)")
    ap.add_argument("--strict", action="store_true", help="treat warnings as errors")
    ap.add_argument("--markdown", action="store_true", help="print the summary as a Markdown table")
    ap.add_argument("--verbose", action="store_true", help="list warnings and per-probe kinds")
    ap.add_argument(
        "--recent", type=int, default=10, help="turns before a probe counted as recent (default 10)"
    )
    args = ap.parse_args(argv)

    paths = [Path(p) for p in args.paths] or [Path(__file__).resolve().parent / "scenarios"]
    files: list[Path] = []
    for p in paths:
        if p.is_dir():
            files.extend(sorted(p.glob("*.json")))
        elif p.is_file():
            files.append(p)
        else:
            print(f"no such file or folder: {p}", file=sys.stderr)
            return 2
    if not files:
        print("no scenario files found", file=sys.stderr)
        return 2

    seen: dict[str, str] = {}
    infos = []
    n_err = n_warn = 0
    for f in files:
        rep, info = validate_file(f, seen, args)
        n_err += len(rep.errors)
        n_warn += len(rep.warnings)
        if rep.errors or ((rep.warnings or rep.notes) and args.verbose):
            print(f"{f}:")
            for e in rep.errors:
                print(f"  ERROR   {e}")
            if args.verbose:
                for w in rep.warnings:
                    print(f"  warning {w}")
                for n in rep.notes:
                    print(f"  note    {n}")
        elif rep.warnings:
            print(f"{f}: {len(rep.warnings)} warning(s) (--verbose lists them)")
        if info:
            infos.append(info)

    if args.markdown:
        print("| id | lang | drift kinds | turns | ~tokens | nodes | probes | never-placed facts |")
        print("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: |")
        for i in infos:
            kinds = ", ".join(i["kinds"]) or "-"
            print(
                f"| {i['id']} | {i['lang']} | {kinds} | {i['turns']} | {i['tokens']} | {i['nodes']} | {i['probes']} "
                f"| {share(i['unplaced'], i['expected'])} |"
            )
    else:
        print()
        print(
            f"{'id':<34} {'lang':<4} {'turns':>5} {'~tok':>6} {'nodes':>5} {'probes':>6} {'unplaced':>8}  kinds"
        )
        for i in infos:
            print(
                f"{i['id']!s:<34} {i['lang']!s:<4} {i['turns']:>5} {i['tokens']:>6} {i['nodes']:>5} "
                f"{i['probes']:>6} {share(i['unplaced'], i['expected']):>8}  {', '.join(i['kinds']) or '-'}"
            )
            if args.verbose:
                for j, r in enumerate(i["probe_rows"]):
                    print(
                        f"{'':<6}probe {j}: after_turn {r['after_turn']}, {r['role']}: {', '.join(r['kinds']) or 'near/plain'}"
                    )

    print()
    langs = {}
    for i in infos:
        langs[i["lang"]] = langs.get(i["lang"], 0) + 1
    total_probes = sum(i["probes"] for i in infos)
    print(
        f"files: {len(files)}  scenarios: {len(infos)}  ({', '.join(f'{k}: {v}' for k, v in sorted(langs.items(), key=str))})"
        f"  probes: {total_probes}"
    )
    cov = []
    for k in KINDS:
        s = sum(1 for i in infos if k in i["kinds"])
        pr = sum(1 for i in infos for r in i["probe_rows"] if k in r["kinds"])
        cov.append(f"{k}: {s} scenarios/{pr} probes")
    print("coverage: " + "; ".join(cov))
    tag_probes: dict[str, int] = {}
    tag_scenarios: dict[str, int] = {}
    for i in infos:
        seen_here = set()
        for r in i["probe_rows"]:
            for tag in r["tags"] or ["(untagged)"]:
                tag_probes[tag] = tag_probes.get(tag, 0) + 1
                seen_here.add(tag)
        for tag in seen_here:
            tag_scenarios[tag] = tag_scenarios.get(tag, 0) + 1
    print(
        "per-pattern coverage (tags): "
        + (
            "; ".join(f"{t}: {tag_probes[t]} probes/{tag_scenarios[t]} scenarios" for t in sorted(tag_probes))
            or "-"
        )
    )
    missing = sorted(KNOWN_TAGS - set(tag_probes))
    if missing:
        print(f"patterns with no probe: {', '.join(missing)}")
    expected = sum(i["expected"] for i in infos)
    unplaced = sum(i["unplaced"] for i in infos)
    print(
        f"probed facts never placed on the canvas: {unplaced} of {expected} ({share(unplaced, expected)}); "
        f"long conversations ({LONG_TURNS}+ turns): {sum(1 for i in infos if i['long'])}; "
        f"largest canvas: {max((i['nodes'] for i in infos), default=0)} nodes"
    )
    print(f"errors: {n_err}  warnings: {n_warn}")
    if n_err or (args.strict and n_warn):
        print("RESULT: FAIL")
        return 1
    print("RESULT: OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
