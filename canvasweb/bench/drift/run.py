"""The run: replay each scenario once (twice with `canvas+capture`) and compile every strategy at each probe.

At each probe point the database state is the one the product would have; every
strategy and budget is compiled from it before the replay moves on, so a
scenario's turns are written once per replay whatever the number of
strategies, budgets and probes.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast
from unittest import mock

from django.db import transaction

from canvasweb.canvases import selectors as canvas_selectors
from canvasweb.chat import services as chat_services
from canvasweb.chat.context_inputs import TOKEN_CACHE, canvas_inputs
from canvasweb.context.tokens import count_tokens
from canvasweb.context.types import BudgetConfigError, Strategy

from ..common import Progress
from ..scenarios import Scenario
from .replay import (
    CLOCK_START,
    CanvasReplay,
    ReplayClock,
    bench_users,
    fixed_time_and_ids,
    reset_product_caches,
)
from .scoring import ProbeMeta, classify_probe, diagnose, message_text, score
from .strategies import HistoryIndex, bm25_history_compile, naive_canvas_compile

# `full` sends the whole history: it is compiled once per probe with a budget
# that never binds, and its numbers are repeated on every budget row.
FULL_BUDGET = 1_000_000
CANVAS_STRATEGIES = ("canvas", "canvas+capture")


@dataclass
class DriftOptions:
    budgets: list[int]
    strategies: list[str]
    model: bool = False
    progress: bool = True
    dump_prompts: Path | None = None
    model_concurrency: int = 4
    model_timeout: float | None = None  # seconds per answer; None: the product's LLM_TIMEOUT_SECONDS


@dataclass
class DriftRun:
    options: DriftOptions
    metas: list[ProbeMeta] = field(default_factory=list)
    results: list[dict] = field(default_factory=list)
    scenarios: list[dict] = field(default_factory=list)
    sets: list[dict] = field(default_factory=list)  # one per --scenarios path: label, scenarios, probes
    model_jobs: list[tuple[dict, list[dict]]] = field(default_factory=list)
    model_info: dict = field(default_factory=dict)
    full_tokens: dict = field(default_factory=dict)  # probe_id -> tokens of `full` (the share reference)
    replay_seconds: float = 0.0


def _probe_viewport(scenario: Scenario, turn: int) -> dict:
    """The working viewport at a turn: that of the next probe (or the last one)."""
    upcoming = [p for p in scenario.probes if p["after_turn"] >= turn]
    probe = min(upcoming, key=lambda p: p["after_turn"]) if upcoming else scenario.probes[-1]
    return dict(probe.get("viewport") or {"x": 0, "y": 0, "zoom": 1})


def _meta(scenario: Scenario, index: int, probe: dict) -> ProbeMeta:
    return ProbeMeta(
        probe_id=f"{scenario.id}#{index}",
        scenario=scenario.id,
        lang=scenario.lang,
        index=index,
        after_turn=probe["after_turn"],
        role=probe.get("as_role", "editor"),
        question=probe["question"],
        viewport=dict(probe.get("viewport") or {"x": 0, "y": 0, "zoom": 1}),
        expect_all=list(probe.get("expect_all", [])),
        forbid=list(probe.get("forbid", [])),
        tags=sorted({str(t) for t in probe.get("tags") or ()}),
        set=scenario.source,
    )


def _record(
    run: DriftRun,
    *,
    meta: ProbeMeta,
    strategy: str,
    budget: int | None,
    messages: list[dict],
    tokens: int,
    compile_ms: float,
    wall_ms: float,
    compiled=None,
    nodes=(),
    layer_tokens=None,
    error: str | None = None,
) -> dict:
    text = message_text(messages)
    result = {
        "probe_id": meta.probe_id,
        "scenario": meta.scenario,
        "strategy": strategy,
        "budget": budget,
        "tokens": tokens,
        "compile_ms": round(compile_ms, 3),
        "wall_ms": round(wall_ms, 3),
        "layer_tokens": layer_tokens or {},
        "error": error,
        # Two runs on the same files and code must send byte-identical prompts.
        "prompt_sha256": hashlib.sha256(
            "\x1e".join(f"{m['role']}\x1f{m.get('content') or ''}" for m in messages).encode()
        ).hexdigest()[:16],
    }
    result.update(
        score(meta, text)
        if not error
        else {
            "recall_hit": False,
            "missing": list(meta.expect_all),
            "forbid_found": [],
            "stale_found": [],
            "leak_found": [],
            "unplaced_missing": list(meta.unplaced_expected),
            "unplaced_forbid_found": [],
        }
    )
    if (
        compiled is not None
        and strategy in CANVAS_STRATEGIES
        and (result["missing"] or result["forbid_found"])
    ):
        result["diagnosis"] = diagnose(meta=meta, compiled=compiled, nodes=nodes, result=result)
    run.results.append(result)
    if run.options.model and not error:
        run.model_jobs.append((result, messages))
    if run.options.dump_prompts is not None:
        name = f"{meta.probe_id.replace('#', '-').replace('/', '_')}.{strategy}.{budget or 'all'}.txt"
        path = run.options.dump_prompts / name
        path.write_text("\n\n".join(f"### {m['role']}\n{m['content']}" for m in messages), encoding="utf-8")
    return result


@contextlib.contextmanager
def history_read_once() -> Iterator[None]:
    """While one probe compiles, load the conversation's history from the database once, not per strategy x budget.

    Nothing is written between those compiles, so every load would return the same
    rows; on a 600-turn conversation the repeated loads were most of the run time.
    The compiler still receives exactly what `history_for` returns.
    """
    loader = getattr(chat_services, "history_for", None)
    if loader is None:
        yield
        return
    memo: dict[tuple, Any] = {}

    @functools.wraps(loader)
    def once(*, conversation, **kwargs):
        key = (
            conversation.pk,
            conversation.summarized_through_id,
            tuple(sorted((k, v) for k, v in kwargs.items() if v is not None)),
        )
        if key not in memo:
            memo[key] = loader(conversation=conversation, **kwargs)
        return memo[key]

    with mock.patch.object(chat_services, "history_for", once):
        yield


def _compile_probe(
    run: DriftRun,
    replay: CanvasReplay,
    meta: ProbeMeta,
    *,
    strategies: Sequence[str],
    history_index: HistoryIndex | None,
    capture: bool,
) -> None:
    with history_read_once():
        _compile_strategies(
            run, replay, meta, strategies=strategies, history_index=history_index, capture=capture
        )


def _compile_strategies(
    run: DriftRun,
    replay: CanvasReplay,
    meta: ProbeMeta,
    *,
    strategies: Sequence[str],
    history_index: HistoryIndex | None,
    capture: bool,
) -> None:
    user = replay.user_for(meta.role)
    _, role = canvas_selectors.canvas_for_member(user=user, canvas_id=replay.canvas_id)
    nodes, _, _ = canvas_inputs(canvas_id=replay.canvas_id)
    for strategy in strategies:
        if strategy in ("naive-canvas", "bm25-history"):
            history = (
                chat_services.history_for(conversation=replay.conversation)
                if strategy == "naive-canvas"
                else ()
            )
            for budget in run.options.budgets:
                t = time.perf_counter()
                if strategy == "naive-canvas":
                    c = naive_canvas_compile(
                        nodes=nodes,
                        history=history,
                        question=meta.question,
                        viewport=meta.viewport,
                        budget=budget,
                    )
                else:
                    if history_index is None:  # never: _replay builds it whenever bm25-history is asked for
                        raise RuntimeError("bm25-history needs the history index")
                    c = bm25_history_compile(index=history_index, question=meta.question, budget=budget)
                wall = (time.perf_counter() - t) * 1000
                _record(
                    run,
                    meta=meta,
                    strategy=strategy,
                    budget=budget,
                    messages=c.messages,
                    tokens=c.total_tokens,
                    compile_ms=c.compile_ms,
                    wall_ms=wall,
                    layer_tokens=c.layer_tokens,
                )
            continue
        label = "canvas+capture" if capture else strategy
        for compile_budget in [None] if strategy == "full" else run.options.budgets:
            t = time.perf_counter()
            try:
                # The chat's own entry point with the product's defaults: only strategy and budget vary.
                compiled = chat_services.compile_for(
                    canvas_id=replay.canvas_id,
                    role=role,
                    question=meta.question,
                    viewport=meta.viewport,
                    conversation=replay.conversation,
                    # The remaining strategies are the compiler's own (COMPILER_STRATEGIES).
                    strategy=cast(Strategy, strategy),
                    budget=compile_budget or FULL_BUDGET,
                )
            except BudgetConfigError as exc:
                _record(
                    run,
                    meta=meta,
                    strategy=label,
                    budget=compile_budget,
                    messages=[],
                    tokens=0,
                    compile_ms=0.0,
                    wall_ms=0.0,
                    error=f"budget: {exc}",
                )
                continue
            wall = (time.perf_counter() - t) * 1000
            report = compiled.report
            _record(
                run,
                meta=meta,
                strategy=label,
                budget=compile_budget,
                messages=compiled.messages,
                tokens=report.total_tokens,
                compile_ms=report.timings_ms.get("total", wall),
                wall_ms=wall,
                compiled=compiled,
                nodes=nodes,
                layer_tokens=report.layer_tokens,
            )


def _replay(
    run: DriftRun,
    scenario: Scenario,
    *,
    capture: bool,
    strategies: Sequence[str],
    metas: dict[int, ProbeMeta],
    progress: Progress,
) -> dict:
    """One replay inside a transaction that is rolled back, on the fixed clock with seeded ids."""
    reset_product_caches()
    clock = ReplayClock(CLOCK_START)
    by_turn: dict[int, list[int]] = {}
    for i, probe in enumerate(scenario.probes):
        by_turn.setdefault(probe["after_turn"], []).append(i)
    last = max(by_turn)
    history_index = HistoryIndex() if "bm25-history" in strategies else None
    seed = f"{scenario.id}:{'capture' if capture else 'plain'}"
    with transaction.atomic(), fixed_time_and_ids(clock=clock, seed=seed):
        replay = CanvasReplay(scenario, users=bench_users(), capture=capture, clock=clock)
        for t, turn in enumerate(scenario.turns[: last + 1]):
            replay.play_turn(t, turn, viewport=_probe_viewport(scenario, t))
            if history_index is not None:
                history_index.add(role=turn["role"], content=turn["content"])
            for i in by_turn.get(t, ()):
                meta = metas[i]
                clock.set(replay.probe_time(t))  # every strategy compiles at the same moment
                if not capture:
                    nodes, _, _ = canvas_inputs(canvas_id=replay.canvas_id)
                    classify_probe(meta, nodes)
                _compile_probe(
                    run, replay, meta, strategies=strategies, history_index=history_index, capture=capture
                )
                progress.advance(note=meta.probe_id)
        nodes, edges, _ = canvas_inputs(canvas_id=replay.canvas_id)
        transaction.set_rollback(True)
    history_tokens = sum(count_tokens(t["content"], encoding=TOKEN_CACHE.encoding) for t in scenario.turns)
    return {
        "ops_applied": replay.ops_applied,
        "ops_as_owner": replay.ops_as_owner,
        "op_errors": replay.op_errors,
        "capture": dict(replay.capture_stats),
        "capture_log": replay.capture_log,
        "history_tokens": history_tokens,
        "nodes": len(nodes),
        "edges": len(edges),
    }


def run_drift(scenarios: Sequence[Scenario], options: DriftOptions) -> DriftRun:
    """Replay every scenario (each inside a rolled-back transaction) and compile every probe."""
    # The BM25-over-history reference is in every report, next to whatever product strategies were asked for.
    options.strategies = list(dict.fromkeys([*options.strategies, "bm25-history"]))
    run = DriftRun(options=options)
    want = set(options.strategies)
    plain = [
        s
        for s in ("full", "window", "summary", "canvas", "naive-canvas", "bm25-history")
        if s in want or s == "full"
    ]
    passes = sum(len(s.probes) for s in scenarios) * (1 + int("canvas+capture" in want))
    progress = Progress(passes, label="drift", enabled=options.progress)
    if options.dump_prompts is not None:
        options.dump_prompts.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    for scenario in scenarios:
        metas = {i: _meta(scenario, i, p) for i, p in enumerate(scenario.probes)}
        info: dict[str, Any] = {
            "id": scenario.id,
            "path": scenario.path,
            "set": scenario.source,
            "lang": scenario.lang,
            "turns": len(scenario.turns),
            "probes": len(scenario.probes),
        }
        t = time.perf_counter()
        info.update(_replay(run, scenario, capture=False, strategies=plain, metas=metas, progress=progress))
        info["replay_seconds"] = round(time.perf_counter() - t, 2)
        if "canvas+capture" in want:
            t = time.perf_counter()
            cap = _replay(run, scenario, capture=True, strategies=["canvas"], metas=metas, progress=progress)
            info["capture"] = cap["capture"]
            info["capture_log"] = cap["capture_log"]
            info["capture_op_errors"] = cap["op_errors"]
            info["capture_nodes"] = cap["nodes"]
            info["capture_replay_seconds"] = round(time.perf_counter() - t, 2)
        run.metas.extend(metas[i] for i in sorted(metas))
        run.scenarios.append(info)
    run.replay_seconds = round(time.perf_counter() - t0, 2)
    progress.close()
    for source in dict.fromkeys(s.source for s in scenarios):
        mine = [s for s in scenarios if s.source == source]
        run.sets.append({"label": source, "scenarios": len(mine), "probes": sum(len(s.probes) for s in mine)})
    # `full` is always compiled (it is the token reference); keep its rows only if asked for.
    if "full" not in want:
        run.full_tokens = {r["probe_id"]: r["tokens"] for r in run.results if r["strategy"] == "full"}
        run.results = [r for r in run.results if r["strategy"] != "full"]
        run.model_jobs = [(r, m) for r, m in run.model_jobs if r["strategy"] != "full"]
    return run
