"""A thread pool for compile, capture and index work, apart from the database thread.

Channels runs every `database_sync_to_async` call on one shared thread (in
Daphne, the thread-sensitive executor). A context compile on a large canvas
(an index catch-up, fact capture, selection, rendering, token counting) takes
milliseconds to seconds of CPU; on that thread it held up every socket's ops.
`off_db_thread(fn)` runs it here instead: its reads use this thread's own
database connection, it holds no transaction, and its writes (if any) stay
in the caller's next `database_sync_to_async` step.
"""
from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from asgiref.sync import sync_to_async
from django.db import close_old_connections

from canvasweb.common.config import canvasweb_config

_EXECUTOR: ThreadPoolExecutor | None = None


def executor() -> ThreadPoolExecutor:
    global _EXECUTOR
    if _EXECUTOR is None:
        threads = max(1, int(canvasweb_config().get("COMPILE_THREADS", 2)))
        # A compile is pure Python and holds the GIL; the event loop (every socket) waits up to one
        # switch interval each time it wants it back. 1 ms instead of 5 ms keeps that wait short.
        sys.setswitchinterval(min(sys.getswitchinterval(), 0.001))
        _EXECUTOR = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="canvasweb-compile")
    return _EXECUTOR


def _with_fresh_connection(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    close_old_connections()
    try:
        return fn(*args, **kwargs)
    finally:
        close_old_connections()


async def off_db_thread(fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Any:
    """await fn(*args, **kwargs) on the compile pool."""
    call = functools.partial(_with_fresh_connection, fn, *args, **kwargs)
    return await sync_to_async(call, thread_sensitive=False, executor=executor())()
