#!/usr/bin/env bash
# bench/stream: raises the open-file limit (10,000 streams need 10,000 sockets in the api and
# as many in the load generator), then runs the bench from the repository root.
set -euo pipefail
cd "$(dirname "$0")/../.."
ulimit -n 20000
exec node --import tsx bench/stream/bench.ts "$@"
