#!/usr/bin/env bash
# One entry point for a fresh machine (Node 20 with npm is all it needs):
#   bash scripts/dev.sh start   install everything, start api + console (embedded SQLite, demo seeded)
#   bash scripts/dev.sh test    install everything the tests need, then run the whole suite
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
  [ ${#missing[@]} -eq 0 ] && return
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "installing Debian packages: ${missing[*]}" >&2
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
}

case "${1:-}" in
  start)
    install_deps
    exec pnpm start
    ;;
  test)
    ensure_system_packages
    install_deps
    exec pnpm test
    ;;
  *)
    echo "usage: bash scripts/dev.sh start|test" >&2
    exit 2
    ;;
esac
