#!/usr/bin/env bash
# Packages the desktop app for this platform (Linux: AppImage + deb; macOS: dmg; Windows: nsis).
# electron-builder rebuilds better-sqlite3 for Electron's ABI in node_modules while it packages
# (that needs Electron's headers, so it belongs here and never in `npm ci`); afterwards the Node
# build is restored so the CLI, the daemon and the tests keep working in this checkout.
set -euo pipefail
cd "$(dirname "$0")/.."
npm run build
status=0
npx electron-builder --config electron-builder.yml --publish never "$@" || status=$?
npm rebuild better-sqlite3
exit $status
