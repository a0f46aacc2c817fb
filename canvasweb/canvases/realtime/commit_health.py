"""The commit thread's connection: health-checked after an idle spell, not before every batch.

`CONN_HEALTH_CHECKS` makes Django test a connection (`SELECT 1` on PostgreSQL) at its first use
after each `close_old_connections()`, and the commit thread runs that around every batch, as
Channels does around every call. On a busy canvas that was one more round trip to the database per
commit, before the batch's own two (realtime/committer.py, services/pipeline.py), waited for while
the canvas's next ops queue: in `bench_sync` at 10 clients, a mean of 2.3 ms of a 13-ms commit.

Here the check is skipped while the connection is known to work: the last batch on this thread
committed on this same connection less than `GROUP_COMMIT_HEALTH_CHECK_IDLE_MS` ago (default 1,000).
After a longer pause, a new connection or a failed batch, it runs as before. A connection that dies
within the window (a database restart under load) fails the batch with a connection error instead
of failing the check: the connection is then closed and the batch applied once more on a new one,
which is what the check would have done. Nothing committed is applied twice: an op whose commit went
through is answered from its receipt on the second try (a duplicate), as in the committer's one-by-one
retry.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from django.db import DEFAULT_DB_ALIAS, InterfaceError, OperationalError, connections

from canvasweb.canvases import services
from canvasweb.common.config import canvasweb_config

logger = logging.getLogger(__name__)

# The attribute, on the thread's Django connection, that names the raw connection the last batch
# committed on and when.
_PROVEN = "_canvasweb_commit_proven"


def idle_seconds() -> float:
    """How long after its last committed batch the connection is used without a health check."""
    return float(canvasweb_config().get("GROUP_COMMIT_HEALTH_CHECK_IDLE_MS", 1000)) / 1000


def skip_health_check() -> bool:
    """Mark the connection checked when a batch committed on it within `idle_seconds()`; True when
    the check was skipped."""
    # Any: the stubs do not declare the health-check attributes Django's wrapper has since 4.1.
    conn: Any = connections[DEFAULT_DB_ALIAS]
    raw = conn.connection
    if raw is None or not conn.health_check_enabled or conn.health_check_done:
        return False
    proven = getattr(conn, _PROVEN, None)
    if proven is None or proven[0] is not raw or time.monotonic() - proven[1] > idle_seconds():
        return False
    conn.health_check_done = True
    return True


def _proven() -> None:
    conn = connections[DEFAULT_DB_ALIAS]
    if conn.connection is not None and not conn.errors_occurred:
        setattr(conn, _PROVEN, (conn.connection, time.monotonic()))


def apply_operations(*, canvas_id: int, requests: list[services.OpRequest]) -> Any:
    """`services.apply_operations` for the committer, on its thread, with the health check above."""
    skipped = skip_health_check()
    try:
        outcome = services.apply_operations(canvas_id=canvas_id, requests=requests)
    except (OperationalError, InterfaceError):
        if not skipped:
            raise
        # The check that was skipped would have replaced a dead connection: do it now, then retry.
        logger.warning(
            "group commit on canvas %s failed on an unchecked connection; retrying on a new one",
            canvas_id,
            exc_info=True,
        )
        conn = connections[DEFAULT_DB_ALIAS]
        setattr(conn, _PROVEN, None)
        conn.close()
        outcome = services.apply_operations(canvas_id=canvas_id, requests=requests)
    _proven()
    return outcome
