"""Fewer database round trips for a group commit: psycopg 3's pipeline mode on PostgreSQL.

In pipeline mode a statement is sent without waiting for the one before it; the client waits only
when it reads a result (or syncs). A group commit's reads (canvas lock, memberships, receipts,
nodes) then cost one round trip instead of five (BEGIN included), and its writes (node rows, log
entries, revision, receipts) one more before COMMIT. The statements, their order and the
transaction are the same; on a loaded machine each round trip is a wake-up of the server process,
which is what a group commit spent most of its time waiting for.

On other databases (SQLite in development and tests) everything here runs the statements one by
one, as before.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from django.db import DEFAULT_DB_ALIAS, connection, connections
from django.db.models import Field, Model, QuerySet
from psycopg import RawCursor


def _no_sync() -> None:
    return None


@contextmanager
def pipelined() -> Iterator[Callable[[], None]]:
    """Pipeline mode for the block (PostgreSQL with psycopg 3); yields `sync`, which waits for every
    statement sent so far and raises the first error among them (a no-op elsewhere).

    Enter it inside `transaction.atomic()`: psycopg syncs when autocommit changes, so a pipeline
    around the atomic block would add a round trip instead of saving one.
    """
    if connection.vendor != "postgresql":
        yield _no_sync
        return
    connection.ensure_connection()
    raw = connection.connection
    start = getattr(raw, "pipeline", None)  # psycopg 2 has no pipeline mode
    if start is None:
        yield _no_sync
        return
    with start() as pipeline:
        yield pipeline.sync


def commit_in_pipeline() -> bool:
    """Queue the COMMIT of the outermost transaction in the open pipeline, behind the writes.

    The writes and COMMIT then reach the server in one round trip instead of two, and the canvas row
    lock is released a round trip sooner (the other server process waits on it). The caller syncs
    the pipeline before returning, so an error in COMMIT is raised inside the atomic block as before.
    Django's own commit at the end of the block then finds the connection idle, and psycopg sends
    nothing. Only in pipeline mode, in an outermost `atomic()` that commits on exit and is not marked
    for rollback; False (nothing done) otherwise.
    """
    if connection.vendor != "postgresql":
        return False
    raw = connection.connection
    pgconn = getattr(raw, "pgconn", None)
    if pgconn is None or not pgconn.pipeline_status:
        return False
    if len(connection.atomic_blocks) != 1 or not connection.commit_on_exit or connection.needs_rollback:
        return False
    # Not through a Django cursor: it stands for the COMMIT Django would send, which is not counted
    # as a query either.
    raw.execute("COMMIT")
    return True


class Pending:
    """A query sent now whose rows are read later (in pipeline mode, with the others' in one trip)."""

    def __init__(self, queryset: QuerySet[Any, Any]) -> None:
        compiler = queryset.query.get_compiler(using=connection.alias)
        sql, params = compiler.as_sql()
        self._send(queryset.model, sql, params, _converters(compiler))

    @classmethod
    def select(
        cls,
        key: str,
        base: Callable[[], QuerySet[Any, Any]],
        where: list[tuple[str, list[Any]]],
        *,
        for_update: bool = False,
    ) -> Pending:
        """`base()`'s SELECT (columns, joins, conversions: compiled by the ORM once per process under
        `key`, unordered; it must have no WHERE) with `where` (SQL fragments and their parameters,
        ANDed).

        A group commit's reads differ only in their WHERE values; compiling them through the ORM each
        time cost about a third of a lone op's CPU time."""
        cached = _BASE_SELECTS.get((connection.vendor, key))
        if cached is None:
            queryset = base().order_by()
            compiler = queryset.query.get_compiler(using=connection.alias)
            sql, params = compiler.as_sql()
            if params or any(clause in sql for clause in (" WHERE ", " LIMIT ", " GROUP BY ")):
                raise ValueError(f"the base select {key!r} must be a plain SELECT: {sql}")
            converters = _converters(compiler)
            cached = _BASE_SELECTS[(connection.vendor, key)] = (queryset.model, sql, converters)
        model, sql, converters = cached
        params = [value for _, values in where for value in values]
        sql = f"{sql} WHERE {' AND '.join(f'({fragment})' for fragment, _ in where)}"
        if for_update and connection.features.has_select_for_update:
            sql += " FOR UPDATE"
        pending = cls.__new__(cls)
        pending._send(model, sql, params, converters)
        return pending

    def _send(self, model: type[Model], sql: str, params: Any, converters: dict[int, Any]) -> None:
        self.model = model
        self.converters = converters
        self.cursor = bound_cursor(sql)
        self.cursor.execute(sql, params)

    def rows(self) -> list[tuple[Any, ...]]:
        """The rows with the fields' own conversions applied (JSON parsed, …), as the ORM returns them."""
        try:
            raw = self.cursor.fetchall()
        finally:
            self.cursor.close()
        if not self.converters:
            return [tuple(row) for row in raw]
        conn = connections[DEFAULT_DB_ALIAS]
        out = []
        for row in raw:
            values = list(row)
            for position, (functions, expression) in self.converters.items():
                value = values[position]
                for function in functions:
                    value = function(value, expression, conn)
                values[position] = value
            out.append(tuple(values))
        return out

    def instances(self, *, related: str | None = None) -> list[Model]:
        """Rows of a plain queryset of the model as instances; with `related`, of a queryset with
        select_related(related) on one forward foreign key (its columns follow the model's)."""
        names = [f.attname for f in self.model._meta.concrete_fields]
        link: Any = self.model._meta.get_field(related) if related else None
        other: Any = link.related_model if link is not None else None
        other_names = [f.attname for f in other._meta.concrete_fields] if other is not None else []
        alias = DEFAULT_DB_ALIAS
        out = []
        for row in self.rows():
            if len(row) != len(names) + len(
                other_names
            ):  # not the queryset described: refuse, don't mislabel
                raise ValueError(f"expected {len(names) + len(other_names)} columns, got {len(row)}")
            instance = self.model.from_db(alias, names, row[: len(names)])
            if link is not None:
                rest = row[len(names) :]
                target = None if rest[0] is None else other.from_db(alias, other_names, rest)
                link.set_cached_value(instance, target)
            out.append(instance)
        return out


def _converters(compiler: Any) -> dict[int, Any]:
    converters: dict[int, Any] = compiler.get_converters(
        [s[0] for s in compiler.select[0 : compiler.col_count]]
    )
    return converters


# (vendor, key) -> (model, SQL without WHERE, converters by column position)
_BASE_SELECTS: dict[tuple[str, str], tuple[type[Model], str, dict[int, Any]]] = {}


def _field(model: type[Model], name: str) -> Field[Any, Any]:
    field = model._meta.get_field(name)
    if not isinstance(field, Field):  # a reverse relation has no column of this table
        raise ValueError(f"{model.__name__}.{name} is not a column")
    return field


def column(model: type[Model], name: str) -> str:
    """The quoted "table"."column" of a model's field, for a WHERE fragment."""
    quote = connection.ops.quote_name
    return f"{quote(model._meta.db_table)}.{quote(str(_field(model, name).column))}"


def equals(model: type[Model], name: str, value: Any) -> tuple[str, list[Any]]:
    return f"{column(model, name)} = %s", [_field(model, name).get_db_prep_value(value, connection)]


def one_of(model: type[Model], name: str, values: Any) -> tuple[str, list[Any]]:
    """`field IN (…)` over distinct values, each prepared as the ORM prepares it (a UUID is text on
    SQLite), in a stable order."""
    field = _field(model, name)
    conn = connections[DEFAULT_DB_ALIAS]
    prepared = sorted({field.get_db_prep_value(v, conn) for v in values}, key=str)
    if not prepared:
        raise ValueError("one_of needs at least one value")
    return f"{column(model, name)} IN ({', '.join(['%s'] * len(prepared))})", prepared


def insert_rows(
    model: type[Model], objs: list[Any], *, ignore_conflicts: bool = False, stamped: bool = False
) -> None:
    """INSERT `objs` in one statement without reading anything back.

    Unlike bulk_create on PostgreSQL: no RETURNING, which in pipeline mode waits for a round trip of
    its own; and a plain VALUES list rather than UNNEST of one array per column, because psycopg's
    client-side binding escapes each array element in Python (a fifth of a group commit's CPU time).
    An auto-increment `pk` is left to the database and stays unset on the objects: only for rows
    nobody reads back in this transaction. With `stamped`, the objects' `auto_now`/`auto_now_add`
    times are written as set (the caller already showed them), not stamped anew.

    The statement is the ORM's own: compiled through it once per process for one row (per model,
    conflict mode and vendor), then repeated per row with each value prepared as the ORM prepares it.
    Compiling the INSERTs and the canvas UPDATE anew for every batch was about a tenth of a group
    commit's CPU time (15 % for a lone op).
    """
    if not objs:
        return
    statement = insert_statement(model, objs, ignore_conflicts=ignore_conflicts, stamped=stamped)
    if statement is None:
        fields = _insert_fields(model)
        _orm_insert(model, fields, objs, ignore_conflicts=ignore_conflicts, stamped=stamped)
        return
    with bound_cursor(statement[0]) as cursor:
        cursor.execute(*statement)


def insert_statement(
    model: type[Model], objs: list[Any], *, ignore_conflicts: bool = False, stamped: bool = False
) -> tuple[str, list[Any]] | None:
    """insert_rows' statement and parameters without the ORM's compiler; None: the ORM must compile it."""
    fields = _insert_fields(model)
    conn = connections[DEFAULT_DB_ALIAS]  # once: each `connection.x` is a thread-local lookup
    key = (conn.vendor, model, ignore_conflicts)
    if key not in _INSERT_SHAPES:
        _INSERT_SHAPES[key] = _insert_shape(model, fields, objs[0], ignore_conflicts, stamped)
    shape = _INSERT_SHAPES[key]
    if shape is None:
        return None
    params: list[Any] = []
    for obj in objs:
        for field in fields:
            value = getattr(obj, field.attname) if stamped else field.pre_save(obj, add=True)
            if hasattr(value, "resolve_expression"):  # an expression: the ORM compiles it
                return None
            params.append(field.get_db_prep_save(value, connection=conn))
    head, row, tail = shape
    return f"{head}{', '.join([row] * len(objs))}{tail}", params


# (vendor, model, ignore_conflicts) -> (statement up to the first row, one row's placeholders, the
# rest), or None when the ORM's statement is not of that form (then every call goes through the ORM)
_INSERT_SHAPES: dict[tuple[str, type[Model], bool], tuple[str, str, str] | None] = {}


def _insert_fields(model: type[Model]) -> list[Field[Any, Any]]:
    from django.db.models import AutoField, BigAutoField, SmallAutoField

    auto_pk = isinstance(model._meta.pk, AutoField | BigAutoField | SmallAutoField)
    return [
        f
        for f in model._meta.concrete_fields
        if not (f.primary_key and auto_pk) and not getattr(f, "generated", False)
    ]


def _insert_compiler(
    model: type[Model],
    fields: list[Field[Any, Any]],
    objs: list[Any],
    *,
    ignore_conflicts: bool,
    stamped: bool,
) -> Any:
    from django.db.models.constants import OnConflict
    from django.db.models.sql import InsertQuery
    from django.db.models.sql.compiler import SQLInsertCompiler

    query = InsertQuery(model, on_conflict=OnConflict.IGNORE if ignore_conflicts else None)
    query.insert_values(fields, objs, raw=stamped)
    compiler = query.get_compiler(using=connection.alias)
    # The generic VALUES form, not the PostgreSQL compiler's UNNEST specialization (see above).
    compiler.assemble_as_sql = SQLInsertCompiler.assemble_as_sql.__get__(compiler)
    return compiler


def _orm_insert(
    model: type[Model],
    fields: list[Field[Any, Any]],
    objs: list[Any],
    *,
    ignore_conflicts: bool,
    stamped: bool,
) -> None:
    compiler = _insert_compiler(model, fields, objs, ignore_conflicts=ignore_conflicts, stamped=stamped)
    compiler.execute_sql(returning_fields=None)


def _insert_shape(
    model: type[Model], fields: list[Field[Any, Any]], sample: Any, ignore_conflicts: bool, stamped: bool
) -> tuple[str, str, str] | None:
    """The ORM's one-row INSERT split around its row, when that row is plain placeholders."""
    if not connection.features.has_bulk_insert:  # one statement per row: the ORM's way only
        return None
    compiler = _insert_compiler(model, fields, [sample], ignore_conflicts=ignore_conflicts, stamped=stamped)
    statements = compiler.as_sql()
    if len(statements) != 1:
        return None
    sql = statements[0][0]
    row = f"({', '.join(['%s'] * len(fields))})"
    if sql.count(row) != 1 or sql.count("%s") != len(fields):
        return None
    head, tail = sql.split(row)
    return head, row, tail


def update_row(model: type[Model], pk: Any, **values: Any) -> None:
    """`model.objects.filter(pk=pk).update(**values)` for plain field values, with the statement
    compiled through the ORM once per process (per vendor, model, fields and which values are None)."""
    if any(hasattr(value, "resolve_expression") for value in values.values()):
        model._default_manager.filter(pk=pk).update(**values)  # an expression: the ORM compiles it
        return
    sql, params = update_statement(model, pk, **values)
    with bound_cursor(sql) as cursor:
        cursor.execute(sql, params)


def update_statement(model: type[Model], pk: Any, **values: Any) -> tuple[str, list[Any]]:
    """update_row's statement and parameters (plain values only)."""
    names = tuple(values)
    key = (connection.vendor, model, names, tuple(values[n] is None for n in names))
    sql = _UPDATE_SQL.get(key)
    if sql is None:
        from django.db.models import Q
        from django.db.models.sql import UpdateQuery

        query = UpdateQuery(model)
        query.add_update_values(values)
        query.add_q(Q(pk=pk))
        sql, _ = query.get_compiler(using=connection.alias).as_sql()
        _UPDATE_SQL[key] = sql
    # Values in SET order; None is written as a literal NULL, as the ORM does; then the pk.
    conn = connections[DEFAULT_DB_ALIAS]
    params = [
        _field(model, n).get_db_prep_save(values[n], connection=conn) for n in names if values[n] is not None
    ]
    pk_field = model._meta.pk
    if pk_field is None:
        raise ValueError(f"{model.__name__} has no primary key")
    params.append(pk_field.get_db_prep_value(pk, conn))
    return sql, params


_UPDATE_SQL: dict[tuple[str, type[Model], tuple[str, ...], tuple[bool, ...]], str] = {}


# ---------------------------------------------------------------- server-side binding
# Django's psycopg 3 cursors bind parameters on the client: psycopg parses every statement for its
# %s placeholders (with a regular expression; a group commit's multi-row INSERT is too long for its
# cache) and quotes each value into the text in Python. That was a quarter of a group commit's CPU
# time. The statements here are the ORM's own, with plain %s placeholders and values the ORM
# prepared: they go to PostgreSQL as they are, with the placeholders numbered once per statement
# text and the values sent beside the statement (dumped by psycopg's C adapters).


def native_sql(sql: str) -> str | None:
    """`sql` with its %s placeholders numbered $1, $2, … (PostgreSQL's own form); None when it holds
    any other % sequence (%% or a named placeholder), which only psycopg's own parser should read."""
    hit = _NATIVE_SQL.get(sql)
    if hit is not None:
        return hit or None
    parts = sql.split("%s")
    if any("%" in part or "$" in part for part in parts):
        native = ""
    else:
        native = "".join([f"{part}${n}" for n, part in enumerate(parts[:-1], 1)]) + parts[-1]
    if len(sql) <= _NATIVE_SQL_MAX_LENGTH:  # multi-row INSERTs vary by row count: not kept
        if len(_NATIVE_SQL) >= _NATIVE_SQL_MAX_ENTRIES:
            _NATIVE_SQL.clear()
        _NATIVE_SQL[sql] = native
    return native or None


_NATIVE_SQL: dict[str, str] = {}  # "" for a statement that must go through psycopg's parser
_NATIVE_SQL_MAX_ENTRIES = 512
_NATIVE_SQL_MAX_LENGTH = 4096


class _NumberedCursor(RawCursor[Any]):
    """A psycopg cursor with server-side binding that takes the ORM's %s placeholders."""

    def execute(self, query: Any, params: Any = None, **kwargs: Any) -> Any:
        return super().execute(native_sql(query) or query, params, **kwargs)

    def executemany(self, query: Any, params_seq: Any, **kwargs: Any) -> Any:
        return super().executemany(native_sql(query) or query, params_seq, **kwargs)


def bound_cursor(sql: str) -> Any:
    """A Django cursor (logged, wrapped, error-translated like `connection.cursor()`) for running
    `sql`; on PostgreSQL with psycopg 3 one that binds its values on the server."""
    conn = connections[DEFAULT_DB_ALIAS]
    if (
        conn.vendor != "postgresql"
        or native_sql(sql) is None
        or not hasattr(conn.connection, "pgconn")  # not connected yet
    ):
        return conn.cursor()
    conn.close_if_health_check_failed()
    conn.validate_thread_sharing()
    with conn.wrap_database_errors:
        raw: Any = _NumberedCursor(conn.connection)
        _same_timezone(conn, raw)
    return conn.make_debug_cursor(raw) if conn.queries_logged else conn.make_cursor(raw)


def _same_timezone(conn: Any, cursor: Any) -> None:
    """As Django's own cursors: timestamps read in the connection's current time zone."""
    from django.db.backends.postgresql.psycopg_any import register_tzloader
    from psycopg import adapters
    from psycopg.pq import Format

    loader = conn.connection.adapters.get_loader(adapters.types["timestamptz"].oid, Format.TEXT)
    if conn.timezone != loader.timezone:
        register_tzloader(conn.timezone, cursor)
