#!/usr/bin/env bash
# shellcheck disable=SC2317  # functions below are called from traps
# Install what is missing, migrate, seed the demo users once, and serve Canvasweb
# with Daphne in the foreground (Ctrl-C stops it).
#
# Embedded defaults: SQLite (var/canvasweb.sqlite3), the in-process channel layer
# (no Redis), no model endpoint. Set DATABASE_URL / REDIS_URL / LLM_BASE_URL +
# LLM_API_KEY to change that (see canvasweb/config/settings.py).
#
# Env: PORT (default 8000), HOST (default 127.0.0.1), SKIP_SETUP=1
set -euo pipefail
# shellcheck source=lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
cd "$CW_ROOT"
mkdir -p "$CW_VAR"

PORT=${PORT:-8000}
HOST=${HOST:-127.0.0.1}

if cw_port_open "$PORT"; then
    cw_die "port $PORT is already in use; try: PORT=8001 scripts/run.sh"
fi

if [ "${SKIP_SETUP:-0}" != 1 ]; then
    CANVASWEB_SETUP_SKIP_MIGRATE=1 bash "$CW_ROOT/scripts/setup.sh"
fi

cw_step "migrate" cw_manage migrate --noinput

PASSWORD_HINT="create a user with: .venv/bin/python manage.py createsuperuser"
seed() {
    if [ "$(cw_db_has_users)" = 1 ]; then
        PASSWORD_HINT="passwords were printed on the first run; reset one with: .venv/bin/python manage.py changepassword alice"
        cw_log "database already has users: seed_demo skipped (passwords were printed on the first run)"
    elif cw_has_command seed_demo; then
        cw_manage seed_demo --url "http://$HOST:$PORT/"
        PASSWORD_HINT="see the passwords printed above"
    else
        cw_warn "manage.py seed_demo not available; create a user with: .venv/bin/python manage.py createsuperuser"
    fi
}
cw_step "seed demo data" seed

DAPHNE_PID=""
stop() {
    trap - INT TERM EXIT
    if cw_pid_alive "$DAPHNE_PID"; then
        kill -TERM "$DAPHNE_PID" 2>/dev/null || true
        for _ in $(seq 50); do cw_pid_alive "$DAPHNE_PID" || break; sleep 0.1; done
        if cw_pid_alive "$DAPHNE_PID"; then kill -KILL "$DAPHNE_PID" 2>/dev/null || true; fi
    fi
    return 0
}
trap 'stop; exit 130' INT
trap 'stop; exit 143' TERM
trap stop EXIT

cw_log "starting Daphne on $HOST:$PORT"
"$CW_VENV/bin/daphne" -b "$HOST" -p "$PORT" canvasweb.config.asgi:application &
DAPHNE_PID=$!
if ! cw_wait_port "$PORT" 60 "$DAPHNE_PID"; then
    wait "$DAPHNE_PID" 2>/dev/null || true
    cw_die "Daphne did not start on port $PORT"
fi
printf '\nCanvasweb is running at http://%s:%s/ — log in as alice (%s)\n' "$HOST" "$PORT" "$PASSWORD_HINT"
printf 'Press Ctrl-C to stop.\n\n'
rc=0
wait "$DAPHNE_PID" || rc=$?
DAPHNE_PID=""
exit "$rc"
