#!/usr/bin/env bash
# Runs every benchmark and prints its figures (benchmarks never gate the tests).
set -euo pipefail
cd "$(dirname "$0")/.."
node scripts/build-cli.mjs
for b in bench/*.ts; do
  case "$b" in bench/support.ts) continue ;; esac
  echo "== $b"
  npx tsx "$b"
done
