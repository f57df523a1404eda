#!/usr/bin/env bash
# bench/faults: SIGKILL of the api and of the console under concurrent secret writes, for longer
# than the suite's round: the suite's own tests (apps/api/test/kill-faults-*.e2e.test.ts) with more
# kills. It reports, per store, the kills, the writes acknowledged and attempted, and how many
# acknowledged writes the database lost and how many versions were handed out twice (both must
# be 0). PostgreSQL runs when PG_URL names a server (as for the tests).
#   bench/faults/run.sh                                    6 kills of each, 3 s of writes between kills
#   FAULT_KILLS=10 FAULT_INTERVAL_MS=5000 bench/faults/run.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
export FAULT_KILLS="${FAULT_KILLS:-6}" FAULT_INTERVAL_MS="${FAULT_INTERVAL_MS:-3000}"
exec pnpm --filter @svc/api exec vitest run test/kill-faults-sqlite.e2e.test.ts test/kill-faults-postgres.e2e.test.ts
