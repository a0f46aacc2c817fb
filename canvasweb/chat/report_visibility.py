"""Compile reports as the asking role may see them (preview, chat.started.context, Inspect).

The compiler works on the whole canvas (it needs every node to mask secret values and to blank history
that restates what a role may not see), so its report names excluded nodes of every sensitivity. This is
the boundary where the report leaves the server: nodes the role may not see are removed from
`excluded` and from `excluded_counts` (the `not_visible` reason disappears), and details that quote
such a node's id are blanked. The role learns nothing of them, not even how many there are.

Listing is capped per reason (SelectionConfig.report_limit); past the cap the report holds only a count,
so hidden nodes that were counted but not listed are taken off `out_of_range`, the reason scanned
nearest-first and the only one that realistically passes the cap.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from collections.abc import Set as AbstractSet
from typing import Any

from .context_inputs import canvas_state

_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", re.IGNORECASE)


def hidden_node_ids(*, canvas_id: int, role: str | None) -> set[str] | frozenset[str]:
    return canvas_state(canvas_id=canvas_id).hidden_ids(role)


def _field(item: Any, name: str) -> Any:
    return item.get(name) if isinstance(item, dict) else getattr(item, name)


def visible_exclusions(
    excluded: Iterable[Any], counts: dict[str, int], *, hidden: AbstractSet[str]
) -> tuple[list[dict], dict[str, int]]:
    """(excluded entries as dicts, counts) with every node in `hidden` taken out."""
    kept: list[dict] = []
    listed_hidden: dict[str, int] = {}
    seen_hidden: set[str] = set()
    for item in excluded:
        node_id = str(_field(item, "node_id"))
        reason = _field(item, "reason")
        if node_id in hidden:
            listed_hidden[reason] = listed_hidden.get(reason, 0) + 1
            seen_hidden.add(node_id)
            continue
        detail = _field(item, "detail") or ""
        if any(match.lower() in hidden for match in _UUID.findall(detail)):
            detail = ""
        kept.append({"node_id": node_id, "reason": reason, "detail": detail})
    clean = {
        reason: count - listed_hidden.get(reason, 0)
        for reason, count in counts.items()
        if reason != "not_visible"
    }
    unlisted_hidden = len(hidden) - len(seen_hidden)  # seen_hidden is a subset of hidden
    if unlisted_hidden and "out_of_range" in clean:
        listed_out = sum(1 for item in excluded if _field(item, "reason") == "out_of_range")
        if counts.get("out_of_range", 0) > listed_out:
            clean["out_of_range"] -= min(unlisted_hidden, counts["out_of_range"] - listed_out)
    return kept, {reason: count for reason, count in sorted(clean.items()) if count > 0}


def visible_report_dict(report: dict | None, *, hidden: AbstractSet[str]) -> dict | None:
    """A stored report (CompileReport.to_dict()) without the hidden nodes."""
    if not isinstance(report, dict):
        return report
    excluded, counts = visible_exclusions(
        report.get("excluded_nodes") or [], report.get("excluded_counts") or {}, hidden=hidden
    )
    out = {**report, "excluded_nodes": excluded, "excluded_counts": counts}
    if isinstance(report.get("included_nodes"), list):
        out["included_nodes"] = [
            n for n in report["included_nodes"] if str(_field(n, "node_id")) not in hidden
        ]
    if isinstance(report.get("handles"), dict):
        out["handles"] = {h: i for h, i in report["handles"].items() if str(i) not in hidden}
    return out
