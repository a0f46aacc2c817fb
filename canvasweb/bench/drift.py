"""Drift benchmark: replay scenarios through the real services and score what each strategy would send.

For every scenario (drift-scenario/1):

* a throwaway canvas is created with `canvases.services.canvas_create`; an
  owner, an editor and a viewer are made members with `member_set`;
* every turn is stored as a chat `Message` (token count included) in one
  `Conversation` owned by the editor;
* the turn's canvas ops are mapped to real op dicts (scenario key -> a
  client-chosen UUID) and applied with `apply_operation` as the editor; ops
  that touch a secret node (or make one) are applied as the owner, because an
  editor may neither create nor see secret nodes;
* at each probe, the context is compiled with `chat.services.compile_for`
  (the code a chat turn uses) for each strategy and budget, as the member with
  the probe's `as_role`;
* `canvas+capture` replays the scenario a second time: after each user
  message (and its canvas ops) the chat's fact capture runs
  (`chat.services._capture_suggestions`, the code behind `chat.started`'s
  suggestions) and each suggestion is accepted with
  `chat.services.suggestion_accept` at a free spot near the working viewport,
  except suggestions whose text is already on the canvas (a person would
  dismiss those; they are dismissed with `suggestion_dismiss`);
* `naive-canvas` is the baseline from the articles: the 15 nodes nearest the
  viewport by distance / weight (`naive_linear_select`: no supersede, archive
  or role filtering), then as many recent messages as fit, then the question.

Each scenario runs inside a transaction that is rolled back, so nothing is
left behind; the command additionally points Django at a temporary SQLite
file (see `common.temporary_sqlite_database`) unless told otherwise.
"""
from __future__ import annotations

import asyncio
import math
import time
import uuid
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction

from canvasweb.canvases import selectors as canvas_selectors
from canvasweb.canvases import services as canvas_services
from canvasweb.canvases.actors import user_actor
from canvasweb.canvases.models import NodeKind
from canvasweb.chat import services as chat_services
from canvasweb.chat.context_inputs import TOKEN_CACHE, canvas_inputs, history_for, viewport_from
from canvasweb.chat.models import Message, MessageRole, MessageSource
from canvasweb.chat.prompts import SYSTEM_PROMPT
from canvasweb.common.errors import CanvasError
from canvasweb.context.render import BLOCK_OPEN
from canvasweb.context.selection import naive_linear_select
from canvasweb.context.summary import SUMMARY_OPEN
from canvasweb.context.tokens import count_tokens, truncate_to_tokens
from canvasweb.context.types import (MESSAGE_OVERHEAD_TOKENS, REPLY_PRIMING_TOKENS, ROLE_LEVEL, SENSITIVITY_LEVEL,
                                     BudgetConfigError, NodeData, SelectionConfig)

from .common import Progress, machine_info, mean, percentile, rnd, started_at
from .scenarios import Scenario

REPORT_FORMAT = "drift-bench-report/1"
STRATEGIES = ("full", "window", "summary", "canvas", "canvas+capture", "naive-canvas")
COMPILER_STRATEGIES = ("full", "window", "summary", "canvas")
DEFAULT_BUDGETS = (1000, 2000, 4000)
# `full` sends the whole history: it is compiled once per probe with a budget
# that never binds, and its numbers are repeated on every budget row.
FULL_BUDGET = 1_000_000
NAIVE_K = 15
NAIVE_CANVAS_SHARE = 0.6  # at most this share of what is left after system + question
USERNAMES = {"owner": "drift-bench-owner", "editor": "drift-bench-editor", "viewer": "drift-bench-viewer"}
_KIND_ALIASES = {"constraint": "requirement", "rule": "requirement", "规则": "requirement", "需求": "requirement",
                 "goal": "requirement", "目标": "requirement", "credential": "config", "凭据": "config",
                 "配置": "config", "proposal": "decision"}
TARGET_BUDGETS = (1000, 2000)


# --------------------------------------------------------------------------- replay
def node_kind_for(tags: Sequence[str]) -> str:
    kinds = set(NodeKind.values)
    for tag in tags:
        if tag in kinds:
            return tag
        if tag in _KIND_ALIASES:
            return _KIND_ALIASES[tag]
    return NodeKind.FACT.value


def _norm(text: str) -> str:
    return " ".join(text.lower().split())


def _squash(text: str) -> str:
    """Lower case without any whitespace: "2.5 %" and "2.5%" compare equal."""
    return "".join(text.lower().split())


def bench_users() -> dict[str, Any]:
    """One user per role (unusable passwords: nobody logs in; nothing to hash)."""
    User = get_user_model()
    users = {}
    for role, name in USERNAMES.items():
        user = User.objects.filter(username=name).first()
        if user is None:
            user = User.objects.create_user(username=name, password=None)
        users[role] = user
    return users


class CanvasReplay:
    """One scenario replayed on a fresh canvas through the write path (call inside a transaction)."""

    def __init__(self, scenario: Scenario, *, users: dict[str, Any], capture: bool) -> None:
        self.scenario = scenario
        self.capture = capture
        self.users = users
        self.owner, self.editor, self.viewer = users["owner"], users["editor"], users["viewer"]
        mode = "capture" if capture else "plain"
        self.canvas = canvas_services.canvas_create(user=self.owner, name=f"drift {mode}: {scenario.id}"[:200])
        owner = user_actor(self.owner)
        canvas_services.member_set(actor=owner, canvas_id=self.canvas.pk, username=self.editor.username,
                                   role="editor")
        canvas_services.member_set(actor=owner, canvas_id=self.canvas.pk, username=self.viewer.username,
                                   role="viewer")
        self.conversation = chat_services.conversation_create(user=self.editor, canvas_id=self.canvas.pk,
                                                              title=scenario.id[:200])
        self.ids: dict[str, uuid.UUID] = {}
        self.secret_keys: set[str] = set()
        # Nodes that an accepted suggestion superseded: old id -> new id.
        self.replaced: dict[uuid.UUID, uuid.UUID] = {}
        self.op_errors: list[dict[str, Any]] = []
        self.ops_applied = 0
        self.ops_as_owner = 0
        self.capture_stats: Counter[str] = Counter()
        self.capture_log: list[dict] = []
        self._spot = 0

    @property
    def canvas_id(self) -> int:
        return self.canvas.pk

    def user_for(self, role: str):
        return self.users[role]

    # ----------------------------------------------------------------- turns
    def play_turn(self, index: int, turn: dict, *, viewport: dict) -> None:
        user_turn = turn["role"] == "user"
        message = Message.objects.create(
            conversation=self.conversation, role=MessageRole.USER if user_turn else MessageRole.ASSISTANT,
            source=MessageSource.USER_INPUT if user_turn else MessageSource.ASSISTANT_REPLY,
            content=turn["content"], token_count=count_tokens(turn["content"], encoding=TOKEN_CACHE.encoding))
        for op in turn.get("canvas_ops") or ():
            self._apply_scenario_op(index, op)
        if self.capture and user_turn:
            self._capture(index, message, viewport=viewport)

    # ---------------------------------------------------------- scenario ops
    def _head(self, key: str) -> uuid.UUID:
        node_id = self.ids[key]
        seen = set()
        while node_id in self.replaced and node_id not in seen:
            seen.add(node_id)
            node_id = self.replaced[node_id]
        return node_id

    def _body(self, spec: dict) -> dict:
        node_id = uuid.uuid4()
        self.ids[spec["key"]] = node_id
        tags = list(spec.get("tags") or [])
        sensitivity = spec.get("sensitivity", "public")
        if sensitivity == "secret":
            self.secret_keys.add(spec["key"])
        return {"id": str(node_id), "content": spec["content"], "kind": node_kind_for(tags), "x": float(spec["x"]),
                "y": float(spec["y"]), "weight": float(spec.get("weight", 1.0)), "tags": tags,
                "pinned": bool(spec.get("pinned", False)), "sensitivity": sensitivity}

    def _map_op(self, op: dict) -> tuple[dict, bool]:
        """(op dict for apply_operation, apply as owner?)"""
        kind = op["op"]
        if kind == "add_node":
            body = self._body(op)
            return {"type": "node.create", "node": body}, body["sensitivity"] == "secret"
        if kind == "update_node":
            fields = {k: op[k] for k in ("content", "weight", "tags", "pinned", "sensitivity") if k in op}
            secret = op["key"] in self.secret_keys or fields.get("sensitivity") == "secret"
            if "sensitivity" in fields:
                (self.secret_keys.add if fields["sensitivity"] == "secret" else self.secret_keys.discard)(op["key"])
            return {"type": "node.update", "id": str(self._head(op["key"])), "fields": fields}, secret
        if kind == "move_node":
            return ({"type": "node.move", "id": str(self._head(op["key"])), "x": float(op["x"]), "y": float(op["y"])},
                    op["key"] in self.secret_keys)
        if kind == "supersede":
            old = self._head(op["old"])
            secret = op["old"] in self.secret_keys
            body = self._body(op["new"])
            return {"type": "node.supersede", "id": str(old), "node": body}, secret or body["sensitivity"] == "secret"
        if kind == "link":
            edge = {"id": str(uuid.uuid4()), "source": str(self._head(op["source"])),
                    "target": str(self._head(op["target"])), "relation": op.get("relation", "relates_to")}
            return {"type": "edge.create", "edge": edge}, bool({op["source"], op["target"]} & self.secret_keys)
        if kind == "archive":
            return {"type": "node.archive", "id": str(self._head(op["key"]))}, op["key"] in self.secret_keys
        raise ValueError(f"unknown op {kind!r}")

    def _apply_scenario_op(self, index: int, op: dict) -> None:
        try:
            raw, as_owner = self._map_op(op)
        except KeyError as exc:
            self.op_errors.append({"turn": index, "op": op.get("op"), "error": f"unknown key {exc}"})
            return
        actor = user_actor(self.owner if as_owner else self.editor)
        try:
            canvas_services.apply_operation(actor=actor, canvas_id=self.canvas_id, op=raw)
        except CanvasError as exc:
            self.op_errors.append({"turn": index, "op": op.get("op"), "error": f"{exc.code}: {exc.message}"})
            return
        self.ops_applied += 1
        self.ops_as_owner += int(as_owner)

    # --------------------------------------------------------------- capture
    def _capture(self, index: int, message: Message, *, viewport: dict) -> None:
        suggestions = chat_services._capture_suggestions(conversation=self.conversation, message=message,
                                                         role="editor")
        if not suggestions:
            return
        nodes, _, _ = canvas_inputs(canvas_id=self.canvas_id)
        # What the editor sees on the canvas right now (secret nodes are hidden from editors).
        on_canvas = [_norm(n.content) for n in nodes
                     if not n.superseded_by and not n.archived and n.sensitivity != "secret"]
        for s in suggestions:
            self.capture_stats["suggested"] += 1
            text, value = _norm(s["content"]), _squash(s.get("value") or "")
            entry = {"turn": index, "content": s["content"][:160], "value": s.get("value") or None,
                     "supersedes": bool(s.get("supersede_node_id"))}
            self.capture_log.append(entry)
            # A person dismisses a suggestion that is already on the canvas (the same sentence, or the same
            # value of 3+ characters in a node they can see), unless it replaces a node that still holds an
            # older value: then accepting it is how the stale node gets superseded.
            duplicate = any(text in c or (len(value) >= 3 and value in _squash(c)) for c in on_canvas)
            if duplicate and not s.get("supersede_node_id"):
                chat_services.suggestion_dismiss(user=self.editor, suggestion_id=s["id"])
                self.capture_stats["dismissed_already_on_canvas"] += 1
                entry["decision"] = "dismissed: already on the canvas"
                continue
            x, y = self._free_spot(viewport, nodes)
            try:
                result = chat_services.suggestion_accept(user=self.editor, suggestion_id=s["id"], x=x, y=y)
            except CanvasError as exc:
                self.capture_stats["accept_errors"] += 1
                self.op_errors.append({"turn": index, "op": "suggestion_accept",
                                       "error": f"{exc.code}: {exc.message}"})
                entry["decision"] = f"error: {exc.code}"
                if "already superseded" not in exc.message:
                    continue
                # Two suggestions of one message may target the same node; after the first one superseded
                # it, the person adds the second as a new node instead.
                try:
                    result = chat_services.suggestion_accept(user=self.editor, suggestion_id=s["id"], x=x, y=y,
                                                             supersede=False)
                except CanvasError:
                    continue
                self.capture_stats["accepted_as_new_after_conflict"] += 1
                entry["decision"] += ", then accepted as a new node"
                s = {**s, "supersede_node_id": None}
            self.capture_stats["accepted"] += 1
            entry.setdefault("decision", "accepted")
            created = result["suggestion"]["created_node_id"]
            if s.get("supersede_node_id") and created:
                self.capture_stats["accepted_superseding"] += 1
                entry["decision"] = "accepted, superseding a node"
                self.replaced[uuid.UUID(s["supersede_node_id"])] = uuid.UUID(created)
            on_canvas.append(text)
            nodes = nodes + (NodeData(id=created or "", content=s["content"], x=x, y=y),)

    def _free_spot(self, viewport: dict, nodes: Sequence[NodeData]) -> tuple[float, float]:
        """Next free point on a golden-angle spiral around the working viewport (≥ 60 units from any node)."""
        vx, vy = float(viewport.get("x", 0.0)), float(viewport.get("y", 0.0))
        live = [(n.x, n.y) for n in nodes if not n.superseded_by and not n.archived]
        for k in range(self._spot, self._spot + 5000):
            r = 140.0 + 45.0 * math.sqrt(k)
            a = k * 2.399963229728653
            x, y = round(vx + r * math.cos(a), 1), round(vy + r * math.sin(a), 1)
            if all(math.hypot(x - nx, y - ny) >= 60.0 for nx, ny in live):
                self._spot = k + 1
                return x, y
        self._spot += 1
        return vx, vy


# --------------------------------------------------------------------------- scoring
@dataclass
class ProbeMeta:
    probe_id: str
    scenario: str
    lang: str
    index: int
    after_turn: int
    role: str
    question: str
    viewport: dict
    expect_all: list[str]
    forbid: list[str]
    unplaced_expected: list[str] = field(default_factory=list)
    unplaced_forbid: list[str] = field(default_factory=list)
    leak_strings: list[str] = field(default_factory=list)  # forbid strings held by nodes above the role's level

    def to_dict(self) -> dict:
        return dict(self.__dict__)


def message_text(messages: Sequence[dict]) -> str:
    return "\n".join(str(m.get("content") or "") for m in messages)


def layer_of(i: int, message: dict, count: int) -> str:
    if i == 0 and message.get("role") == "system":
        return "system"
    if i == count - 1:
        return "question"
    content = str(message.get("content") or "")
    if content.startswith(BLOCK_OPEN):
        return "canvas"
    if content.startswith(SUMMARY_OPEN):
        return "summary"
    if content.startswith("Canvas notes (naive"):
        return "canvas"
    return "history"


def score(meta: ProbeMeta, text: str) -> dict[str, Any]:
    low = text.lower()
    missing = [s for s in meta.expect_all if s.lower() not in low]
    found = [s for s in meta.forbid if s.lower() in low]
    return {
        "recall_hit": not missing,
        "missing": missing,
        "forbid_found": found,
        "stale_found": [s for s in found if s not in meta.leak_strings],
        "leak_found": [s for s in found if s in meta.leak_strings],
        "unplaced_missing": [s for s in meta.unplaced_expected if s in missing],
        "unplaced_forbid_found": [s for s in meta.unplaced_forbid if s in found],
    }


def classify_probe(meta: ProbeMeta, nodes: Sequence[NodeData]) -> None:
    """Never-placed strings (on no node at all at probe time) and leak strings (on a node the role may not see)."""
    contents = [(n.content.lower(), n.sensitivity) for n in nodes]
    level = ROLE_LEVEL[meta.role]
    meta.unplaced_expected = [s for s in meta.expect_all if not any(s.lower() in c for c, _ in contents)]
    meta.unplaced_forbid = [s for s in meta.forbid if not any(s.lower() in c for c, _ in contents)]
    meta.leak_strings = [s for s in meta.forbid
                         if any(s.lower() in c and SENSITIVITY_LEVEL[sens] > level for c, sens in contents)]


def diagnose(*, meta: ProbeMeta, compiled, nodes: Sequence[NodeData], result: dict) -> list[str]:
    """Why a canvas-strategy probe missed a string or sent a forbidden one, from the compile report."""
    report = compiled.report
    included = {n.node_id: n for n in report.included_nodes}
    excluded: dict[str, list] = {}
    for n in report.excluded_nodes:
        excluded.setdefault(n.node_id, []).append(n)
    vp = viewport_from(meta.viewport)
    radius = SelectionConfig().radius_factor * vp.half_diagonal
    level = ROLE_LEVEL[meta.role]
    reasons: list[str] = []
    for s in result["missing"]:
        holders = [n for n in nodes if s.lower() in n.content.lower()]
        if not holders:
            reasons.append(f"missing {s!r}: on no node; not in the recent window or the summary")
            continue
        for n in holders:
            dist = math.hypot(n.x - vp.x, n.y - vp.y)
            where = (f"node {n.id[:8]} ({'pinned, ' if n.pinned else ''}{n.sensitivity}, weight {n.weight:g}, "
                     f"distance {dist:.0f}, effective {dist / max(n.weight, 0.05):.0f} vs radius {radius:.0f})")
            if n.superseded_by:
                why = "superseded (expected string only on a retired node)"
            elif n.archived:
                why = "archived"
            elif SENSITIVITY_LEVEL[n.sensitivity] > level:
                why = f"not visible to a {meta.role}"
            elif n.id in included:
                inc = included[n.id]
                why = f"included as {inc.reason} ({inc.tokens} tokens{', placeholder' if inc.placeholder else ''})"
                cut = [t for t in report.truncations if t.item_id == n.id]
                if cut:
                    why += f", cut from {cut[0].original_tokens} to {cut[0].kept_tokens} tokens"
            elif n.id in excluded:
                why = "excluded: " + "; ".join(f"{e.reason} {e.detail}".strip() for e in excluded[n.id])
            else:
                why = "not selected (outside the radius, not pinned, not linked, no question match)"
            reasons.append(f"missing {s!r}: {where}: {why}")
    messages = compiled.messages
    for s in result["forbid_found"]:
        layers = sorted({layer_of(i, m, len(messages)) for i, m in enumerate(messages)
                         if s.lower() in str(m.get("content") or "").lower()})
        reasons.append(f"forbidden {s!r} sent in: {', '.join(layers)}")
    return reasons


# --------------------------------------------------------------------------- naive canvas
@dataclass
class NaiveCompiled:
    messages: list[dict]
    total_tokens: int
    compile_ms: float


def naive_canvas_compile(*, nodes: Sequence[NodeData], history: Sequence, question: str, viewport: dict,
                         budget: int) -> NaiveCompiled:
    """The articles' naive canvas: nearest 15 by distance / weight, no filtering, no masking, then recent turns."""
    t0 = time.perf_counter()
    enc = TOKEN_CACHE.encoding

    def cost(text: str) -> int:
        return count_tokens(text, encoding=enc) + MESSAGE_OVERHEAD_TOKENS

    picked = naive_linear_select(nodes=list(nodes), viewport=viewport_from(viewport), k=NAIVE_K)
    fixed = cost(SYSTEM_PROMPT) + cost(question) + REPLY_PRIMING_TOKENS
    avail = max(0, budget - fixed)
    block = "Canvas notes (naive: the nearest nodes):\n" + "\n".join(f"- {n.content}" for n in picked)
    cap = int(avail * NAIVE_CANVAS_SHARE)
    if cost(block) > cap:
        block = truncate_to_tokens(block, max_tokens=max(0, cap - MESSAGE_OVERHEAD_TOKENS), encoding=enc)
    block_cost = cost(block) if block else 0
    left = avail - block_cost
    window: list = []
    for m in reversed(list(history)):
        c = cost(m.content)
        if c > left:
            break
        window.append(m)
        left -= c
    window.reverse()
    messages = [{"role": "system", "content": SYSTEM_PROMPT}]
    if block:
        messages.append({"role": "user", "content": block})
    messages += [{"role": "user" if m.role == "tool" else m.role, "content": m.content} for m in window]
    messages.append({"role": "user", "content": question})
    total = sum(cost(m["content"]) for m in messages) + REPLY_PRIMING_TOKENS
    return NaiveCompiled(messages=messages, total_tokens=total, compile_ms=(time.perf_counter() - t0) * 1000)


# --------------------------------------------------------------------------- the run
@dataclass
class DriftOptions:
    budgets: list[int]
    strategies: list[str]
    model: bool = False
    progress: bool = True
    dump_prompts: Path | None = None
    model_concurrency: int = 4


@dataclass
class DriftRun:
    options: DriftOptions
    metas: list[ProbeMeta] = field(default_factory=list)
    results: list[dict] = field(default_factory=list)
    scenarios: list[dict] = field(default_factory=list)
    model_jobs: list[tuple[dict, list[dict]]] = field(default_factory=list)
    model_info: dict = field(default_factory=dict)
    full_tokens: dict = field(default_factory=dict)  # probe_id -> tokens of `full` (the share reference)


def _probe_viewport(scenario: Scenario, turn: int) -> dict:
    """The working viewport at a turn: that of the next probe (or the last one)."""
    upcoming = sorted((p for p in scenario.probes if p["after_turn"] >= turn), key=lambda p: p["after_turn"])
    probe = upcoming[0] if upcoming else scenario.probes[-1]
    return dict(probe.get("viewport") or {"x": 0, "y": 0, "zoom": 1})


def _meta(scenario: Scenario, index: int, probe: dict) -> ProbeMeta:
    return ProbeMeta(
        probe_id=f"{scenario.id}#{index}", scenario=scenario.id, lang=scenario.lang, index=index,
        after_turn=probe["after_turn"], role=probe.get("as_role", "editor"), question=probe["question"],
        viewport=dict(probe.get("viewport") or {"x": 0, "y": 0, "zoom": 1}),
        expect_all=list(probe.get("expect_all", [])), forbid=list(probe.get("forbid", [])))


def _record(run: DriftRun, *, meta: ProbeMeta, strategy: str, budget: int | None, messages: list[dict],
            tokens: int, compile_ms: float, wall_ms: float, compiled=None, nodes=(), layer_tokens=None,
            error: str | None = None) -> dict:
    result = {"probe_id": meta.probe_id, "scenario": meta.scenario, "strategy": strategy, "budget": budget,
              "tokens": tokens, "compile_ms": round(compile_ms, 3), "wall_ms": round(wall_ms, 3),
              "layer_tokens": layer_tokens or {}, "error": error}
    result.update(score(meta, message_text(messages)) if not error else {
        "recall_hit": False, "missing": list(meta.expect_all), "forbid_found": [], "stale_found": [],
        "leak_found": [], "unplaced_missing": list(meta.unplaced_expected), "unplaced_forbid_found": []})
    if compiled is not None and strategy in ("canvas", "canvas+capture") and (result["missing"]
                                                                            or result["forbid_found"]):
        result["diagnosis"] = diagnose(meta=meta, compiled=compiled, nodes=nodes, result=result)
    run.results.append(result)
    if run.options.model and not error:
        run.model_jobs.append((result, messages))
    if run.options.dump_prompts is not None:
        name = f"{meta.probe_id.replace('#', '-')}.{strategy}.{budget or 'all'}.txt"
        path = run.options.dump_prompts / name
        path.write_text("\n\n".join(f"### {m['role']}\n{m['content']}" for m in messages), encoding="utf-8")
    return result


def _compile_probe(run: DriftRun, replay: CanvasReplay, meta: ProbeMeta, *, strategies: Sequence[str],
                   label: Callable[[str], str] = lambda s: s) -> None:
    user = replay.user_for(meta.role)
    _, role = canvas_selectors.canvas_for_member(user=user, canvas_id=replay.canvas_id)
    nodes, _, _ = canvas_inputs(canvas_id=replay.canvas_id)
    for strategy in strategies:
        if strategy == "naive-canvas":
            history = history_for(conversation=replay.conversation)
            for budget in run.options.budgets:
                t = time.perf_counter()
                nc = naive_canvas_compile(nodes=nodes, history=history, question=meta.question,
                                          viewport=meta.viewport, budget=budget)
                wall = (time.perf_counter() - t) * 1000
                _record(run, meta=meta, strategy="naive-canvas", budget=budget, messages=nc.messages,
                        tokens=nc.total_tokens, compile_ms=nc.compile_ms, wall_ms=wall)
            continue
        budgets = [None] if strategy == "full" else run.options.budgets
        for budget in budgets:
            t = time.perf_counter()
            try:
                compiled = chat_services.compile_for(
                    canvas_id=replay.canvas_id, role=role, question=meta.question, viewport=meta.viewport,
                    conversation=replay.conversation, strategy=strategy, budget=budget or FULL_BUDGET)
            except BudgetConfigError as exc:
                _record(run, meta=meta, strategy=label(strategy), budget=budget, messages=[], tokens=0,
                        compile_ms=0.0, wall_ms=0.0, error=f"budget: {exc}")
                continue
            wall = (time.perf_counter() - t) * 1000
            report = compiled.report
            _record(run, meta=meta, strategy=label(strategy), budget=budget, messages=compiled.messages,
                    tokens=report.total_tokens, compile_ms=report.timings_ms.get("total", wall), wall_ms=wall,
                    compiled=compiled, nodes=nodes, layer_tokens=report.layer_tokens)


def _replay(run: DriftRun, scenario: Scenario, *, capture: bool, strategies: Sequence[str],
            metas: dict[int, ProbeMeta], progress: Progress) -> dict:
    users = bench_users()
    replay = CanvasReplay(scenario, users=users, capture=capture)
    by_turn: dict[int, list[int]] = {}
    for i, probe in enumerate(scenario.probes):
        by_turn.setdefault(probe["after_turn"], []).append(i)
    last = max(by_turn)
    for t, turn in enumerate(scenario.turns[: last + 1]):
        replay.play_turn(t, turn, viewport=_probe_viewport(scenario, t))
        for i in by_turn.get(t, ()):
            meta = metas[i]
            if not capture:
                nodes, _, _ = canvas_inputs(canvas_id=replay.canvas_id)
                classify_probe(meta, nodes)
            _compile_probe(run, replay, meta, strategies=strategies,
                           label=(lambda s: "canvas+capture") if capture else (lambda s: s))
            progress.advance(note=meta.probe_id)
    history_tokens = sum(count_tokens(t["content"], encoding=TOKEN_CACHE.encoding) for t in scenario.turns)
    nodes, edges, _ = canvas_inputs(canvas_id=replay.canvas_id)
    return {"ops_applied": replay.ops_applied, "ops_as_owner": replay.ops_as_owner, "op_errors": replay.op_errors,
            "capture": dict(replay.capture_stats), "capture_log": replay.capture_log,
            "history_tokens": history_tokens, "nodes": len(nodes), "edges": len(edges)}


def run_drift(scenarios: Sequence[Scenario], options: DriftOptions) -> DriftRun:
    """Replay every scenario (each inside a rolled-back transaction) and compile every probe."""
    run = DriftRun(options=options)
    want = set(options.strategies)
    plain = [s for s in ("full", "window", "summary", "canvas", "naive-canvas") if s in want or s == "full"]
    passes = sum(len(s.probes) for s in scenarios) * (1 + int("canvas+capture" in want))
    progress = Progress(passes, label="drift", enabled=options.progress)
    if options.dump_prompts is not None:
        options.dump_prompts.mkdir(parents=True, exist_ok=True)
    for scenario in scenarios:
        metas = {i: _meta(scenario, i, p) for i, p in enumerate(scenario.probes)}
        info: dict[str, Any] = {"id": scenario.id, "path": scenario.path, "lang": scenario.lang,
                                "turns": len(scenario.turns), "probes": len(scenario.probes)}
        with transaction.atomic():
            info.update(_replay(run, scenario, capture=False, strategies=plain, metas=metas, progress=progress))
            transaction.set_rollback(True)
        if "canvas+capture" in want:
            with transaction.atomic():
                cap = _replay(run, scenario, capture=True, strategies=["canvas"], metas=metas, progress=progress)
                transaction.set_rollback(True)
            info["capture"] = cap["capture"]
            info["capture_log"] = cap["capture_log"]
            info["capture_op_errors"] = cap["op_errors"]
            info["capture_nodes"] = cap["nodes"]
        run.metas.extend(metas[i] for i in sorted(metas))
        run.scenarios.append(info)
    progress.close()
    # `full` is always compiled (it is the token reference); keep its rows only if asked for.
    if "full" not in want:
        run.full_tokens = {r["probe_id"]: r["tokens"] for r in run.results if r["strategy"] == "full"}
        run.results = [r for r in run.results if r["strategy"] != "full"]
        run.model_jobs = [(r, m) for r, m in run.model_jobs if r["strategy"] != "full"]
    return run


# --------------------------------------------------------------------------- model answers
def ask_model(run: DriftRun, *, stderr=None) -> None:
    """Send each compiled prompt to the configured model and score its answer (same matching rules)."""
    from canvasweb.chat.llm import ModelConfig, ModelError, ModelNotConfigured, stream_chat

    config = ModelConfig.from_settings()
    if not config.configured:
        run.model_info = {"requested": True, "configured": False,
                          "skipped": ModelNotConfigured.message}
        return
    run.model_info = {"requested": True, "configured": True, "model": config.model, "base_url": config.base_url}
    metas = {m.probe_id: m for m in run.metas}
    progress = Progress(len(run.model_jobs), label="model", enabled=run.options.progress, stream=stderr)

    async def one(sem: asyncio.Semaphore, result: dict, messages: list[dict]) -> None:
        async with sem:
            parts: list[str] = []
            t = time.perf_counter()
            try:
                async for event in stream_chat(config, messages=messages):
                    if event.kind == "delta":
                        parts.append(event.text)
                error = None
            except ModelError as exc:
                error = exc.message
            answer = "".join(parts)
            s = score(metas[result["probe_id"]], answer)
            result["model"] = {"answer": answer[:2000], "error": error, "latency_ms": round(
                (time.perf_counter() - t) * 1000), "recall_hit": (not error) and s["recall_hit"],
                "missing": s["missing"], "forbid_found": s["forbid_found"]}
            progress.advance(note=result["probe_id"])

    async def main() -> None:
        sem = asyncio.Semaphore(max(1, run.options.model_concurrency))
        await asyncio.gather(*(one(sem, r, m) for r, m in run.model_jobs))

    asyncio.run(main())
    progress.close()


# --------------------------------------------------------------------------- aggregation
def _rate(flags: Sequence[bool]) -> float | None:
    return (sum(1 for f in flags if f) / len(flags)) if flags else None


def aggregate(run: DriftRun, *, metas: Sequence[ProbeMeta] | None = None) -> list[dict]:
    """One row per strategy x budget (full: the same numbers on every budget row)."""
    metas = list(metas if metas is not None else run.metas)
    ids = {m.probe_id for m in metas}
    by_id = {m.probe_id: m for m in metas}
    full_tokens = dict(run.full_tokens)
    full_tokens.update({r["probe_id"]: r["tokens"] for r in run.results if r["strategy"] == "full"})
    rows = []
    for strategy in [s for s in STRATEGIES if s in run.options.strategies]:
        for budget in run.options.budgets:
            want_budget = None if strategy == "full" else budget
            rs = [r for r in run.results if r["strategy"] == strategy and r["budget"] == want_budget
                  and r["probe_id"] in ids]
            if not rs:
                continue
            forbid_rs = [r for r in rs if by_id[r["probe_id"]].forbid]
            unplaced_rs = [r for r in rs if by_id[r["probe_id"]].unplaced_expected]
            placed_rs = [r for r in rs if not by_id[r["probe_id"]].unplaced_expected]
            unplaced_forbid_rs = [r for r in rs if by_id[r["probe_id"]].unplaced_forbid]
            unplaced_facts = sum(len(by_id[r["probe_id"]].unplaced_expected) for r in rs)
            unplaced_missing = sum(len(r["unplaced_missing"]) for r in rs)
            tokens = [r["tokens"] for r in rs]
            ref = sum(full_tokens.get(r["probe_id"], 0) for r in rs)
            row = {
                "strategy": strategy, "budget": budget, "budget_applies": strategy != "full", "probes": len(rs),
                "recall": rnd(_rate([r["recall_hit"] for r in rs]), 4),
                "placed_probes": len(placed_rs),
                "recall_placed": rnd(_rate([r["recall_hit"] for r in placed_rs]), 4),
                "stale_leak_rate": rnd(_rate([bool(r["forbid_found"]) for r in rs]), 4),
                "stale_rate": rnd(_rate([bool(r["stale_found"]) for r in rs]), 4),
                "leak_rate": rnd(_rate([bool(r["leak_found"]) for r in rs]), 4),
                "probes_with_forbid": len(forbid_rs),
                "stale_leak_rate_of_forbid_probes": rnd(_rate([bool(r["forbid_found"]) for r in forbid_rs]), 4),
                "unplaced_probes": len(unplaced_rs),
                "unplaced_recall": rnd(_rate([not r["unplaced_missing"] for r in unplaced_rs]), 4),
                "unplaced_facts": unplaced_facts,
                "unplaced_fact_recall": rnd((unplaced_facts - unplaced_missing) / unplaced_facts, 4)
                if unplaced_facts else None,
                "unplaced_forbid_probes": len(unplaced_forbid_rs),
                "unplaced_stale_leak_rate": rnd(_rate([bool(r["unplaced_forbid_found"]) for r in unplaced_forbid_rs]),
                                                4),
                "tokens_mean": rnd(mean(tokens), 1),
                "tokens_p95": percentile(tokens, 0.95),
                "tokens_share_of_full": rnd(sum(tokens) / ref, 4) if ref else None,
                "compile_ms_mean": rnd(mean([r["compile_ms"] for r in rs]), 3),
                "wall_ms_mean": rnd(mean([r["wall_ms"] for r in rs]), 3),
                "errors": sum(1 for r in rs if r.get("error")),
            }
            answered = [r["model"] for r in rs if "model" in r]
            if answered:
                row["model_answers"] = len(answered)
                row["model_errors"] = sum(1 for a in answered if a["error"])
                row["model_recall"] = rnd(_rate([a["recall_hit"] for a in answered]), 4)
                row["model_stale_leak_rate"] = rnd(_rate([bool(a["forbid_found"]) for a in answered]), 4)
            rows.append(row)
    return rows


def targets(rows: Sequence[dict]) -> list[dict]:
    out = []

    def row(strategy: str, budget: int) -> dict | None:
        return next((r for r in rows if r["strategy"] == strategy and r["budget"] == budget), None)

    for budget in TARGET_BUDGETS:
        r = row("canvas", budget)
        if r:
            out.append({"name": f"canvas recall @ {budget}", "value": r["recall"], "target": ">= 0.99",
                        "met": r["recall"] is not None and r["recall"] >= 0.99})
            out.append({"name": f"canvas stale+leak @ {budget}", "value": r["stale_leak_rate"], "target": "== 0",
                        "met": r["stale_leak_rate"] == 0})
            if r["recall_placed"] is not None and r["placed_probes"] < r["probes"]:
                out.append({"name": f"canvas recall @ {budget}, probes whose facts are all on the canvas",
                            "value": r["recall_placed"], "target": ">= 0.99 (informational)",
                            "met": r["recall_placed"] >= 0.99})
        r = row("canvas+capture", budget)
        if r and r["unplaced_fact_recall"] is not None:
            out.append({"name": f"canvas+capture never-placed facts recovered @ {budget}",
                        "value": r["unplaced_fact_recall"], "target": ">= 0.90",
                        "met": r["unplaced_fact_recall"] >= 0.90})
    return out


def build_report(run: DriftRun, *, argv: Sequence[str], database: str, started: str) -> dict:
    rows = aggregate(run)
    by_lang = {lang: aggregate(run, metas=[m for m in run.metas if m.lang == lang])
               for lang in sorted({m.lang for m in run.metas})}
    return {
        "format": REPORT_FORMAT,
        "benchmark": "drift",
        "started_at": started,
        "finished_at": started_at(),
        "command": " ".join(argv),
        "machine": machine_info(),
        "database": database,
        "token_encoding": TOKEN_CACHE.encoding,
        "budgets": list(run.options.budgets),
        "strategies": list(run.options.strategies),
        "scenario_count": len(run.scenarios),
        "probe_count": len(run.metas),
        "model": run.model_info or {"requested": False},
        "targets": targets(rows),
        "rows": rows,
        "rows_by_lang": by_lang,
        "scenarios": run.scenarios,
        "probes": [m.to_dict() for m in run.metas],
        "results": run.results,
    }


# --------------------------------------------------------------------------- output
ROW_COLUMNS = (
    ("strategy", "strategy"), ("budget", "budget"), ("probes", "probes"), ("recall", "recall"),
    ("recall_placed", "recall (placed)"),
    ("stale_leak_rate", "stale+leak"), ("stale_rate", "stale"), ("leak_rate", "leak"),
    ("unplaced_fact_recall", "never-placed recall"), ("unplaced_stale_leak_rate", "never-placed stale"),
    ("tokens_mean", "mean tok"), ("tokens_p95", "p95 tok"), ("tokens_share_of_full", "share of full"),
    ("compile_ms_mean", "compile ms"),
)


def _pct(v: float | None) -> str | None:
    return None if v is None else f"{v * 100:.1f} %"


def table_rows(rows: Sequence[dict], *, percent: bool = True) -> tuple[list[str], list[list]]:
    headers = [h for _, h in ROW_COLUMNS]
    pct_keys = {"recall", "recall_placed", "stale_leak_rate", "stale_rate", "leak_rate", "unplaced_fact_recall",
                "unplaced_stale_leak_rate", "tokens_share_of_full"}
    model = any("model_recall" in r for r in rows)
    if model:
        headers += ["model recall", "model stale+leak"]
    out = []
    for r in rows:
        cells = []
        for key, _ in ROW_COLUMNS:
            v = r.get(key)
            if key == "budget" and not r.get("budget_applies", True):
                v = f"({v}) all"
            cells.append(_pct(v) if percent and key in pct_keys else v)
        if model:
            cells += [_pct(r.get("model_recall")), _pct(r.get("model_stale_leak_rate"))]
        out.append(cells)
    return headers, out


def render_markdown(report: dict) -> str:
    from .common import md_table

    m = report["machine"]
    lines = [
        "# Drift benchmark",
        "",
        f"{report['scenario_count']} scenarios, {report['probe_count']} probes; budgets "
        f"{', '.join(str(b) for b in report['budgets'])} tokens ({report['token_encoding']}). "
        f"Run {report['finished_at']} on {m['cpu_model']} ({m['cpu_count']} cores, {m['ram_gb']} GB RAM), "
        f"database: {report['database']}.",
        "",
        "Recall = share of probes whose `expect_all` strings all reach the model; stale+leak = share of probes "
        "where any `forbid` string does (stale: a retired value; leak: text of a node the role may not see). "
        "Never-placed = expected strings that are on no canvas node at probe time (share of those strings "
        "that arrive), and forbidden strings on no node (share of their probes where one arrives). "
        "`full` ignores the budget (same numbers on every row).",
        "",
    ]
    headers, rows = table_rows(report["rows"])
    align = ["l", "r"] + ["r"] * (len(headers) - 2)
    lines += [md_table(headers, rows, align=align), ""]
    if report["targets"]:
        lines += ["## Targets", "", md_table(["target", "value", "goal", "met"], [
            [t["name"], _pct(t["value"]) if isinstance(t["value"], float) else t["value"], t["target"],
             "yes" if t["met"] else "**no**"] for t in report["targets"]], align=["l", "r", "l", "l"]), ""]
    for lang, rows_l in report.get("rows_by_lang", {}).items():
        pick = [r for r in rows_l if r["strategy"] in ("canvas", "canvas+capture", "window", "summary")]
        if pick and len(report.get("rows_by_lang", {})) > 1:
            h, rr = table_rows(pick)
            lines += [f"### {lang or '(no lang)'}", "", md_table(h, rr, align=["l", "r"] + ["r"] * (len(h) - 2)), ""]
    misses = [r for r in report["results"] if r["strategy"] in ("canvas", "canvas+capture") and r.get("diagnosis")]
    if misses:
        lines += ["## Canvas-strategy misses", ""]
        for r in misses:
            lines.append(f"- `{r['probe_id']}` {r['strategy']} @ {r['budget']}: " + " / ".join(r["diagnosis"]))
        lines.append("")
    errs = [(s["id"], e) for s in report["scenarios"] for e in s.get("op_errors", [])]
    if errs:
        lines += ["## Scenario ops the write path refused", ""]
        lines += [f"- `{sid}` turn {e['turn']} {e['op']}: {e['error']}" for sid, e in errs]
        lines.append("")
    cap = Counter()
    for s in report["scenarios"]:
        cap.update(s.get("capture") or {})
    if cap:
        lines += ["## Fact capture (canvas+capture)", "",
                  ", ".join(f"{k.replace('_', ' ')}: {v}" for k, v in sorted(cap.items())), ""]
    model = report["model"]
    if model.get("requested"):
        lines += ["## Model answers", "",
                  (f"Model `{model.get('model')}` answered every probe prompt; see the model columns above."
                   if model.get("configured") else f"Skipped: {model.get('skipped')}"), ""]
    return "\n".join(lines)


def write_plots(report: dict, out: Path) -> list[Path]:
    """recall_vs_budget.png, tokens_per_strategy.png and drift.png (both plus stale+leak) in `out`."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = report["rows"]
    budgets = report["budgets"]
    strategies = [s for s in STRATEGIES if any(r["strategy"] == s for r in rows)]
    colors = {"full": "#6c757d", "window": "#e76f51", "summary": "#f4a261", "canvas": "#2a9d8f",
              "canvas+capture": "#264653", "naive-canvas": "#9b5de5"}
    styles = {"full": "--", "naive-canvas": ":"}

    def series(strategy: str, key: str) -> list[float]:
        by_b = {r["budget"]: r.get(key) for r in rows if r["strategy"] == strategy}
        return [(by_b.get(b) if by_b.get(b) is not None else float("nan")) for b in budgets]

    def recall_axes(ax, key: str, title: str) -> None:
        for s in strategies:
            ax.plot(budgets, [v * 100 for v in series(s, key)], marker="o", label=s, color=colors.get(s),
                    linestyle=styles.get(s, "-"))
        ax.set_xscale("log", base=2)
        ax.set_xticks(budgets)
        ax.set_xticklabels([str(b) for b in budgets])
        ax.set_ylim(-3, 103)
        ax.set_xlabel("token budget")
        ax.set_ylabel("% of probes")
        ax.set_title(title)
        ax.grid(True, alpha=0.3)

    def tokens_axes(ax) -> None:
        width = 0.8 / max(1, len(budgets))
        xs = range(len(strategies))
        for j, b in enumerate(budgets):
            vals = [next((r["tokens_mean"] for r in rows if r["strategy"] == s and r["budget"] == b), 0) or 0
                    for s in strategies]
            ax.bar([x + (j - (len(budgets) - 1) / 2) * width for x in xs], vals, width=width, label=f"budget {b}")
        ax.set_xticks(list(xs))
        ax.set_xticklabels(strategies, rotation=25, ha="right")
        ax.set_ylabel("mean prompt tokens")
        ax.set_title("Prompt tokens per strategy")
        ax.grid(True, axis="y", alpha=0.3)
        ax.legend(fontsize=8)

    subtitle = f"{report['scenario_count']} scenarios, {report['probe_count']} probes"
    paths = []
    fig, ax = plt.subplots(figsize=(6.5, 4.5))
    recall_axes(ax, "recall", f"Recall vs budget ({subtitle})")
    ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    paths.append(out / "recall_vs_budget.png")
    fig.savefig(paths[-1], dpi=120)
    plt.close(fig)

    fig, ax = plt.subplots(figsize=(6.5, 4.5))
    tokens_axes(ax)
    fig.tight_layout()
    paths.append(out / "tokens_per_strategy.png")
    fig.savefig(paths[-1], dpi=120)
    plt.close(fig)

    fig, axes = plt.subplots(1, 3, figsize=(16, 4.8))
    recall_axes(axes[0], "recall", "Recall (all expected strings arrive)")
    recall_axes(axes[1], "stale_leak_rate", "Stale + leak (a forbidden string arrives)")
    axes[0].legend(fontsize=8, loc="lower right")
    tokens_axes(axes[2])
    fig.suptitle(f"Drift benchmark: {subtitle}")
    fig.tight_layout()
    paths.append(out / "drift.png")
    fig.savefig(paths[-1], dpi=110)
    plt.close(fig)
    return paths
