"""The row lock an approve or reject takes, as PostgreSQL gets it (the suites run on SQLite, which
ignores FOR UPDATE: there every approve and reject was a 500, "FOR UPDATE cannot be applied to the
nullable side of an outer join")."""

from __future__ import annotations

import copy

from django.db import connections
from django.db.backends.postgresql.base import DatabaseWrapper

from canvasweb.agent.services import _locked_proposals


def _postgres_sql(queryset) -> str:
    settings = copy.deepcopy(connections["default"].settings_dict)
    settings.update(ENGINE="django.db.backends.postgresql", NAME="unused", OPTIONS={})
    wrapper = DatabaseWrapper(settings, alias="pg-compile-only")  # never connects
    wrapper.get_autocommit = lambda: False  # as inside the decision's transaction
    sql, _params = queryset.query.get_compiler(connection=wrapper).as_sql()
    return sql


def test_only_the_proposal_row_is_locked_not_the_outer_joined_ones():
    sql = _postgres_sql(_locked_proposals().filter(pk=1))
    assert "LEFT OUTER JOIN" in sql  # run / decided_by are nullable
    assert sql.endswith('FOR UPDATE OF "agent_proposal"'), sql[-120:]
