#!/usr/bin/env bash
# Installs the pinned pi (@mariozechner/pi-coding-agent) from the npm registry into a cache folder
# outside the repository, once; prints the folder. Used by the end-to-end tests (test/e2e-pi.test.ts)
# and by .ci/run. HOOKBOX_AGENT_CACHE moves the cache (default ~/.cache/hookbox-agents).
set -euo pipefail
version="0.73.1"
dir="${HOOKBOX_AGENT_CACHE:-$HOME/.cache/hookbox-agents}/pi-$version"
cli="$dir/node_modules/@mariozechner/pi-coding-agent/dist/cli.js"
if [ ! -f "$dir/.installed" ] || [ ! -f "$cli" ]; then
  mkdir -p "$dir"
  npm install --prefix "$dir" --no-audit --no-fund --loglevel=error \
    "@mariozechner/pi-coding-agent@$version" >&2
  [ -f "$cli" ] || { echo "pi $version installed, but $cli is missing" >&2; exit 1; }
  touch "$dir/.installed"
fi
echo "$dir"
