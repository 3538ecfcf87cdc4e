#!/usr/bin/env bash
# Packages the desktop app for this platform (Linux: AppImage + deb; macOS: dmg).
# better-sqlite3 for Electron's ABI is built beside Node's, into native/electron/ (that needs
# Electron's headers or better-sqlite3's prebuilt binary, so internet: it belongs here and never in
# `npm ci`); node_modules keeps Node's build, so the CLI, the daemon and the tests keep working.
set -euo pipefail
cd "$(dirname "$0")/.."
npm run build
node scripts/build-native-electron.mjs --if-missing
npx electron-builder --config electron-builder.yml --publish never "$@"
