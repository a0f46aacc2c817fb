#!/usr/bin/env bash
# The whole test suite, as CI runs it (.ci/run execs this):
#   1. scripts/setup.sh (idempotent installs, front-end build, migrate)
#   2. a private Redis (127.0.0.1:6390) and PostgreSQL 15 cluster (127.0.0.1:5440),
#      stopped again on exit, Ctrl-C or failure
#   3. lint: ruff check, ruff format --check, mypy (canvasweb/), npm run lint (ESLint); each one counted
#   4. front end: npm run typecheck, npm test (when package.json has them)
#   5. pytest -m "not e2e"                          (extra args go here)
#   6. DJANGO_ALLOW_ASYNC_UNSAFE=true pytest -m e2e  (separate process: the sync
#      Playwright fixtures leave an event loop running that breaks later asyncio tests)
# Ends with one line "N passed, N failed, N skipped" and exits non-zero if anything failed.
#
# Usage: scripts/test.sh [pytest args for the non-e2e run, e.g. tests/canvases -k undo]
# Env:   SKIP_E2E=1, SKIP_FRONTEND=1, SKIP_SETUP=1, SKIP_LINT=1, TEST_REDIS_PORT, TEST_PG_PORT,
#        PYTEST_TIMEOUT (s, default 1500), E2E_TIMEOUT (s, default 900)
# Tests get: TEST_REDIS_URL, TEST_DATABASE_URL, CANVASWEB_CHROMIUM, TIKTOKEN_CACHE_DIR;
#        DATABASE_URL, REDIS_URL and LLM_* are unset (SQLite + in-memory layer + no model).
set -euo pipefail
# shellcheck source=lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
cd "$CW_ROOT"
mkdir -p "$CW_VAR"

TEST_T0=$(cw_now_ms)
PYTEST_ARGS=("$@")
RESULTS="$CW_VAR/test-results"
REDIS_PIDFILE="$CW_VAR/redis-test.pid"
PG_DATA_WANTED="$CW_VAR/pg-test"
CW_REDIS_PORT=${TEST_REDIS_PORT:-6390}
CW_PG_DATA=$PG_DATA_WANTED
SERVICES_UP=0

TOTAL_P=0 TOTAL_F=0 TOTAL_S=0
REPORT=()

stop_services() {
    cw_redis_stop "$CW_REDIS_PORT" "$REDIS_PIDFILE" || true
    cw_pg_stop "$CW_PG_DATA" || true
}
SUMMARY_PRINTED=0
on_exit() {
    local rc=$?
    set +e
    trap - INT TERM
    if [ "$SERVICES_UP" = 1 ]; then stop_services; fi
    if [ "$SUMMARY_PRINTED" = 0 ] && [ "$rc" -ne 0 ]; then
        record "aborted" 0 1 0 "exit $rc during: ${CW_CURRENT_STEP:-?}"
        print_summary
    fi
    exit "$rc"
}
trap on_exit EXIT
trap 'cw_warn "interrupted"; exit 130' INT
trap 'cw_warn "terminated"; exit 143' TERM

# record LABEL PASSED FAILED SKIPPED NOTE
record() {
    TOTAL_P=$((TOTAL_P + $2)) TOTAL_F=$((TOTAL_F + $3)) TOTAL_S=$((TOTAL_S + $4))
    REPORT+=("$(printf '  %-26s %5d passed, %3d failed, %3d skipped  %s' "$1" "$2" "$3" "$4" "$5")")
}

print_summary() {
    printf '\n==================== Canvasweb test summary ====================\n'
    local line
    for line in "${REPORT[@]}"; do printf '%s\n' "$line"; done
    CW_TIMINGS+=("$(printf '%-28s %8s' "test.sh total" "$(cw_fmt_ms $(($(cw_now_ms) - TEST_T0)))")")
    cw_print_timings "test.sh timings"
    printf '%d passed, %d failed, %d skipped\n' "$TOTAL_P" "$TOTAL_F" "$TOTAL_S"
    SUMMARY_PRINTED=1
}

# ------------------------------------------------------------------ 1. setup
if [ "${SKIP_SETUP:-0}" != 1 ]; then
    setup_rc=0
    cw_step "setup.sh" bash "$CW_ROOT/scripts/setup.sh" || setup_rc=$?
    if [ "$setup_rc" -ne 0 ]; then
        record "setup.sh" 0 1 0 "exit $setup_rc: nothing else was run"
        print_summary
        exit 1
    fi
fi
[ -x "$CW_PY" ] || cw_die "$CW_PY missing: run scripts/setup.sh"
rm -rf "$RESULTS"
mkdir -p "$RESULTS"

# ------------------------------------------------------------------ 2. services
start_services() {
    SERVICES_UP=1
    cw_redis_start "${TEST_REDIS_PORT:-6390}" "$REDIS_PIDFILE"
    cw_pg_start "${TEST_PG_PORT:-5440}" "$PG_DATA_WANTED" 1 canvasweb canvasweb_test
}
cw_step "start Redis + PostgreSQL" start_services

export TEST_REDIS_URL="redis://127.0.0.1:$CW_REDIS_PORT/0"
export TEST_DATABASE_URL="postgres://postgres@127.0.0.1:$CW_PG_PORT/canvasweb"
CANVASWEB_CHROMIUM="$(command -v chromium || true)"
export CANVASWEB_CHROMIUM
# The suites run on the embedded defaults; tests opt into Redis/Postgres via TEST_*.
unset DATABASE_URL REDIS_URL LLM_BASE_URL LLM_API_KEY LLM_MODEL
cw_log "TEST_REDIS_URL=$TEST_REDIS_URL"
cw_log "TEST_DATABASE_URL=$TEST_DATABASE_URL"

# ------------------------------------------------------------------ 3. lint
# Each check counts as one passed or one failed test in the summary; output goes to the log and to
# $RESULTS/lint-<name>.txt. Config: pyproject.toml ([tool.ruff], [tool.mypy]), frontend/eslint.config.js.
lint_check() { # LABEL CMD...
    local label=$1 rc=0 out
    shift
    out="$RESULTS/lint-${label// /-}.txt"
    "$@" >"$out" 2>&1 || rc=$?
    if [ "$rc" -eq 0 ]; then
        record "lint: $label" 1 0 0 "ok"
    else
        tail -n 40 "$out" >&2
        record "lint: $label" 0 1 0 "exit $rc: $(tail -n 1 "$out" | cut -c1-60)"
    fi
}
lint_all() {
    local bin
    bin=$(dirname "$CW_PY")
    lint_check "ruff check" "$bin/ruff" check --no-cache .
    lint_check "ruff format" "$bin/ruff" format --check --no-cache .
    lint_check "mypy" "$CW_PY" -m mypy --no-incremental
    if [ "${SKIP_FRONTEND:-0}" != 1 ] && cw_npm_has_script "$FE" lint; then
        lint_check "eslint" bash -c "cd '$FE' && npm run --silent lint"
    fi
}
FE="$CW_ROOT/frontend"
if [ "${SKIP_LINT:-0}" = 1 ]; then
    cw_log "SKIP_LINT=1: lint skipped"
else
    cw_step "lint" lint_all
fi

# ------------------------------------------------------------------ 4. front end
frontend_typecheck() {
    local rc=0
    (cd "$FE" && npm run --silent typecheck) || rc=$?
    if [ "$rc" -eq 0 ]; then record "frontend typecheck" 0 0 0 "ok"; else record "frontend typecheck" 0 1 0 "exit $rc"; fi
}
frontend_test() {
    local rc=0 xml="$RESULTS/vitest.xml" script p f s
    script=$(cw_npm_script "$FE" test)
    if [[ "$script" == *vitest* ]]; then
        (cd "$FE" && CI=true npm test --silent -- --reporter=default --reporter=junit --outputFile.junit="$xml") || rc=$?
    else
        (cd "$FE" && CI=true npm test --silent) || rc=$?
    fi
    read -r p f s < <("$CW_PY" "$CW_ROOT/scripts/lib/junit_counts.py" "$xml") || true
    p=${p:-0} f=${f:-0} s=${s:-0}
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
    record "frontend tests" "$p" "$f" "$s" "exit $rc"
}
if [ "${SKIP_FRONTEND:-0}" = 1 ]; then
    cw_log "SKIP_FRONTEND=1: front-end checks skipped"
elif [ -f "$FE/package.json" ]; then
    if cw_npm_has_script "$FE" typecheck; then cw_step "npm run typecheck" frontend_typecheck; fi
    if cw_npm_has_script "$FE" test; then cw_step "npm test" frontend_test; fi
else
    cw_log "no frontend/package.json: front-end checks skipped"
fi

# ------------------------------------------------------------------ 5./6. pytest
has_test_files() { # DIR
    [ -d "$1" ] && [ -n "$(find "$1" -type f \( -name 'test_*.py' -o -name '*_test.py' \) -print -quit)" ]
}
# run_pytest LABEL XML EMPTY_IS_FAILURE TIMEOUT ARGS...
run_pytest() {
    local label=$1 xml=$2 empty_fails=$3 limit=$4 rc=0 p f s note
    shift 4
    timeout --foreground --kill-after=30 "$limit" "$CW_PY" -m pytest --junitxml="$xml" "$@" || rc=$?
    read -r p f s < <("$CW_PY" "$CW_ROOT/scripts/lib/junit_counts.py" "$xml") || true
    p=${p:-0} f=${f:-0} s=${s:-0}
    case $rc in
        0) note="ok" ;;
        1) note="tests failed" ;;
        5) if [ "$empty_fails" = 1 ]; then note="no tests collected (counted as a failure)"; f=$((f + 1))
           else note="no tests collected"; fi ;;
        124|137) note="timed out after ${limit}s"; f=$((f + 1)) ;;
        *) note="pytest exit $rc"; if [ "$f" -eq 0 ]; then f=1; fi ;;
    esac
    record "$label" "$p" "$f" "$s" "$note"
}

unit_pytest() {
    run_pytest "pytest -m 'not e2e'" "$RESULTS/pytest-main.xml" 0 "${PYTEST_TIMEOUT:-1500}" \
        -m "not e2e" -p no:playwright -ra --durations=15 "${PYTEST_ARGS[@]}"
}
e2e_pytest() {
    local empty_fails=0
    if has_test_files "$CW_ROOT/tests/e2e"; then empty_fails=1; fi
    DJANGO_ALLOW_ASYNC_UNSAFE=true run_pytest "pytest -m e2e" "$RESULTS/pytest-e2e.xml" "$empty_fails" \
        "${E2E_TIMEOUT:-900}" -m e2e -ra --durations=10 \
        --output "$RESULTS/playwright" --screenshot only-on-failure --tracing retain-on-failure
}

cw_step "pytest (not e2e)" unit_pytest
if [ "${SKIP_E2E:-0}" = 1 ]; then
    cw_log "SKIP_E2E=1: browser tests skipped"
else
    cw_step "pytest (e2e)" e2e_pytest
fi

# ------------------------------------------------------------------ summary
cw_step "stop services" stop_services
SERVICES_UP=0
print_summary
[ "$TOTAL_F" -eq 0 ]
