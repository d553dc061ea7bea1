#!/usr/bin/env bash
# Installs the pinned Bun (@oven/bun-linux-x64, from the npm registry) into a cache folder outside
# the repository, once; prints the binary's path. Used by the Bun job of .ci/run (vitest.bun.config.ts)
# and by the tests that run Bun. HOOKBOX_AGENT_CACHE moves the cache (default ~/.cache/hookbox-agents).
set -euo pipefail
version="1.3.14"
dir="$("$(dirname "$0")/install-agent.sh" bun "@oven/bun-linux-x64" "$version" bin/bun unpack)"
bin="$dir/package/bin/bun"
chmod +x "$bin"
[ "$("$bin" --version)" = "$version" ] || { echo "bun $version unpacked, but $bin does not answer $version" >&2; exit 1; }
echo "$bin"
