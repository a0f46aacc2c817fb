"""Documents as a client holds them: {"nodes": {id: node}, "edges": {id: edge}}.

Applying one node or edge change (a removed or deleted node takes the edges that touch it
along: the server only lists the edges it deleted), and comparing two documents.
"""

from __future__ import annotations

from typing import Any


def apply_entity_change(nodes: dict[str, dict], edges: dict[str, dict], change: dict) -> None:
    """Apply one `node` or `edge` entry of a change event to `nodes` and `edges` in place."""
    entity, action = change.get("entity"), change.get("action")
    entity_id: Any = change.get("id")  # as the server sent it
    table = nodes if entity == "node" else edges
    if action in ("created", "updated"):
        table[entity_id] = change["data"]
    elif action in ("deleted", "removed"):
        table.pop(entity_id, None)
        if entity == "node":
            _drop_edges_touching(edges, entity_id)


def _drop_edges_touching(edges: dict[str, dict], node_id: str) -> None:
    for edge_id in [e for e, edge in edges.items() if node_id in (edge.get("source"), edge.get("target"))]:
        del edges[edge_id]


def dangling_edges(nodes: dict[str, dict], edges: dict[str, dict]) -> list[str]:
    """The ids of edges with an end that is not among `nodes`."""
    return [e for e, edge in edges.items() if edge["source"] not in nodes or edge["target"] not in nodes]


def document_diff(expected: dict, actual: dict, *, limit: int = 8) -> list[str]:
    """Human-readable differences between two {"nodes", "edges"} documents (empty when equal)."""
    problems: list[str] = []
    for kind in ("nodes", "edges"):
        want, got = expected.get(kind, {}), actual.get(kind, {})
        for key in sorted(set(want) - set(got))[:limit]:
            problems.append(f"{kind[:-1]} {key} missing")
        for key in sorted(set(got) - set(want))[:limit]:
            problems.append(f"{kind[:-1]} {key} should not be there")
        for key in sorted(set(want) & set(got)):
            if want[key] != got[key]:
                fields = sorted(
                    k for k in set(want[key]) | set(got[key]) if want[key].get(k) != got[key].get(k)
                )
                expected_values = {f: want[key].get(f) for f in fields}
                actual_values = {f: got[key].get(f) for f in fields}
                problems.append(
                    f"{kind[:-1]} {key} differs in {fields}: {expected_values} != {actual_values}"
                )
                if len(problems) >= limit * 3:
                    break
    return problems
