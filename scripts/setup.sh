#!/usr/bin/env bash
# Idempotent setup of everything Canvasweb needs on Debian 12 (as root, or with sudo):
#   apt:     redis-server, chromium, fonts-noto-cjk, postgresql  (only what is missing)
#   python:  .venv (Python 3.11) with `pip install -e .[test,bench,lint]` (bench: matplotlib for the plots; lint: ruff, mypy + stubs, pre-commit),
#            pinned by scripts/constraints.txt
#   tiktoken offline cache in var/tiktoken (cl100k_base, o200k_base)
#   front end: npm ci + npm run build in frontend/ (when frontend/package.json exists)
#   database: manage.py migrate on the configured DATABASE_URL (default SQLite var/canvasweb.sqlite3)
# A second run skips the work already done (a few seconds).
#
# Knobs: CANVASWEB_SKIP_APT=1, CANVASWEB_SKIP_FRONTEND=1, CANVASWEB_SETUP_SKIP_MIGRATE=1,
#        CANVASWEB_VENV=/path/to/venv, PYTHON=python3.11
set -euo pipefail
# shellcheck source=lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
cd "$CW_ROOT"
mkdir -p "$CW_VAR"

on_exit() {
    local rc=$?
    if [ "$rc" -ne 0 ]; then cw_warn "setup.sh failed (exit $rc) during: ${CW_CURRENT_STEP:-?}"; fi
}
trap on_exit EXIT

SETUP_T0=$(cw_now_ms)

step_apt() {
    local need=()
    command -v redis-server >/dev/null 2>&1 || need+=(redis-server)
    command -v redis-cli >/dev/null 2>&1 || need+=(redis-tools)
    command -v chromium >/dev/null 2>&1 || need+=(chromium)
    dpkg -s fonts-noto-cjk >/dev/null 2>&1 || need+=(fonts-noto-cjk)
    command -v msgfmt >/dev/null 2>&1 || need+=(gettext)  # manage.py compilemessages (locale/)
    if ! cw_pg_bin >/dev/null || ! id postgres >/dev/null 2>&1; then need+=(postgresql); fi
    if [ ${#need[@]} -eq 0 ]; then
        cw_log "system packages present (redis-server, chromium, fonts-noto-cjk, postgresql)"
        return 0
    fi
    if [ "${CANVASWEB_SKIP_APT:-0}" = 1 ]; then
        cw_warn "missing system packages (${need[*]}) but CANVASWEB_SKIP_APT=1"
        return 0
    fi
    local sudo=()
    if ! cw_is_root; then
        command -v sudo >/dev/null 2>&1 || cw_die "need root or sudo to apt-get install: ${need[*]}"
        sudo=(sudo -n)
    fi
    cw_log "apt-get install ${need[*]}"
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -o Acquire::Retries=3 -o DPkg::Lock::Timeout=300 -qq update
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -o Acquire::Retries=3 -o DPkg::Lock::Timeout=300 \
        -y -qq install "${need[@]}" >"$CW_VAR/apt-install.log" 2>&1 \
        || { tail -n 40 "$CW_VAR/apt-install.log" >&2; cw_die "apt-get install failed"; }
}

find_python311() {
    local c
    for c in "${PYTHON:-}" python3.11 python3 /usr/bin/python3.11 /usr/local/bin/python3.11; do
        [ -n "$c" ] || continue
        if command -v "$c" >/dev/null 2>&1 && "$c" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))' 2>/dev/null; then
            command -v "$c"
            return 0
        fi
    done
    return 1
}

step_venv() {
    if [ -x "$CW_PY" ] && "$CW_PY" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))' 2>/dev/null; then
        cw_log "venv present: $CW_VENV ($("$CW_PY" -V))"
        return 0
    fi
    local py
    py=$(find_python311) || cw_die "Python 3.11 not found (set PYTHON=/path/to/python3.11)"
    rm -rf "$CW_VENV"
    "$py" -m venv "$CW_VENV"
    cw_log "created $CW_VENV with $("$CW_PY" -V)"
}

step_pip() {
    local stamp="$CW_VENV/.canvasweb-install.sha256" want
    want=$(cat pyproject.toml scripts/constraints.txt | sha256sum | cut -d' ' -f1)
    if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] \
        && "$CW_PY" -c 'import canvasweb, django, rest_framework, channels, daphne, channels_redis, tiktoken, openai, pytest, pytest_django, playwright' 2>/dev/null; then
        cw_log "python packages up to date"
        return 0
    fi
    "$CW_PY" -m pip install -q --disable-pip-version-check --no-input \
        -c scripts/constraints.txt -e ".[test,bench,lint]"
    # Build by-product of the editable install (metadata lives in the venv's dist-info).
    rm -rf "$CW_ROOT/canvasweb.egg-info"
    echo "$want" >"$stamp"
    cw_log "installed: $("$CW_PY" -m pip list --disable-pip-version-check 2>/dev/null | grep -ciE '^[a-z]') packages"
}

step_tiktoken() {
    local helper="$CW_ROOT/scripts/lib/tiktoken_cache.py" tmp="" js=""
    if ! "$CW_PY" "$helper" --has "$TIKTOKEN_CACHE_DIR" o200k_base; then
        # o200k_base (gpt-4o and later) is not in any wheel; js-tiktoken on npm carries it.
        if command -v npm >/dev/null 2>&1; then
            tmp=$(mktemp -d)
            if (cd "$tmp" && npm pack js-tiktoken@1.0.21 --silent >/dev/null 2>&1 \
                && tar xzf js-tiktoken-1.0.21.tgz package/dist/ranks/o200k_base.js); then
                js="$tmp/package/dist/ranks/o200k_base.js"
            else
                cw_warn "could not fetch js-tiktoken from npm; o200k_base stays unavailable offline"
            fi
        fi
    fi
    "$CW_PY" "$helper" "$TIKTOKEN_CACHE_DIR" ${js:+"$js"}
    [ -z "$tmp" ] || rm -rf "$tmp"
}

step_frontend() {
    local fe="$CW_ROOT/frontend"
    if [ "${CANVASWEB_SKIP_FRONTEND:-0}" = 1 ]; then cw_log "CANVASWEB_SKIP_FRONTEND=1: skipped"; return 0; fi
    if [ ! -f "$fe/package.json" ]; then cw_log "no frontend/package.json yet: skipped"; return 0; fi
    command -v npm >/dev/null 2>&1 || cw_die "npm not found (Node 20 + npm is expected on this machine)"
    if [ -f "$fe/package-lock.json" ]; then
        local stamp="$fe/node_modules/.canvasweb-lock.sha256" want
        want=$(cat "$fe/package.json" "$fe/package-lock.json" | sha256sum | cut -d' ' -f1)
        if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
            cw_log "node_modules up to date"
        else
            (cd "$fe" && npm ci --no-audit --no-fund --loglevel=error)
            echo "$want" >"$stamp"
        fi
    else
        cw_warn "frontend/package-lock.json missing: using npm install (commit the lock file)"
        (cd "$fe" && npm install --no-audit --no-fund --loglevel=error)
    fi
    if cw_npm_has_script "$fe" build; then
        (cd "$fe" && npm run --silent build)
    else
        cw_warn "frontend/package.json has no build script"
    fi
}

step_migrate() {
    if [ "${CANVASWEB_SETUP_SKIP_MIGRATE:-0}" = 1 ]; then cw_log "migrate skipped (CANVASWEB_SETUP_SKIP_MIGRATE=1)"; return 0; fi
    cw_manage migrate --noinput
    # Server-side translations (templates, API error messages); the committed .mo serves when msgfmt is absent.
    if command -v msgfmt >/dev/null 2>&1; then cw_manage compilemessages --ignore=.venv --ignore=frontend >/dev/null; fi
}

cw_step "apt packages" step_apt
cw_step "python venv" step_venv
cw_step "pip install -e .[test,bench,lint]" step_pip
cw_step "tiktoken offline cache" step_tiktoken
cw_step "frontend npm ci + build" step_frontend
cw_step "migrate" step_migrate
CW_TIMINGS+=("$(printf '%-28s %8s' "setup.sh total" "$(cw_fmt_ms $(($(cw_now_ms) - SETUP_T0)))")")
cw_print_timings "setup.sh timings"
