"""Dropped current values probe: where the history filters remove a value that is still current.

For every probe of the given drift scenarios, the conversation up to the probe goes through the
`canvas` strategy's history filters (`HistoryView`: restated superseded/archived nodes, chat
corrections, the value ledger) with the canvas the scenario has built by then (adds, supersedes
and archives; positions and links do not matter to the filters). A turn that said an expected
string of the probe, and no longer says it after the filters, is listed: an expected string is a
current value, so the filters took a current fact for a retired one. Run from the repository root:

    .venv/bin/python bench/probes/dropped_current_values.py bench/devset bench/devset/fresh ...

Prints one line per dropped value and a count; exits 0 either way (it is a probe, not a test).
"""

import json
import os
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "canvasweb.config.settings")
import django

django.setup()
from canvasweb.context.canvas_index import CanvasIndex  # noqa: E402 (after django.setup)
from canvasweb.context.compile_history import HistoryView  # noqa: E402
from canvasweb.context.tokens import TokenCache  # noqa: E402
from canvasweb.context.types import MessageData, NodeData  # noqa: E402


def canvas_at(scenario: dict, last_turn: int) -> list[NodeData]:
    """The scenario's nodes after `last_turn`, with their supersede and archive states."""
    nodes: dict[str, dict] = {}
    for turn in scenario["turns"][: last_turn + 1]:
        for op in turn.get("canvas_ops", []):
            kind = op["op"]
            if kind == "add_node":
                nodes[op["key"]] = dict(op)
            elif kind == "supersede" and op["old"] in nodes:
                nodes[op["old"]]["superseded_by"] = op["new"]["key"]
                nodes[op["new"]["key"]] = dict(op["new"])
            elif kind == "archive" and op.get("key") in nodes:
                nodes[op["key"]]["archived"] = True
    return [
        NodeData(
            id=key,
            content=n["content"],
            sensitivity=n.get("sensitivity", "public"),
            superseded_by=n.get("superseded_by"),
            archived=bool(n.get("archived")),
        )
        for key, n in nodes.items()
    ]


def dropped(scenario: dict) -> list[str]:
    out = []
    for p, probe in enumerate(scenario["probes"]):
        last = probe["after_turn"]
        index = CanvasIndex.build(nodes=canvas_at(scenario, last))
        messages = [
            MessageData(
                id=str(i),
                role=t["role"],
                content=t["content"],
                created_at=f"2026-01-{1 + i // 1440:02d}T{(i // 60) % 24:02d}:{i % 60:02d}:00Z",
            )
            for i, t in enumerate(scenario["turns"][: last + 1])
            if t.get("content")
        ]
        view = HistoryView(
            messages=messages,
            archived=(),
            index=index,
            strategy="canvas",
            role=probe.get("as_role", "owner"),
            retire_values=True,
            cache=TokenCache(),
            mask=index.secret_masker,
            fingerprint=index.secret_fingerprint,
            tool_max=400,
        )
        for i in range(len(messages) - 1, -1, -1):  # the filters read the history newest first
            kept = view.current(i).text
            for expected in probe["expect_all"]:
                if expected in messages[i].content and expected not in kept:
                    out.append(
                        f"{scenario['id']}#{p} turn {messages[i].id} lost {expected!r}: {kept[:200]!r}"
                    )
    return out


def main(paths: list[str]) -> None:
    files = []
    for path in paths:
        p = pathlib.Path(path)
        files += sorted(p.glob("*.json")) if p.is_dir() else [p]
    lines: list[str] = []
    for f in files:
        scenario = json.loads(f.read_text(encoding="utf-8"))
        if "probes" in scenario and "turns" in scenario:
            lines += dropped(scenario)
    for line in sorted(set(lines)):
        print(line)
    print(f"{len(set(lines))} dropped current values in {len(files)} scenarios")


if __name__ == "__main__":
    main(sys.argv[1:] or ["bench/devset"])
