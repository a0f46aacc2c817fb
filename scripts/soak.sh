#!/usr/bin/env bash
# The reliability suite at full counts (python manage.py soak), with the services it needs:
# a private Redis (127.0.0.1:6392) and PostgreSQL 15 cluster (127.0.0.1:5442), stopped on exit.
# Takes about an hour on 2 cores; writes var/reliability/soak-<time>.md and .json.
#
# Usage: scripts/soak.sh [manage.py soak args, e.g. --quick, --only fuzz,stack, --seeds 50]
# Env:   SKIP_SETUP=1, SOAK_REDIS_PORT, SOAK_PG_PORT
set -euo pipefail
# shellcheck source=lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
cd "$CW_ROOT"
mkdir -p "$CW_VAR"

REDIS_PIDFILE="$CW_VAR/redis-soak.pid"
CW_REDIS_PORT=${SOAK_REDIS_PORT:-6392}
CW_PG_DATA="$CW_VAR/pg-soak"
SERVICES_UP=0
on_exit() {
    local rc=$?
    set +e
    if [ "$SERVICES_UP" = 1 ]; then
        cw_redis_stop "$CW_REDIS_PORT" "$REDIS_PIDFILE"
        cw_pg_stop "$CW_PG_DATA"
    fi
    exit "$rc"
}
trap on_exit EXIT
trap 'cw_warn "interrupted"; exit 130' INT
trap 'cw_warn "terminated"; exit 143' TERM

if [ "${SKIP_SETUP:-0}" != 1 ]; then
    bash "$CW_ROOT/scripts/setup.sh"
fi
[ -x "$CW_PY" ] || cw_die "$CW_PY missing: run scripts/setup.sh"

SERVICES_UP=1
cw_redis_start "$CW_REDIS_PORT" "$REDIS_PIDFILE"
cw_pg_start "${SOAK_PG_PORT:-5442}" "$CW_PG_DATA" 1 canvasweb canvasweb_test
export TEST_REDIS_URL="redis://127.0.0.1:$CW_REDIS_PORT/0"
export TEST_DATABASE_URL="postgres://postgres@127.0.0.1:$CW_PG_PORT/canvasweb"
unset DATABASE_URL REDIS_URL LLM_BASE_URL LLM_API_KEY LLM_MODEL
cw_log "TEST_REDIS_URL=$TEST_REDIS_URL TEST_DATABASE_URL=$TEST_DATABASE_URL"
"$CW_PY" manage.py soak "$@"
