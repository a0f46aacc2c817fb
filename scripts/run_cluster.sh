#!/usr/bin/env bash
# shellcheck disable=SC2317  # functions below are called from traps
# The docker-compose topology without Docker, on this machine's loopback:
#   Redis       127.0.0.1:6391  (channel layer shared by both web processes)
#   PostgreSQL  127.0.0.1:5441  (data in var/pg-cluster, kept between runs)
#   web1        Daphne on 127.0.0.1:8101
#   web2        Daphne on 127.0.0.1:8102
# Both web processes share Redis + Postgres, so a change made through one is
# broadcast to WebSocket clients of the other. Ctrl-C stops everything.
#
# Env: CLUSTER_REDIS_PORT, CLUSTER_PG_PORT, CLUSTER_WEB_PORTS ("8101 8102"),
#      CLUSTER_FRESH=1 (wipe the cluster database first), SKIP_SETUP=1, LLM_*.
set -euo pipefail
# shellcheck source=lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
cd "$CW_ROOT"
mkdir -p "$CW_VAR"

REDIS_PIDFILE="$CW_VAR/redis-cluster.pid"
CW_REDIS_PORT=${CLUSTER_REDIS_PORT:-6391}
CW_PG_DATA="$CW_VAR/pg-cluster"
read -r -a WEB_PORTS <<<"${CLUSTER_WEB_PORTS:-8101 8102}"
WEB_PIDS=()
STARTED=0

for p in "${WEB_PORTS[@]}"; do
    if cw_port_open "$p"; then cw_die "port $p is already in use (set CLUSTER_WEB_PORTS)"; fi
done

cleanup() {
    set +e
    trap - INT TERM EXIT
    local pid
    for pid in "${WEB_PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null; done
    for pid in "${WEB_PIDS[@]}"; do
        for _ in $(seq 50); do cw_pid_alive "$pid" || break; sleep 0.1; done
        if cw_pid_alive "$pid"; then kill -KILL "$pid" 2>/dev/null; fi
    done
    if [ "$STARTED" = 1 ]; then
        cw_redis_stop "$CW_REDIS_PORT" "$REDIS_PIDFILE"
        cw_pg_stop "$CW_PG_DATA"
    fi
    cw_log "cluster stopped"
}
trap 'cleanup; exit 130' INT
trap 'cleanup; exit 143' TERM
trap cleanup EXIT

if [ "${SKIP_SETUP:-0}" != 1 ]; then
    CANVASWEB_SETUP_SKIP_MIGRATE=1 bash "$CW_ROOT/scripts/setup.sh"
fi

STARTED=1
cw_redis_start "$CW_REDIS_PORT" "$REDIS_PIDFILE"
cw_pg_start "${CLUSTER_PG_PORT:-5441}" "$CW_PG_DATA" "${CLUSTER_FRESH:-0}" canvasweb

export REDIS_URL="redis://127.0.0.1:$CW_REDIS_PORT/0"
export DATABASE_URL="postgres://postgres@127.0.0.1:$CW_PG_PORT/canvasweb"
cw_log "REDIS_URL=$REDIS_URL"
cw_log "DATABASE_URL=$DATABASE_URL"

cw_manage migrate --noinput
if [ "$(cw_db_has_users)" = 1 ]; then
    cw_log "database already has users: seed_demo skipped"
elif cw_has_command seed_demo; then
    cw_manage seed_demo
fi

i=0
for p in "${WEB_PORTS[@]}"; do
    i=$((i + 1))
    # Each process's output is prefixed with its name.
    "$CW_VENV/bin/daphne" -b 127.0.0.1 -p "$p" canvasweb.config.asgi:application \
        > >(sed -u "s/^/[web$i] /") 2>&1 &
    WEB_PIDS+=("$!")
done
i=0
for p in "${WEB_PORTS[@]}"; do
    cw_wait_port "$p" 60 "${WEB_PIDS[$i]}" || cw_die "Daphne did not start on port $p"
    i=$((i + 1))
done

printf '\nCanvasweb cluster is running:\n'
i=0
for p in "${WEB_PORTS[@]}"; do
    i=$((i + 1))
    printf '  web%d  http://127.0.0.1:%s/   (pid %s)\n' "$i" "$p" "${WEB_PIDS[$((i - 1))]}"
done
printf '  Redis %s   Postgres %s\n' "$REDIS_URL" "$DATABASE_URL"
printf 'Open the same canvas on both URLs to see cross-process updates. Ctrl-C stops everything.\n\n'

# Stop the whole cluster as soon as one web process exits.
rc=0
wait -n "${WEB_PIDS[@]}" || rc=$?
cw_warn "a web process exited (status $rc); stopping the cluster"
exit $((rc == 0 ? 1 : rc))
