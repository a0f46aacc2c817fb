"""Tiny replay harness for drift scenarios (shared/drift/FORMAT.md) on plain data.

Applies canvas ops to NodeData/EdgeData lists (no DB), then compiles a probe.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from canvasweb.context.compiler import compile_context
from canvasweb.context.types import CompileRequest, EdgeData, MessageData, NodeData, Viewport

SAMPLES_DIR = Path("/work/shared/drift/samples")
REPO_SCENARIOS_DIR = Path(__file__).resolve().parents[2] / "bench" / "scenarios"
SYSTEM_PROMPT = (
    "You are Canvasweb's assistant. Answer from the canvas notes, the summary and the conversation. "
    "When facts conflict, the canvas and the latest correction win."
)


class Replay:
    def __init__(self) -> None:
        self.nodes: dict[str, NodeData] = {}
        self.edges: list[EdgeData] = []
        self.messages: list[MessageData] = []

    def _add(self, body: dict) -> None:
        key = body["key"]
        self.nodes[key] = NodeData(
            id=key,
            content=body["content"],
            kind=(body.get("tags") or ["fact"])[0],
            x=float(body["x"]),
            y=float(body["y"]),
            weight=float(body.get("weight", 1.0)),
            tags=tuple(body.get("tags", ())),
            pinned=bool(body.get("pinned", False)),
            sensitivity=body.get("sensitivity", "public"),
        )

    def apply(self, op: dict) -> None:
        kind = op["op"]
        if kind == "add_node":
            self._add(op)
        elif kind == "update_node":
            n = self.nodes[op["key"]]
            changes = {k: op[k] for k in ("content", "weight", "pinned", "sensitivity") if k in op}
            if "tags" in op:
                changes["tags"] = tuple(op["tags"])
            self.nodes[op["key"]] = replace(n, version=n.version + 1, **changes)
        elif kind == "move_node":
            n = self.nodes[op["key"]]
            self.nodes[op["key"]] = replace(n, x=float(op["x"]), y=float(op["y"]), version=n.version + 1)
        elif kind == "supersede":
            self._add(op["new"])
            old = self.nodes[op["old"]]
            self.nodes[op["old"]] = replace(old, superseded_by=op["new"]["key"], version=old.version + 1)
            self.edges.append(
                EdgeData(
                    id=f"e{len(self.edges)}", source=op["new"]["key"], target=op["old"], relation="supersedes"
                )
            )
        elif kind == "link":
            self.edges.append(
                EdgeData(
                    id=f"e{len(self.edges)}",
                    source=op["source"],
                    target=op["target"],
                    relation=op["relation"],
                )
            )
        elif kind == "archive":
            n = self.nodes[op["key"]]
            self.nodes[op["key"]] = replace(n, archived=True, version=n.version + 1)
        else:
            raise ValueError(f"unknown op {kind}")

    def turn(self, i: int, turn: dict) -> None:
        self.messages.append(MessageData(id=f"m{i}", role=turn["role"], content=turn["content"]))
        for op in turn.get("canvas_ops", ()):
            self.apply(op)


def load_samples(directory: Path = SAMPLES_DIR) -> list[dict]:
    return [json.loads(p.read_text(encoding="utf-8")) for p in sorted(directory.glob("*.json"))]


def probe_requests(scenario: dict, *, strategy: str = "canvas", budget: int = 2000):
    """Yield (probe, CompileRequest) for each probe of a scenario."""
    for probe in scenario["probes"]:
        rep = Replay()
        for i, turn in enumerate(scenario["turns"][: probe["after_turn"] + 1]):
            rep.turn(i, turn)
        vp = probe.get("viewport", {})
        yield (
            probe,
            CompileRequest(
                system_prompt=SYSTEM_PROMPT,
                question=probe["question"],
                messages=tuple(rep.messages),
                nodes=tuple(rep.nodes.values()),
                edges=tuple(rep.edges),
                viewport=Viewport(
                    x=float(vp.get("x", 0)), y=float(vp.get("y", 0)), zoom=float(vp.get("zoom", 1))
                ),
                role=probe.get("as_role", "editor"),
                budget=budget,
                strategy=strategy,
            ),
        )


def run_probe(request: CompileRequest):
    compiled = compile_context(request=request)
    sent = "\n".join(m["content"] for m in compiled.messages).lower()
    return compiled, sent
