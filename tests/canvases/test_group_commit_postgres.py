"""Group commit on PostgreSQL, where it runs in psycopg pipeline mode (canvases/services/pipeline.py):
the same answers, revisions, receipts and log chain as one statement at a time."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from canvasweb.testing.servers import Cluster, create_postgres_database, drop_postgres_database
from tests.service_env import require_env

SCRIPT = Path(__file__).with_name("pg_pipeline_script.py")


@pytest.fixture(scope="module")
def report():
    database_url = create_postgres_database(require_env("TEST_DATABASE_URL"))
    cluster = Cluster(database_url=database_url, redis_url=None)
    try:
        cluster.migrate()
        done = subprocess.run(
            [sys.executable, str(SCRIPT)],
            cwd=SCRIPT.parents[2],
            # The script's folder, not the checkout, is first on its path: name the checkout, or an
            # installed copy of canvasweb (another worktree's) would run instead.
            env={**cluster.env(), "PYTHONPATH": str(SCRIPT.parents[2])},
            capture_output=True,
            text=True,
            timeout=180,
        )
        assert done.returncode == 0, done.stderr
        yield json.loads(done.stdout.strip().splitlines()[-1])
    finally:
        drop_postgres_database(database_url)


def test_it_ran_on_postgres(report):
    assert report["vendor"] == "postgresql"


def test_reads_without_per_call_compiling_match_the_orm(report):
    assert report["select_differences"] == []


def test_group_commit_statements_bind_their_values_on_the_server(report):
    # psycopg's RawCursor (values sent beside the statement, no client-side parsing or quoting) for
    # the batch's reads and writes; the general op in the batch (node.archive) goes through the ORM.
    cursors = report["batch_cursors"]
    for start in (
        'SELECT "canvases_canvas"."id",',  # the canvas lock
        'SELECT "canvases_membership"',
        'INSERT INTO "history_changelogentry"',
        'INSERT INTO "canvases_opreceipt"',
        'UPDATE "canvases_canvas" SET',
        'UPDATE "canvases_node" SET',
    ):
        kinds = {kind for head, used in cursors.items() if head.startswith(start) for kind in used}
        assert "RawCursor" in kinds, (start, cursors)


def test_writes_without_per_call_compiling_match_the_orm(report):
    assert report["write_differences"] == []


def test_refusals_stay_per_op_and_the_rest_commit_in_order(report):
    results, start = report["results"], report["start"]
    assert results[1] == {"error": "FORBIDDEN"}
    assert results[2] == {"error": "INVALID"} or results[2] == {"error": "CONFLICT"}
    committed = [results[i]["revision"] for i in (0, 3, 4, 6, 7)]
    assert committed == [start + 1, start + 2, start + 3, start + 4, start + 5]
    assert report["event_revisions"] == committed
    assert report["revision"] == start + 6  # + the lone move at the end
    positions, ids = report["positions"], report["ids"]
    assert positions[ids[0]] == [11.0, 1.0]
    assert positions[ids[1]] == [14.0, 2.0]
    assert report["archived"] == [ids[2]]
    assert positions[report["fresh"]] == [5.0, 5.0]


def test_receipts_read_in_the_pipeline_come_back_parsed(report):
    resent = report["results"][5]
    assert resent["duplicate"] is True
    assert resent["changes"][0]["entity"] == "node"
    again = report["again"]
    assert again["duplicate"] is True and again["revision"] == report["results"][0]["revision"]
    assert again["changes"][0]["id"] == report["ids"][0]


def test_the_log_chain_and_replay_agree(report):
    assert report["chain_ok"] is True
    assert report["replay_differences"] == 0


def test_statement_counts_do_not_change(report):
    assert report["lone_move_statements"] == 10
    assert report["batch_statements"] < 40


def test_the_snapshot_reads_postgres_rows_as_the_model_serializers_do(report):
    assert report["snapshot_equals_models"] is True


def test_a_batch_commits_in_its_write_pipeline_unless_a_caller_holds_the_transaction(report):
    # Four batches on their own: each sent COMMIT with its writes (and the rows are committed).
    assert report["committed_in_pipeline"] == [True] * 4
    assert report["seen_after_batches"] == report["nodes_total"] - 1
    # Inside a caller's atomic() the caller commits: nothing is visible elsewhere before it does.
    assert report["committed_in_pipeline_inside_outer"] == [False]
    assert report["seen_inside_outer"] == report["seen_after_batches"]
    assert report["seen_after_outer"] == report["nodes_total"]
