"""`--model`: send each compiled prompt to the configured model and score its answer.

An answer is correct when it contains every `expect_all` string and no
`forbid` string (the same case-insensitive matching as in-prompt recall).
Requests run on one event loop with at most `model_concurrency` in flight;
each has the product's SDK timeout (`LLM_TIMEOUT_SECONDS`, or `--model-timeout`)
and, on top, the same wall-clock limit for the whole streamed answer.
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
from typing import TextIO

from ..common import Progress
from .run import DriftRun
from .scoring import score_answer


def ask_model(run: DriftRun, *, stderr: TextIO | None = None) -> None:
    from canvasweb.chat.llm import ModelConfig, ModelError, ModelNotConfigured, stream_chat

    config = ModelConfig.from_settings()
    if not config.configured:
        run.model_info = {"requested": True, "configured": False, "skipped": ModelNotConfigured.message}
        return
    if run.options.model_timeout:
        config = dataclasses.replace(config, timeout=float(run.options.model_timeout))
    run.model_info = {
        "requested": True,
        "configured": True,
        "model": config.model,
        "base_url": config.base_url,
        "concurrency": max(1, run.options.model_concurrency),
        "timeout_s": config.timeout,
    }
    metas = {m.probe_id: m for m in run.metas}
    progress = Progress(len(run.model_jobs), label="model", enabled=run.options.progress, stream=stderr)

    async def answer(messages: list[dict]) -> str:
        parts: list[str] = []
        async for event in stream_chat(config, messages=messages):
            if event.kind == "delta":
                parts.append(event.text)
        return "".join(parts)

    async def one(sem: asyncio.Semaphore, result: dict, messages: list[dict]) -> None:
        async with sem:
            t = time.perf_counter()
            text, error = "", None
            try:
                text = await asyncio.wait_for(answer(messages), timeout=config.timeout)
            except ModelError as exc:
                error = exc.message
            except TimeoutError:
                error = f"no complete answer within {config.timeout:g} s"
            s = score_answer(metas[result["probe_id"]], text)
            result["model"] = {
                "answer": text[:2000],
                "error": error,
                "latency_ms": round((time.perf_counter() - t) * 1000),
                "correct": error is None and s["correct"],
                "recall_hit": error is None and s["recall_hit"],
                "missing": s["missing"],
                "forbid_found": s["forbid_found"],
            }
            progress.advance(note=result["probe_id"])

    async def main() -> None:
        sem = asyncio.Semaphore(max(1, run.options.model_concurrency))
        await asyncio.gather(*(one(sem, r, m) for r, m in run.model_jobs))

    asyncio.run(main())
    progress.close()
