"""Random canvas operations for fuzzing, drawn from what one client currently knows.

Every op kind of docs/protocol.md is produced (node.create/update/move/delete/
supersede/archive, edge.create/update/delete, batch), aimed mostly at a small
"hot set" of nodes so that concurrent clients collide on the same nodes and
edges. Ids of new nodes and edges are drawn from the seeded generator, so a
run replays from its seed. A few ops are deliberately doomed (a stale or made-up
id, an out-of-range value, a sensitivity above the role): the server must
reject them and change nothing.
"""

from __future__ import annotations

import random
import uuid
from collections.abc import Iterable

KINDS = ("fact", "requirement", "decision", "config", "question", "note")
RELATIONS = ("depends_on", "causes", "conflicts_with", "supersedes", "relates_to")
SENSITIVITY_BY_ROLE = {
    "owner": ("public", "public", "internal", "secret"),
    "editor": ("public", "public", "internal"),
    "viewer": ("public",),
}
WORDS = (
    "port",
    "5433",
    "数据库",
    "deadline",
    "Q3",
    "owner",
    "α",
    "launch",
    "risk",
    "😀",
    "db",
    "cache",
    "émigré",
)

# op kind -> weight
OP_WEIGHTS = {
    "node.create": 16,
    "node.update": 12,
    "node.move": 14,
    "node.delete": 5,
    "node.supersede": 4,
    "node.archive": 4,
    "edge.create": 12,
    "edge.update": 5,
    "edge.delete": 4,
    "batch": 6,
    "invalid": 2,
}


def rand_uuid(rng: random.Random) -> str:
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def _text(rng: random.Random) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 6)))


class OpGenerator:
    def __init__(self, rng: random.Random, *, hot_set: int = 6):
        self.rng = rng
        self.hot_set = hot_set
        self.created_nodes: list[str] = []  # ids this generator chose for new nodes (may be rejected later)

    # --- targets ------------------------------------------------------------------

    def _pick(self, ids: Iterable[str]) -> str | None:
        ids = sorted(ids)
        if not ids:
            return None
        if self.rng.random() < 0.6:
            return self.rng.choice(ids[: self.hot_set])
        return self.rng.choice(ids)

    def _known_nodes(self, client) -> list[str]:
        ids = set(client.nodes)
        for op in client.pending.values():
            for single in op.get("ops", [op]):
                if single.get("type") in ("node.create", "node.supersede") and single.get("node", {}).get(
                    "id"
                ):
                    ids.add(single["node"]["id"])
        return sorted(ids)

    def _node_target(self, client) -> str:
        if self.rng.random() < 0.03:
            return rand_uuid(self.rng)  # made up: NOT_FOUND
        if self.rng.random() < 0.05 and self.created_nodes:
            return self.rng.choice(self.created_nodes)  # maybe deleted since: stale
        return self._pick(self._known_nodes(client)) or rand_uuid(self.rng)

    def _edge_target(self, client) -> str:
        if self.rng.random() < 0.05 or not client.edges:
            return rand_uuid(self.rng)
        # Sort by endpoints, not by id: supersede edges get server-chosen ids.
        edges = sorted(
            client.edges.values(), key=lambda e: (e["source"], e["target"], e["relation"], e["id"])
        )
        return self.rng.choice(edges)["id"]

    # --- bodies -------------------------------------------------------------------

    def node_body(self, role: str) -> dict:
        rng = self.rng
        node_id = rand_uuid(rng)
        self.created_nodes.append(node_id)
        body = {
            "id": node_id,
            "content": _text(rng),
            "x": round(rng.uniform(-2000, 2000), 2),
            "y": round(rng.uniform(-2000, 2000), 2),
        }
        if rng.random() < 0.5:
            body["kind"] = rng.choice(KINDS)
        if rng.random() < 0.3:
            body["tags"] = rng.sample(["db", "infra", "q3", "agent-writable", "risk"], rng.randint(1, 3))
        if rng.random() < 0.3:
            body["sensitivity"] = rng.choice(SENSITIVITY_BY_ROLE.get(role, ("public",)))
        if rng.random() < 0.15:
            body["pinned"] = True
        if rng.random() < 0.2:
            body["weight"] = round(rng.uniform(0.1, 10), 2)
        return body

    def update_fields(self, role: str) -> dict:
        rng = self.rng
        choices = {
            "content": lambda: _text(rng),
            "kind": lambda: rng.choice(KINDS),
            "x": lambda: round(rng.uniform(-2000, 2000), 2),
            "y": lambda: round(rng.uniform(-2000, 2000), 2),
            "weight": lambda: round(rng.uniform(0.1, 10), 2),
            "tags": lambda: rng.sample(["db", "infra", "q3", "risk"], rng.randint(0, 2)),
            "pinned": lambda: rng.random() < 0.5,
            "sensitivity": lambda: rng.choice(SENSITIVITY_BY_ROLE.get(role, ("public",))),
        }
        names = rng.sample(sorted(choices), rng.randint(1, 3))
        return {name: choices[name]() for name in names}

    # --- ops ----------------------------------------------------------------------

    def op(self, client, role: str, *, kind: str | None = None, nested: bool = False) -> dict:
        rng = self.rng
        weights = {k: w for k, w in OP_WEIGHTS.items() if not (nested and k in ("batch", "invalid"))}
        kind = kind or rng.choices(list(weights), weights=list(weights.values()))[0]
        if kind == "node.create":
            return {"type": "node.create", "node": self.node_body(role)}
        if kind == "node.update":
            fields = self.update_fields(role)
            if rng.random() < 0.1:
                # Often a no-op: the value the node already has.
                target = self._node_target(client)
                node = client.nodes.get(target)
                if node:
                    return {"type": "node.update", "id": target, "fields": {"content": node["content"]}}
                return {"type": "node.update", "id": target, "fields": fields}
            return {"type": "node.update", "id": self._node_target(client), "fields": fields}
        if kind == "node.move":
            return {
                "type": "node.move",
                "id": self._node_target(client),
                "x": round(rng.uniform(-5000, 5000), 1),
                "y": round(rng.uniform(-5000, 5000), 1),
            }
        if kind == "node.delete":
            return {"type": "node.delete", "id": self._node_target(client)}
        if kind == "node.supersede":
            return {"type": "node.supersede", "id": self._node_target(client), "node": self.node_body(role)}
        if kind == "node.archive":
            return {"type": "node.archive", "id": self._node_target(client), "archived": rng.random() < 0.7}
        if kind == "edge.create":
            source = self._node_target(client)
            target = self._node_target(client)
            if source == target:
                target = self._pick(set(self._known_nodes(client)) - {source}) or rand_uuid(rng)
            edge = {
                "id": rand_uuid(rng),
                "source": source,
                "target": target,
                "relation": rng.choice(RELATIONS),
            }
            if rng.random() < 0.3:
                edge["label"] = _text(rng)[:200]
            return {"type": "edge.create", "edge": edge}
        if kind == "edge.update":
            fields = {}
            if rng.random() < 0.6:
                fields["relation"] = rng.choice(RELATIONS)
            if not fields or rng.random() < 0.5:
                fields["label"] = _text(rng)[:200]
            return {"type": "edge.update", "id": self._edge_target(client), "fields": fields}
        if kind == "edge.delete":
            return {"type": "edge.delete", "id": self._edge_target(client)}
        if kind == "batch":
            ops = []
            if rng.random() < 0.5:
                # A new node and an edge to it in one atomic step (offline-friendly).
                body = self.node_body(role)
                ops.append({"type": "node.create", "node": body})
                other = self._node_target(client)
                if other != body["id"]:
                    ops.append(
                        {
                            "type": "edge.create",
                            "edge": {
                                "id": rand_uuid(rng),
                                "source": body["id"],
                                "target": other,
                                "relation": rng.choice(RELATIONS),
                            },
                        }
                    )
            for _ in range(rng.randint(1, 3)):
                ops.append(self.op(client, role, nested=True))
            return {"type": "batch", "ops": ops}
        if kind == "invalid":
            return rng.choice(
                [
                    {"type": "node.create", "node": {"content": "far", "x": 1e9, "y": 0}},
                    {"type": "node.move", "id": self._node_target(client), "x": "left", "y": 0},
                    {"type": "node.update", "id": self._node_target(client), "fields": {"weight": 99}},
                    {
                        "type": "node.update",
                        "id": self._node_target(client),
                        "fields": {"sensitivity": "secret"},
                    },
                    {
                        "type": "edge.create",
                        "edge": {
                            "source": self._node_target(client),
                            "target": self._node_target(client),
                            "relation": "loves",
                        },
                    },
                    {"type": "node.teleport", "id": self._node_target(client)},
                ]
            )
        raise ValueError(kind)
