"""validate_file: every check of one scenario file.

Besides the shape of the format (see the drift FORMAT.md), it replays
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
"""

from __future__ import annotations

import json
from pathlib import Path

from .kinds import classify_expected
from .replay import Canvas, Report, apply_op, replay
from .rules import (
    CORRECTION_TAGS,
    FORMAT,
    KINDS,
    KNOWN_TAGS,
    LONG_TURNS,
    MAX_TURN_HITS,
    MIN_PROBE_TURN,
    ROLES,
)
from .text import CJK, contains, est_tokens, is_num, parse_at


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
