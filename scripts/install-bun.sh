#!/usr/bin/env bash
# Installs the pinned Bun (@oven/bun-linux-x64, from the npm registry) into a cache folder outside
# the repository, once; prints the binary's path. Used by the Bun job of .ci/run (vitest.bun.config.ts)
# and by test/runtime.test.ts (which calls it). HOOKBOX_AGENT_CACHE moves the cache (default ~/.cache/hookbox-agents).
set -euo pipefail
version="1.3.14"
dir="${HOOKBOX_AGENT_CACHE:-$HOME/.cache/hookbox-agents}/bun-$version"
bin="$dir/package/bin/bun"
if [ ! -f "$dir/.installed" ] || [ ! -x "$bin" ]; then
  mkdir -p "$dir"
  tarball="$(cd "$dir" && npm pack --silent --loglevel=error "@oven/bun-linux-x64@$version")"
  tar -xzf "$dir/$tarball" -C "$dir"
  rm -f "$dir/$tarball"
  chmod +x "$bin"
  [ "$("$bin" --version)" = "$version" ] || { echo "bun $version unpacked, but $bin does not answer $version" >&2; exit 1; }
  touch "$dir/.installed"
fi
echo "$bin"
