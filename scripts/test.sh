#!/usr/bin/env bash
# The test command of the README (`npm test`): brings up the test host when needed (real Docker
# engines, CRIU, the office server behind OpenSSH, Chromium), builds, type-checks, lints, and runs the
# unit, integration and end-to-end tests against the real parts.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "$(id -u)" = 0 ]; then
  bash scripts/testhost.sh >/dev/null
elif [ ! -f "${BERTH_TESTHOST_ENV:-/var/lib/berth-testhost/testhost.env}" ]; then
  echo "The tests need the test host: run 'sudo bash scripts/testhost.sh' once." >&2
  exit 1
fi

npm run build
npm run typecheck
# the floors of docs/ARCHITECTURE.md (boundaries/dependencies) and the house style (@stylistic/*)
npm run lint
npx vitest run "$@"
