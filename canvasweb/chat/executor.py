"""Where compile, capture and index work runs: worker processes (default), threads, or inline.

Channels runs every `database_sync_to_async` call on one shared thread (in
Daphne, the thread-sensitive executor). A context compile on a large canvas
(an index catch-up, fact capture, selection, rendering, token counting) takes
milliseconds to seconds of CPU. On that thread it held up every socket's ops;
on a thread of its own it still held the GIL, which raised every socket's
ack latency by ~45 % during a long compile (docs/benchmarks.md, stall). So
`CANVASWEB["COMPILE_MODE"]`:

* ``process`` (default): `COMPILE_WORKERS` worker processes (spawned, so no
  forked sockets or locks; each runs `django.setup()` with the parent's
  database, CANVASWEB and LLM settings) at a lower CPU priority
  (`COMPILE_WORKER_NICE`, default 10). Each worker is its own one-process
  pool and a canvas always goes to the same worker (`canvas_id` mod workers),
  so that worker's incremental canvas index (chat/context_inputs.py) stays
  warm: the next turn after an edit reads the change log since its cached
  revision, as before, and applies it in place (a worker runs one call at a
  time). Inputs and results cross as pickles: model instances, plain dicts,
  the compiled context; functions are sent by reference.
* ``thread``: a thread pool in this process (copy-on-write index updates).
* ``inline``: in the calling thread (tests, management commands).

A worker that dies (killed, out of memory) fails its call with
`CompileUnavailable` (a clean error for the user, never a hung turn); its pool
is replaced, so the next call gets a new worker. Reads use the worker's own
database connection, no transaction is held, and writes (if any) stay in the
caller's next `database_sync_to_async` step.
"""

from __future__ import annotations

import functools
import logging
import multiprocessing
import os
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import Executor, Future, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import close_old_connections, connections

from canvasweb.common.errors import CanvasError

logger = logging.getLogger(__name__)

MODES = ("process", "thread", "inline")


class CompileUnavailable(CanvasError):
    code = "COMPILE_UNAVAILABLE"
    http_status = 503


_GUARD = threading.Lock()
_THREADS: ThreadPoolExecutor | None = None
_PROCESSES: list[ProcessPoolExecutor | None] = []
_PROCESS_KEY: tuple | None = None  # the settings the worker processes were started with


def mode() -> str:
    value = str(settings.CANVASWEB.get("COMPILE_MODE", "process")).lower()
    return value if value in MODES else "process"


# --- threads -------------------------------------------------------------------------------


def _thread_executor() -> ThreadPoolExecutor:
    global _THREADS
    with _GUARD:
        if _THREADS is None:
            threads = max(1, int(settings.CANVASWEB.get("COMPILE_THREADS", 2)))
            # A compile in a thread holds the GIL; the event loop waits up to one switch interval
            # each time it wants it back. 1 ms instead of 5 ms keeps that wait short.
            sys.setswitchinterval(min(sys.getswitchinterval(), 0.001))
            _THREADS = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="canvasweb-compile")
        return _THREADS


def with_fresh_connection(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    close_old_connections()
    try:
        return fn(*args, **kwargs)
    finally:
        close_old_connections()


# --- processes -----------------------------------------------------------------------------


def _worker_settings() -> dict:
    """What a worker needs to see the same database and behave the same (picklable)."""
    databases = {alias: dict(connections[alias].settings_dict) for alias in connections}
    return {"DATABASES": databases, "CANVASWEB": dict(settings.CANVASWEB), "LLM": dict(settings.LLM)}


def _settings_key(values: dict) -> tuple:
    db = values["DATABASES"].get("default", {})
    return (
        db.get("ENGINE"),
        str(db.get("NAME")),
        db.get("HOST"),
        db.get("PORT"),
        repr(sorted(values["LLM"].items())),
        repr(sorted((k, repr(v)) for k, v in values["CANVASWEB"].items() if k != "COMPILE_MODE")),
    )


PARENT_CHECK_SECONDS = 1.0


def _exit_when_orphaned(parent_pid: int) -> None:
    # A worker holds both ends of its own queue pipes, so it never reads EOF when its server is
    # SIGKILLed: without this it would live on, reparented, holding a database connection.
    while True:
        time.sleep(PARENT_CHECK_SECONDS)
        if os.getppid() != parent_pid:
            os._exit(0)


def _init_worker(settings_module: str, values: dict) -> None:
    """Runs once in each spawned worker: Django with the parent's database and settings."""
    threading.Thread(
        target=_exit_when_orphaned, args=(os.getppid(),), name="parent-watch", daemon=True
    ).start()
    os.environ["DJANGO_SETTINGS_MODULE"] = settings_module
    try:
        # Below the sockets' priority: when the cores are busy, acks and broadcasts get the CPU first
        # and a long compile takes longer (background work), not the other way round.
        os.nice(int(values["CANVASWEB"].get("COMPILE_WORKER_NICE", 10)))
    except (OSError, ValueError):
        pass
    os.environ["CANVASWEB_COMPILE_MODE"] = "inline"  # a worker never starts workers of its own
    import django

    django.setup()
    from django.conf import settings as worker_settings

    for name in ("CANVASWEB", "LLM"):
        setattr(worker_settings, name, values[name])
    worker_settings.CANVASWEB = {**values["CANVASWEB"], "COMPILE_MODE": "inline"}
    worker_settings.DATABASES = values["DATABASES"]
    for alias in list(connections):
        connections[alias].close()
        del connections[alias]  # the connection object keeps its settings_dict
    connections.__dict__.pop("settings", None)  # rebuilt from these DATABASES on first use
    connections._settings = None  # type: ignore[attr-defined]  # set in BaseConnectionHandler.__init__, absent from django-stubs
    from . import context_inputs

    # One call at a time in a worker: the canvas cache may be brought up to date in place.
    context_inputs.IN_PLACE_UPDATES = True


def _process_executor(key: int) -> tuple[int, ProcessPoolExecutor]:
    global _PROCESS_KEY
    values = _worker_settings()
    wanted = _settings_key(values)
    with _GUARD:
        workers = max(1, int(settings.CANVASWEB.get("COMPILE_WORKERS", 2)))
        if _PROCESS_KEY != wanted or len(_PROCESSES) != workers:
            _shutdown_processes_locked()  # settings changed (a benchmark's temporary database): new workers
            _PROCESSES.extend([None] * workers)
            _PROCESS_KEY = wanted
        slot = key % workers
        pool = _PROCESSES[slot]
        if pool is None:
            pool = _PROCESSES[slot] = ProcessPoolExecutor(
                max_workers=1,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_init_worker,
                initargs=(os.environ.get("DJANGO_SETTINGS_MODULE", "canvasweb.config.settings"), values),
            )
        return slot, pool


def _replace_broken(slot: int, pool: ProcessPoolExecutor) -> None:
    with _GUARD:
        if slot < len(_PROCESSES) and _PROCESSES[slot] is pool:
            _PROCESSES[slot] = None  # the next call starts a new worker
    pool.shutdown(wait=False, cancel_futures=True)


def _shutdown_processes_locked() -> None:
    for pool in _PROCESSES:
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)
    _PROCESSES.clear()


def shutdown() -> None:
    """Stop the worker processes and threads (tests, benchmarks; they also end with the process)."""
    global _THREADS, _PROCESS_KEY
    with _GUARD:
        _shutdown_processes_locked()
        _PROCESS_KEY = None
        if _THREADS is not None:
            _THREADS.shutdown(wait=False)
            _THREADS = None


def worker_pids() -> list[int]:
    """The live worker processes' pids (tests)."""
    with _GUARD:
        return [
            pid for pool in _PROCESSES if pool is not None for pid in getattr(pool, "_processes", {}) or {}
        ]


def _unavailable(exc: BaseException) -> CompileUnavailable:
    logger.error("a compile worker died (%s); starting a new one", exc)
    return CompileUnavailable("The context worker stopped unexpectedly; please try again.")


# --- the calls -----------------------------------------------------------------------------


def submit(fn: Callable[..., Any], /, *args: Any, key: int = 0, **kwargs: Any) -> tuple[Future, Callable]:
    """(future, on_broken) for fn(*args, **kwargs) in the configured mode; `key` picks the worker."""
    chosen = mode()
    if chosen == "process":
        slot, pool = _process_executor(key)
        try:
            return pool.submit(with_fresh_connection, fn, *args, **kwargs), functools.partial(
                _replace_broken, slot, pool
            )
        except BrokenProcessPool:
            _replace_broken(slot, pool)
            slot, pool = _process_executor(key)
            return pool.submit(with_fresh_connection, fn, *args, **kwargs), functools.partial(
                _replace_broken, slot, pool
            )
    executor: Executor = _thread_executor()
    return executor.submit(with_fresh_connection, fn, *args, **kwargs), lambda: None


def run(fn: Callable[..., Any], /, *args: Any, key: int = 0, **kwargs: Any) -> Any:
    """fn(*args, **kwargs) in the configured mode, waited for (sync callers: the REST views)."""
    if mode() == "inline":
        return fn(*args, **kwargs)
    future, on_broken = submit(fn, *args, key=key, **kwargs)
    try:
        return future.result()
    except BrokenProcessPool as exc:
        on_broken()
        raise _unavailable(exc) from None


async def off_db_thread(fn: Callable[..., Any], /, *args: Any, key: int = 0, **kwargs: Any) -> Any:
    """await fn(*args, **kwargs) in the configured mode, never on the database thread."""
    import asyncio

    chosen = mode()
    if chosen == "inline":
        call = functools.partial(with_fresh_connection, fn, *args, **kwargs)
        return await sync_to_async(call, thread_sensitive=False)()
    future, on_broken = submit(fn, *args, key=key, **kwargs)
    try:
        return await asyncio.wrap_future(future)
    except BrokenProcessPool as exc:
        on_broken()
        raise _unavailable(exc) from None


def _ready() -> int:
    return os.getpid()


def prewarm(*, key: int = 0) -> None:
    """Start the worker for `key` in the background (a spawned worker takes a second or two)."""
    if mode() != "process":
        return
    try:
        submit(_ready, key=key)
    except Exception:
        logger.warning("could not start a compile worker", exc_info=True)


def worker_info() -> dict:
    """Where a call ran and which database it saw (tests, diagnostics)."""
    return {
        "pid": os.getpid(),
        "database": str(connections["default"].settings_dict.get("NAME")),
        "mode": mode(),
    }
