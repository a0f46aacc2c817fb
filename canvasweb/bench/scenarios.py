"""Load drift scenarios (format drift-scenario/1, see /work/shared/drift/FORMAT.md and bench/scenarios/README.md)."""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

FORMAT = "drift-scenario/1"
OPS = ("add_node", "update_node", "move_node", "supersede", "link", "archive")
ROLES = ("viewer", "editor", "owner")


class ScenarioError(ValueError):
    pass


@dataclass(frozen=True)
class Scenario:
    id: str
    path: str
    lang: str
    description: str
    turns: list[dict[str, Any]]
    probes: list[dict[str, Any]]
    source: str = ""  # the --scenarios path (folder or file) it was loaded from: its scenario set

    @property
    def probe_turns(self) -> set[int]:
        return {p["after_turn"] for p in self.probes}


def _check(data: Any, path: Path) -> Scenario:
    def fail(msg: str) -> ScenarioError:
        return ScenarioError(f"{path}: {msg}")

    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise fail(f'"format" must be "{FORMAT}"')
    sid = data.get("id")
    if not isinstance(sid, str) or not sid:
        raise fail('"id" must be a non-empty string')
    turns = data.get("turns")
    if not isinstance(turns, list) or not turns:
        raise fail('"turns" must be a non-empty list')
    for i, turn in enumerate(turns):
        if not isinstance(turn, dict) or turn.get("role") not in ("user", "assistant"):
            raise fail(f"turns[{i}].role must be user or assistant")
        if not isinstance(turn.get("content"), str):
            raise fail(f"turns[{i}].content must be a string")
        if "at" in turn and not _is_timestamp(turn["at"]):
            raise fail(f'turns[{i}].at must be an ISO-8601 timestamp such as "2026-03-02T10:15:00Z"')
        for j, op in enumerate(turn.get("canvas_ops") or ()):
            if not isinstance(op, dict) or op.get("op") not in OPS:
                raise fail(f"turns[{i}].canvas_ops[{j}].op must be one of {', '.join(OPS)}")
    probes = data.get("probes")
    if not isinstance(probes, list) or not probes:
        raise fail('"probes" must be a non-empty list')
    for i, probe in enumerate(probes):
        if not isinstance(probe, dict):
            raise fail(f"probes[{i}] must be an object")
        at = probe.get("after_turn")
        if not isinstance(at, int) or not 0 <= at < len(turns):
            raise fail(f"probes[{i}].after_turn must be a turn index (0..{len(turns) - 1})")
        if probe.get("as_role", "editor") not in ROLES:
            raise fail(f"probes[{i}].as_role must be one of {', '.join(ROLES)}")
        if not isinstance(probe.get("question"), str) or not probe["question"].strip():
            raise fail(f"probes[{i}].question must be a non-empty string")
        for key in ("expect_all", "forbid", "tags"):
            values = probe.get(key, [])
            if not isinstance(values, list) or not all(isinstance(v, str) and v for v in values):
                raise fail(f"probes[{i}].{key} must be a list of non-empty strings")
    return Scenario(
        id=sid,
        path=str(path),
        lang=str(data.get("lang", "")),
        description=str(data.get("description", "")),
        turns=turns,
        probes=probes,
    )


def _is_timestamp(value: Any) -> bool:
    if not isinstance(value, str) or not value:
        return False
    try:
        datetime.fromisoformat(value.replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        return False
    return True


def load_scenarios(paths: list[str | Path]) -> list[Scenario]:
    """Every *.json in the given folders (and any file given directly), sorted by path; ids must be unique.

    Each scenario remembers the path it came from (`source`): reports group scenarios into sets by it.
    """
    files: list[tuple[Path, str]] = []
    for raw in paths:
        p = Path(raw)
        if p.is_dir():
            files += [(f, str(raw)) for f in sorted(p.glob("*.json"))]
        elif p.is_file():
            files.append((p, str(raw)))
        else:
            raise ScenarioError(f"{p}: no such file or folder")
    if not files:
        raise ScenarioError(f"no *.json scenario files in {', '.join(str(p) for p in paths)}")
    scenarios: list[Scenario] = []
    seen: dict[str, str] = {}
    for f, source in files:
        try:
            data = json.loads(f.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise ScenarioError(f"{f}: not valid JSON ({exc})") from None
        scenario = _check(data, f)
        if scenario.id in seen:
            raise ScenarioError(f"{f}: scenario id {scenario.id!r} is also used by {seen[scenario.id]}")
        seen[scenario.id] = str(f)
        scenarios.append(dataclasses.replace(scenario, source=source))
    return scenarios
