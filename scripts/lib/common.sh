# shellcheck shell=bash
# shellcheck disable=SC2034  # CW_* globals are read by the scripts that source this file
# Shared helpers for scripts/*.sh. Source it; do not run it.
#
#   CW_ROOT   repository root          CW_VAR   $CW_ROOT/var (git-ignored state)
#   CW_VENV   the virtualenv           CW_PY    its python
#
# Service helpers start private Redis / PostgreSQL servers on loopback for
# tests and the local cluster. They never touch a system-wide server.

CW_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
CW_VAR="$CW_ROOT/var"
CW_VENV="${CANVASWEB_VENV:-$CW_ROOT/.venv}"
CW_PY="$CW_VENV/bin/python"
export DJANGO_SETTINGS_MODULE="${DJANGO_SETTINGS_MODULE:-canvasweb.config.settings}"
# tiktoken reads encodings from here (filled by setup.sh: cl100k_base and o200k_base).
export TIKTOKEN_CACHE_DIR="${TIKTOKEN_CACHE_DIR:-$CW_VAR/tiktoken}"
export PYTHONUNBUFFERED=1

cw_log() { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*"; }
cw_warn() { printf '[%s] WARNING: %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
cw_die() { printf '[%s] ERROR: %s\n' "$(date +%H:%M:%S)" "$*" >&2; exit 1; }

cw_now_ms() { date +%s%3N; }
cw_fmt_ms() { printf '%d.%01ds' $(($1 / 1000)) $((($1 % 1000) / 100)); }

# cw_step NAME CMD... — runs CMD in the current shell (so `set -e` still applies
# inside it), logs its duration and records it in CW_TIMINGS.
CW_TIMINGS=()
CW_CURRENT_STEP=""
cw_step() {
    local name=$1 t0 dt
    shift
    CW_CURRENT_STEP=$name
    cw_log "==> $name"
    t0=$(cw_now_ms)
    "$@"
    dt=$(($(cw_now_ms) - t0))
    CW_TIMINGS+=("$(printf '%-28s %8s' "$name" "$(cw_fmt_ms "$dt")")")
    cw_log "<== $name ($(cw_fmt_ms "$dt"))"
    CW_CURRENT_STEP=""
}
cw_print_timings() {
    local title=${1:-Timings} line
    printf '%s\n' "---- $title ----"
    for line in "${CW_TIMINGS[@]}"; do printf '  %s\n' "$line"; done
}

cw_is_root() { [ "$(id -u)" -eq 0 ]; }

# manage.py if present, else `python -m django` (same settings module).
cw_manage() {
    if [ -f "$CW_ROOT/manage.py" ]; then
        (cd "$CW_ROOT" && "$CW_PY" manage.py "$@")
    else
        (cd "$CW_ROOT" && "$CW_PY" -m django "$@")
    fi
}
cw_has_command() { cw_manage help "$1" >/dev/null 2>&1; }
# Prints 1 when the configured database has at least one user, else 0.
cw_db_has_users() {
    (cd "$CW_ROOT" && "$CW_PY" - <<'PY'
import django
django.setup()
from django.contrib.auth import get_user_model
print(1 if get_user_model().objects.exists() else 0)
PY
    )
}

# ---------------------------------------------------------------- ports
cw_port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
cw_wait_port() { # PORT TIMEOUT_S [PID]: wait until something listens on PORT
    local port=$1 deadline=$(($(date +%s) + $2)) pid=${3:-}
    until cw_port_open "$port"; do
        if [ -n "$pid" ] && ! kill -0 "$pid" 2>/dev/null; then return 1; fi
        [ "$(date +%s)" -lt "$deadline" ] || return 1
        sleep 0.1
    done
}
cw_wait_port_closed() {
    local port=$1 deadline=$(($(date +%s) + $2))
    while cw_port_open "$port"; do
        [ "$(date +%s)" -lt "$deadline" ] || return 1
        sleep 0.1
    done
}
# cw_free_port START: START if nothing listens there, else the next free port (warns).
cw_free_port() {
    local p=$1
    while cw_port_open "$p"; do
        p=$((p + 1))
        [ "$p" -lt $(($1 + 50)) ] || cw_die "no free port in $1..$p"
    done
    [ "$p" = "$1" ] || cw_warn "port $1 is taken by another process; using $p instead"
    echo "$p"
}
cw_pid_alive() { [ -n "${1:-}" ] && kill -0 "$1" 2>/dev/null; }
cw_pid_cmdline() { tr '\0' ' ' <"/proc/$1/cmdline" 2>/dev/null || true; }

# ---------------------------------------------------------------- Redis
# cw_redis_start PORT PIDFILE — a throw-away Redis (no persistence) on 127.0.0.1.
# If PORT is held by a Redis this script family started earlier (same pidfile),
# that one is shut down first; if it is held by anything else, the next free
# port is used. Sets CW_REDIS_PORT.
cw_redis_start() {
    local port=$1 pidfile=$2 oldpid
    command -v redis-server >/dev/null 2>&1 || cw_die "redis-server not installed (run scripts/setup.sh)"
    if [ -f "$pidfile" ]; then
        oldpid=$(cat "$pidfile" 2>/dev/null || true)
        if cw_pid_alive "$oldpid" && [[ "$(cw_pid_cmdline "$oldpid")" == *redis-server* ]]; then
            cw_log "stopping leftover Redis pid $oldpid from an earlier run"
            kill "$oldpid" 2>/dev/null || true
            for _ in $(seq 50); do cw_pid_alive "$oldpid" || break; sleep 0.1; done
        fi
        rm -f "$pidfile"
    fi
    port=$(cw_free_port "$port")
    mkdir -p "$(dirname "$pidfile")"
    redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no \
        --daemonize yes --pidfile "$pidfile" --dir "$CW_VAR" \
        --logfile "${pidfile%.pid}.log" >/dev/null
    for _ in $(seq 100); do
        if redis-cli -p "$port" ping 2>/dev/null | grep -q PONG; then
            CW_REDIS_PORT=$port
            cw_log "Redis listening on 127.0.0.1:$port (pid $(cat "$pidfile" 2>/dev/null))"
            return 0
        fi
        sleep 0.1
    done
    tail -n 20 "${pidfile%.pid}.log" >&2 2>/dev/null || true
    cw_die "Redis did not start on port $port"
}
# cw_redis_stop PORT PIDFILE — only stops the server whose pid is in PIDFILE.
cw_redis_stop() {
    local port=$1 pidfile=$2 pid
    [ -f "$pidfile" ] || return 0
    pid=$(cat "$pidfile" 2>/dev/null || true)
    if cw_pid_alive "$pid"; then
        redis-cli -p "$port" shutdown nosave >/dev/null 2>&1 || kill "$pid" 2>/dev/null || true
        for _ in $(seq 50); do cw_pid_alive "$pid" || break; sleep 0.1; done
        cw_pid_alive "$pid" && kill -9 "$pid" 2>/dev/null
        cw_log "Redis on port $port stopped"
    fi
    rm -f "$pidfile"
}

# ---------------------------------------------------------------- PostgreSQL
# Debian's server binaries (/usr/lib/postgresql/N/bin); 15 preferred.
cw_pg_bin() {
    local d
    # shellcheck disable=SC2012
    for d in /usr/lib/postgresql/15/bin $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -Vr); do
        if [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ] && [ -x "$d/postgres" ]; then echo "$d"; return 0; fi
    done
    return 1
}
# Postgres refuses to run as root: as root, run its tools as the `postgres` OS user.
cw_as_pg() {
    if cw_is_root; then
        (cd / && runuser -u postgres -- "$@")
    else
        (cd / && "$@")
    fi
}
# cw_pg_start PORT DATADIR FRESH(0|1) DB... — a private cluster on 127.0.0.1 with
# trust auth for user postgres. FRESH=1 wipes DATADIR first. Sets CW_PG_PORT and
# CW_PG_DATA (which may differ from DATADIR when the postgres user cannot reach it).
cw_pg_start() {
    local port=$1 data=$2 fresh=$3 bin db
    shift 3
    bin=$(cw_pg_bin) || cw_die "PostgreSQL server binaries not found (run scripts/setup.sh)"
    if cw_is_root; then
        id postgres >/dev/null 2>&1 || cw_die "OS user 'postgres' missing (apt-get install postgresql)"
    fi
    # A cluster left running by an earlier (killed) run of ours: stop it.
    if [ -f "$data/postmaster.pid" ]; then
        cw_as_pg "$bin/pg_ctl" -D "$data" -m immediate -w stop >/dev/null 2>&1 || true
    fi
    # The postgres user must be able to reach the data directory; fall back to /tmp.
    if [ "$fresh" = 1 ]; then rm -rf "$data"; fi
    mkdir -p "$data"
    if cw_is_root; then chown postgres: "$data"; fi
    chmod 700 "$data"
    if cw_is_root && ! runuser -u postgres -- test -w "$data" 2>/dev/null; then
        local alt
        alt="/tmp/canvasweb-pg-$(basename "$data")-$(printf '%s' "$data" | cksum | cut -d' ' -f1)"
        cw_warn "user postgres cannot reach $data; using $alt"
        rm -rf "$data"
        data=$alt
        if [ -f "$data/postmaster.pid" ]; then
            cw_as_pg "$bin/pg_ctl" -D "$data" -m immediate -w stop >/dev/null 2>&1 || true
        fi
        if [ "$fresh" = 1 ]; then rm -rf "$data"; fi
        mkdir -p "$data" && chown postgres: "$data" && chmod 700 "$data"
    fi
    # Re-initialise when empty or made by another major version.
    if [ ! -f "$data/PG_VERSION" ] || [ "$(cat "$data/PG_VERSION")" != "$("$bin/postgres" -V | awk '{print $3}' | cut -d. -f1)" ]; then
        find "$data" -mindepth 1 -delete
        cw_as_pg "$bin/initdb" -D "$data" -U postgres -A trust -E UTF8 --no-locale -N >"$data.initdb.log" 2>&1 \
            || { cat "$data.initdb.log" >&2; cw_die "initdb failed"; }
        rm -f "$data.initdb.log"
    fi
    port=$(cw_free_port "$port")
    # Loopback only, no Unix socket (its default directory may not exist), and
    # durability off: this is a test/dev server.
    if ! cw_as_pg "$bin/pg_ctl" -D "$data" -l "$data/server.log" -w -t 60 -o \
        "-p $port -c listen_addresses=127.0.0.1 -c unix_socket_directories='' -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200" \
        start >/dev/null; then
        tail -n 30 "$data/server.log" >&2 2>/dev/null || true
        cw_die "PostgreSQL did not start on port $port"
    fi
    for db in "$@"; do
        if [ -z "$("$bin/psql" -h 127.0.0.1 -p "$port" -U postgres -d postgres -Atc "SELECT 1 FROM pg_database WHERE datname='$db'")" ]; then
            "$bin/createdb" -h 127.0.0.1 -p "$port" -U postgres "$db"
        fi
    done
    CW_PG_PORT=$port
    CW_PG_DATA=$data
    cw_log "PostgreSQL $("$bin/postgres" -V | awk '{print $3}') listening on 127.0.0.1:$port (data $data; databases: $*)"
}
cw_pg_stop() {
    local data=$1 bin
    [ -f "$data/postmaster.pid" ] || return 0
    bin=$(cw_pg_bin) || return 0
    cw_as_pg "$bin/pg_ctl" -D "$data" -m fast -w -t 30 stop >/dev/null 2>&1 \
        || cw_as_pg "$bin/pg_ctl" -D "$data" -m immediate -w stop >/dev/null 2>&1 || true
    cw_log "PostgreSQL ($data) stopped"
}

# npm helpers
cw_npm_has_script() { # DIR SCRIPT
    (cd "$1" && node -e 'const s=(require("./package.json").scripts)||{};process.exit(s[process.argv[1]]?0:1)' "$2")
}
cw_npm_script() { # DIR SCRIPT: prints the script's command line
    (cd "$1" && node -e 'const s=(require("./package.json").scripts)||{};process.stdout.write(s[process.argv[1]]||"")' "$2")
}
