#!/usr/bin/env bash
# Installs the pinned oh-my-pi (@oh-my-pi/pi-coding-agent, a Bun program) from the npm registry into
# a cache folder outside the repository, once; prints the folder. Used by the end-to-end tests
# (test/e2e-omp.test.ts) and by .ci/run. HOOKBOX_AGENT_CACHE moves the cache (default
# ~/.cache/hookbox-agents). Pinned at 18.2.3: every dependency of it installs here (18.3.4's do not).
set -euo pipefail
version="18.2.3"
dir="${HOOKBOX_AGENT_CACHE:-$HOME/.cache/hookbox-agents}/omp-$version"
pkg="$dir/node_modules/@oh-my-pi/pi-coding-agent"
if [ ! -f "$dir/.installed" ] || [ ! -f "$pkg/dist/cli.js" ]; then
  mkdir -p "$dir"
  npm install --prefix "$dir" --save-exact --no-audit --no-fund --loglevel=error \
    "@oh-my-pi/pi-coding-agent@$version" >&2
  [ -f "$pkg/dist/cli.js" ] || { echo "oh-my-pi $version installed, but $pkg/dist/cli.js is missing" >&2; exit 1; }
  installed="$(node -p 'require(process.argv[1]).version' "$pkg/package.json")"
  [ "$installed" = "$version" ] || { echo "oh-my-pi $installed installed where $version was pinned" >&2; exit 1; }
  touch "$dir/.installed"
fi
echo "$dir"
