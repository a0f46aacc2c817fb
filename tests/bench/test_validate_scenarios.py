"""bench/validate_scenarios.py: tags, the optional "at", long conversations, coverage, never-placed share."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).resolve().parent / "scenarios"


@pytest.fixture(scope="module")
def validator():
    spec = importlib.util.spec_from_file_location(
        "validate_scenarios", ROOT / "bench" / "validate_scenarios.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_fixtures_pass_and_coverage_is_reported(validator, capsys):
    assert validator.main([str(FIXTURES)]) == 0
    out = capsys.readouterr().out
    assert "per-pattern coverage (tags): busy-canvas: 1 probes/1 scenarios;" in out
    assert "paraphrase: 3 probes/2 scenarios" in out
    # "16 台" (chat only) and "90 seconds" (chat only) of the 8 expected strings were never on a node.
    assert "probed facts never placed on the canvas: 2 of 8 (25 %)" in out
    assert "largest canvas: 29 nodes" in out


def _long_scenario(turns: int, *, at_first: str = "2026-04-01T08:00:00Z") -> dict:
    rows = []
    for i in range(turns):
        text = f"Filler line {i} about the community garden rota."
        if i == 5:
            text = "The shed padlock code is 4471, said once in passing."
        rows.append({"role": "user" if i % 2 == 0 else "assistant", "content": text})
    rows[0]["at"] = at_first
    rows[200]["at"] = "2026-04-03T18:30:00+02:00"
    probes = [
        {
            "after_turn": turns - 1,
            "viewport": {"x": 0, "y": 0, "zoom": 1},
            "question": "What opens the tool hut?",
            "expect_all": ["4471"],
            "tags": ["paraphrase", "long-history"],
        },
        {
            "after_turn": turns - 1,
            "viewport": {"x": 0, "y": 0, "zoom": 1},
            "question": "Which rota line came first?",
            "expect_all": ["Filler line 0 "],
            "tags": ["paraphrase"],
        },
    ]
    return {
        "format": "drift-scenario/1",
        "id": "validator-long",
        "lang": "en",
        "description": "test",
        "turns": rows,
        "probes": probes,
    }


def test_long_conversation_without_canvas_ops_is_accepted(validator, tmp_path, capsys):
    path = tmp_path / "long.json"
    path.write_text(json.dumps(_long_scenario(360)), encoding="utf-8")
    assert validator.main([str(path), "--verbose"]) == 0
    out = capsys.readouterr().out
    assert "long conversations (300+ turns): 1" in out
    assert "probed facts never placed on the canvas: 2 of 2 (100 %)" in out
    assert "tag 'long-history' is not in the FORMAT.md list" in out  # a warning, not an error


def test_bad_at_is_an_error_and_backwards_time_a_warning(validator, tmp_path, capsys):
    data = _long_scenario(360)
    data["turns"][3]["at"] = "half past nine"
    data["turns"][300]["at"] = "2026-03-01T00:00:00Z"  # before turn 200's time
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    assert validator.main([str(path), "--verbose"]) == 1
    out = capsys.readouterr().out
    assert "turn 3: at must be an ISO-8601 timestamp" in out
    assert "turn 300: at 2026-03-01T00:00:00Z is earlier than the previous timestamped turn" in out


def test_bad_tags_are_an_error(validator, tmp_path, capsys):
    data = _long_scenario(360)
    data["probes"][0]["tags"] = "paraphrase"
    path = tmp_path / "tags.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    assert validator.main([str(path)]) == 1
    assert "probe 0: tags must be a list of non-empty strings" in capsys.readouterr().out
