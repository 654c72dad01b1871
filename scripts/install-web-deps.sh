#!/usr/bin/env bash
# Installs what the web pages' build and browser test need: Debian's chromium (headless, for the
# Playwright test), node and npm from Debian when missing, and web/node_modules from
# web/package-lock.json. Idempotent: each step runs only when what it makes is missing or stale.
set -euo pipefail

cd "$(dirname "$0")/.."

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive

missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium)
command -v node >/dev/null || missing+=(nodejs)
command -v npm >/dev/null || missing+=(npm)
if [ ${#missing[@]} -gt 0 ]; then
  echo "fathom: installing missing packages: ${missing[*]}" >&2
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if [ ! -d web/node_modules ] || [ web/package-lock.json -nt web/node_modules ]; then
  npm ci --prefix web --no-audit --no-fund
  touch web/node_modules
fi
