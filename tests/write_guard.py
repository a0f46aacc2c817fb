"""A guard that fails any test in which a canvas row is written outside the write path.

Installed for every test by tests/conftest.py. It wraps every SQL statement
(`connection.execute_wrapper`, on the current connection and on every new one),
so it sees what save/delete signals never do: `QuerySet.update()`,
`bulk_create()`, cascades and raw SQL. An INSERT, UPDATE or DELETE on a canvas
table must have a module of `canvasweb/canvases/services/` on the call stack, when the
statement comes from Canvasweb or test code (Django's own test-database flush
does not).
"""

from __future__ import annotations

import re
import sys

from django.db import connections
from django.db.backends.signals import connection_created

WRITE_PATH_DIR = "/canvasweb/canvases/services/"
GUARDED_TABLES = (
    "canvases_canvas",
    "canvases_membership",
    "canvases_node",
    "canvases_edge",
    "canvases_opreceipt",
    "history_changelogentry",
)
_WRITE_SQL = re.compile(
    r"^\s*(?:INSERT\s+(?:OR\s+\w+\s+)?INTO|UPDATE|DELETE\s+FROM)\s+[\"`]?(\w+)[\"`]?", re.IGNORECASE
)
# Frames from these files are what "our code" means; anything else (pytest-django's flush) is not watched.
_OWN_CODE = ("/canvasweb/", "/tests/")
_IGNORED_FILES = ("/tests/write_guard.py",)


class WriteOutsideServiceError(AssertionError):
    pass


def written_table(sql: str) -> str | None:
    match = _WRITE_SQL.match(sql or "")
    if match is None:
        return None
    table = match.group(1).lower()
    return table if table in GUARDED_TABLES else None


def _stack_verdict() -> tuple[bool, bool]:
    """(a services module on the stack, any Canvasweb or test frame on the stack)."""
    frame = sys._getframe(2)
    own = False
    while frame is not None:
        filename = frame.f_code.co_filename.replace("\\", "/")
        if WRITE_PATH_DIR in filename:
            return True, True
        if (
            any(part in filename for part in _OWN_CODE)
            and not filename.endswith(_IGNORED_FILES)
            and "/migrations/" not in filename
        ):
            own = True
        frame = frame.f_back
    return False, own


def guard(execute, sql, params, many, context):
    table = written_table(sql)
    if table is not None:
        in_services, own = _stack_verdict()
        if own and not in_services:
            raise WriteOutsideServiceError(
                f"{table} written outside canvasweb/canvases/services/: {str(sql)[:120]}"
            )
    return execute(sql, params, many, context)


def _add(connection) -> None:
    if guard not in connection.execute_wrappers:
        connection.execute_wrappers.append(guard)


def _on_connection_created(sender, connection, **kwargs):
    _add(connection)


def install() -> list:
    for connection in connections.all(initialized_only=True):
        _add(connection)
    for alias in connections:
        _add(connections[alias])
    connection_created.connect(_on_connection_created, dispatch_uid="canvasweb-write-guard")
    return list(connections)


def uninstall(aliases: list) -> None:
    connection_created.disconnect(dispatch_uid="canvasweb-write-guard")
    for connection in connections.all(initialized_only=True):
        while guard in connection.execute_wrappers:
            connection.execute_wrappers.remove(guard)
