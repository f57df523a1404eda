#!/usr/bin/env bash
# One entry point for a fresh machine (Node 20 with npm is all it needs):
#   bash scripts/dev.sh start   install everything, start api + console (embedded SQLite, demo seeded)
#   bash scripts/dev.sh test    install everything the tests need, then run the whole suite
#                               (with a throwaway PostgreSQL for the PostgreSQL tests, unless
#                               PG_URL already names a server)
set -euo pipefail
cd "$(dirname "$0")/.."

PNPM_VERSION=10.34.8

ensure_pnpm() {
  if command -v pnpm >/dev/null 2>&1 && [ "$(pnpm --version)" = "$PNPM_VERSION" ]; then return; fi
  echo "installing pnpm $PNPM_VERSION" >&2
  if ! npm install -g "pnpm@$PNPM_VERSION" >/dev/null 2>&1; then
    # No write access to the global prefix: install into the user's home instead.
    npm install -g --prefix "$HOME/.local" "pnpm@$PNPM_VERSION" >/dev/null
    export PATH="$HOME/.local/bin:$PATH"
  fi
}

install_deps() {
  ensure_pnpm
  # better-sqlite3 compiles from source here (about a minute on the first install).
  pnpm install --frozen-lockfile
}

# Debian packages the test suite uses; installed when missing and we may (root or sudo).
ensure_system_packages() {
  local missing=()
  [ -x /usr/bin/chromium ] || missing+=(chromium)
  command -v wrk >/dev/null 2>&1 || missing+=(wrk)
  [ -d /usr/lib/postgresql ] || missing+=(postgresql)
  # The Python client's tests make a venv (packages/client-python/scripts/run.py).
  python3 -c 'import ensurepip, venv' >/dev/null 2>&1 || missing+=(python3-venv)
  [ ${#missing[@]} -eq 0 ] && return
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "installing Debian packages: ${missing[*]}" >&2
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
}

# A throwaway PostgreSQL for the tests: initdb into a temp folder, a free port on 127.0.0.1,
# a random password; stopped and removed when the tests end. Needs the server binaries
# (Debian's postgresql package, Homebrew's, …), not a running server. As root the cluster runs
# as the `postgres` user (PostgreSQL refuses to run as root).
PG_DIR=""
PG_BIN=""
PG_AS=()  # how to run the server binaries: as is, or as another user when we are root

find_pg_bin() {
  local dir
  if command -v pg_config >/dev/null 2>&1; then
    dir="$(pg_config --bindir 2>/dev/null || true)"
    if [ -n "$dir" ] && [ -x "$dir/initdb" ]; then echo "$dir"; return; fi
  fi
  dir="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)"
  if [ -n "$dir" ] && [ -x "$dir/initdb" ]; then echo "$dir"; return; fi
  if command -v initdb >/dev/null 2>&1; then dirname "$(command -v initdb)"; return; fi
  return 1
}

start_test_postgres() {
  if [ -n "${PG_URL:-}" ]; then
    echo "PostgreSQL tests use PG_URL (not starting a throwaway server)" >&2
    return
  fi
  if ! PG_BIN="$(find_pg_bin)"; then
    echo "PostgreSQL server binaries not found (apt-get install postgresql): the PostgreSQL tests will be skipped, or fail with CI set" >&2
    return
  fi
  PG_DIR="$(mktemp -d "${TMPDIR:-/tmp}/svc-pg.XXXXXX")"
  trap stop_test_postgres EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
  if [ "$(id -u)" -eq 0 ]; then
    local owner=postgres
    id postgres >/dev/null 2>&1 || owner=nobody
    chown "$owner" "$PG_DIR"
    PG_AS=(runuser -u "$owner" --)
  fi
  local pwfile="$PG_DIR/pwfile"
  local port password
  port="$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')"
  password="$(node -e 'console.log(require("crypto").randomBytes(18).toString("hex"))')"
  (umask 077 && echo "$password" >"$pwfile")
  [ ${#PG_AS[@]} -eq 0 ] || chown "${PG_AS[2]}" "$pwfile"
  ${PG_AS[@]+"${PG_AS[@]}"} "$PG_BIN/initdb" -D "$PG_DIR/data" -U postgres --pwfile="$pwfile" \
    --auth-local=trust --auth-host=scram-sha-256 -E UTF8 --locale=C --no-sync \
    >"$PG_DIR/initdb.log" 2>&1 || { cat "$PG_DIR/initdb.log" >&2; return 1; }
  rm -f "$pwfile"
  # A test server: durability off (fsync, synchronous_commit) for speed; its data is thrown away.
  ${PG_AS[@]+"${PG_AS[@]}"} "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/server.log" -w -t 60 \
    -o "-p $port -k $PG_DIR -c listen_addresses=127.0.0.1 -c max_connections=200 -c fsync=off -c synchronous_commit=off -c full_page_writes=off" \
    start >/dev/null || { cat "$PG_DIR/server.log" >&2; return 1; }
  export PG_URL="postgres://postgres:$password@127.0.0.1:$port/postgres"
  echo "PostgreSQL for the tests: throwaway server on 127.0.0.1:$port ($("$PG_BIN/postgres" --version))" >&2
}

stop_test_postgres() {
  [ -n "$PG_DIR" ] || return 0
  if [ -f "$PG_DIR/data/postmaster.pid" ]; then
    ${PG_AS[@]+"${PG_AS[@]}"} "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -m immediate -w stop >/dev/null 2>&1 || true
  fi
  rm -rf "$PG_DIR"
  PG_DIR=""
}

case "${1:-}" in
  start)
    install_deps
    exec pnpm start
    ;;
  test)
    ensure_system_packages
    install_deps
    start_test_postgres
    # Not exec: the EXIT trap stops the throwaway PostgreSQL afterwards.
    log=$(mktemp)
    status=0
    pnpm test 2>&1 | tee "$log" || status=$?
    # One closing line over every package's vitest summary, Maven's (the Java client's
    # total line, not its per-class lines) and pytest's: "N passed, N failed".
    sed 's/\x1b\[[0-9;]*m//g' "$log" | awk '/ Tests  / {
        for (i = 1; i <= NF; i++) { if ($(i+1) ~ /^passed/) p += $i; if ($(i+1) ~ /^failed/) f += $i }
      }
      /Tests run: [0-9]+, Failures: [0-9]+, Errors: [0-9]+, Skipped: [0-9]+$/ {
        for (i = 1; i <= NF; i++) { gsub(",", "", $(i+1)); v[$i] = $(i+1) }
        p += v["run:"] - v["Failures:"] - v["Errors:"] - v["Skipped:"]; f += v["Failures:"] + v["Errors:"]
      }
      # pytest (the Python client): "===== 3 failed, 130 passed, 1 error in 20.1s ====="
      /==+ .*[0-9]+ (passed|failed|errors?)[ ,].*in [0-9.]+s/ {
        for (i = 2; i <= NF; i++) { w = $i; sub(",", "", w); if (w == "passed") p += $(i-1); if (w == "failed" || w ~ /^errors?$/) f += $(i-1) }
      } END { printf "%d passed, %d failed\n", p, f }'
    rm -f "$log"
    exit "$status"
    ;;
  *)
    echo "usage: bash scripts/dev.sh start|test" >&2
    exit 2
    ;;
esac
