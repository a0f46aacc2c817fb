"""The drift samples are the product's target: canvas strategy at 2000 tokens
must deliver every `expect_all` string and none of the `forbid` strings."""

from __future__ import annotations

import pytest
from context_drift_replay import REPO_SCENARIOS_DIR, SAMPLES_DIR, load_samples, probe_requests, run_probe
from helpers_context import prompt_tokens

SCENARIOS = load_samples() if SAMPLES_DIR.exists() else []
PROBES = [(sc, i) for sc in SCENARIOS for i in range(len(sc["probes"]))]
# The project's own drift set (bench/scenarios, 26 scenarios / 86 probes) when present.
REPO_SCENARIOS = load_samples(REPO_SCENARIOS_DIR) if REPO_SCENARIOS_DIR.exists() else []
REPO_PROBES = [(sc, i) for sc in REPO_SCENARIOS for i in range(len(sc["probes"]))]


@pytest.mark.skipif(not SCENARIOS, reason="no drift samples on this machine")
@pytest.mark.parametrize("scenario,probe_no", PROBES, ids=[f"{sc['id']}-p{i}" for sc, i in PROBES])
def test_canvas_strategy_meets_drift_probe(scenario, probe_no):
    probe, request = list(probe_requests(scenario, strategy="canvas", budget=2000))[probe_no]
    compiled, sent = run_probe(request)
    assert prompt_tokens(compiled.messages) <= 2000
    for s in probe["expect_all"]:
        assert s.lower() in sent, f"{s!r} did not reach the model"
    for s in probe["forbid"]:
        assert s.lower() not in sent, f"{s!r} reached the model"


@pytest.mark.skipif(not REPO_PROBES, reason="no bench/scenarios in this checkout")
@pytest.mark.parametrize("scenario,probe_no", REPO_PROBES, ids=[f"{sc['id']}-p{i}" for sc, i in REPO_PROBES])
def test_canvas_strategy_meets_repo_drift_probe(scenario, probe_no):
    probe, request = list(probe_requests(scenario, strategy="canvas", budget=2000))[probe_no]
    compiled, sent = run_probe(request)
    assert prompt_tokens(compiled.messages) <= 2000
    missing = [s for s in probe["expect_all"] if s.lower() not in sent]
    leaked = [s for s in probe["forbid"] if s.lower() in sent]
    assert not missing and not leaked, (probe["question"], missing, leaked)


@pytest.mark.skipif(not SCENARIOS, reason="no drift samples on this machine")
@pytest.mark.parametrize("budget", [800, 8000])
def test_canvas_strategy_no_stale_values_at_other_budgets(budget):
    # At 8000 the whole chat fits verbatim; superseded statements must still stay out.
    for sc in SCENARIOS:
        for probe, request in probe_requests(sc, strategy="canvas", budget=budget):
            compiled, sent = run_probe(request)
            assert prompt_tokens(compiled.messages) <= budget
            assert all(s.lower() in sent for s in probe["expect_all"]), (sc["id"], probe["question"])
            assert not any(s.lower() in sent for s in probe["forbid"]), (sc["id"], probe["question"])


@pytest.mark.skipif(not SCENARIOS, reason="no drift samples on this machine")
def test_window_baseline_drifts():
    # Sanity check of the harness: a plain window loses the early facts.
    recalls = []
    for sc in SCENARIOS:
        for probe, request in probe_requests(sc, strategy="window", budget=2000):
            _, sent = run_probe(request)
            recalls.append(all(s.lower() in sent for s in probe["expect_all"]))
    assert sum(recalls) < len(recalls)
