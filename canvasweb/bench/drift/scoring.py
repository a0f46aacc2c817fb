"""Scoring: what a probe expects, what reached the model, and why a canvas strategy missed.

Matching is case-insensitive substring matching on the exact text sent (all
messages, system included), as the drift FORMAT.md says.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from canvasweb.chat.context_inputs import viewport_from
from canvasweb.context.history_recall import RECALL_OPEN
from canvasweb.context.render import BLOCK_OPEN
from canvasweb.context.sentences import SUMMARY_OPEN
from canvasweb.context.types import ROLE_LEVEL, SENSITIVITY_LEVEL, NodeData, SelectionConfig

NAIVE_BLOCK_OPEN = "Canvas notes (naive"


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
    leak_strings: list[str] = field(
        default_factory=list
    )  # forbid strings held by nodes above the role's level
    tags: list[str] = field(default_factory=list)
    set: str = ""  # the --scenarios path the scenario came from

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
    if content.startswith(NAIVE_BLOCK_OPEN):
        return "canvas"
    if content.startswith(RECALL_OPEN):
        return "recall"
    return "window"


def score_answer(meta: ProbeMeta, answer: str) -> dict[str, Any]:
    """A model's answer is correct when every expected string is in it and no forbidden one is."""
    low = answer.lower()
    missing = [s for s in meta.expect_all if s.lower() not in low]
    found = [s for s in meta.forbid if s.lower() in low]
    return {
        "correct": not missing and not found,
        "recall_hit": not missing,
        "missing": missing,
        "forbid_found": found,
    }


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
    meta.leak_strings = [
        s
        for s in meta.forbid
        if any(s.lower() in c and SENSITIVITY_LEVEL[sens] > level for c, sens in contents)
    ]


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
            where = (
                f"node {n.id[:8]} ({'pinned, ' if n.pinned else ''}{n.sensitivity}, weight {n.weight:g}, "
                f"distance {dist:.0f}, effective {dist / max(n.weight, 0.05):.0f} vs radius {radius:.0f})"
            )
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
        layers = sorted(
            {
                layer_of(i, m, len(messages))
                for i, m in enumerate(messages)
                if s.lower() in str(m.get("content") or "").lower()
            }
        )
        reasons.append(f"forbidden {s!r} sent in: {', '.join(layers)}")
    return reasons
