#!/usr/bin/env bash
# Installs a pinned npm package (a coding agent) from the npm registry into a cache folder outside
# the repository, once; prints the folder. `install-agent.sh <folder name> <package> <version>
# <file the package must have>`; install-pi.sh and install-omp.sh name the agents the end-to-end
# tests run. HOOKBOX_AGENT_CACHE moves the cache (default ~/.cache/hookbox-agents).
set -euo pipefail
name="$1" package="$2" version="$3" file="$4"
dir="${HOOKBOX_AGENT_CACHE:-$HOME/.cache/hookbox-agents}/$name-$version"
pkg="$dir/node_modules/$package"
if [ ! -f "$dir/.installed" ] || [ ! -f "$pkg/$file" ]; then
  mkdir -p "$dir"
  npm install --prefix "$dir" --save-exact --no-audit --no-fund --loglevel=error "$package@$version" >&2
  [ -f "$pkg/$file" ] || { echo "$package $version installed, but $pkg/$file is missing" >&2; exit 1; }
  installed="$(node -p 'require(process.argv[1]).version' "$pkg/package.json")"
  [ "$installed" = "$version" ] || { echo "$package $installed installed where $version was pinned" >&2; exit 1; }
  touch "$dir/.installed"
fi
echo "$dir"
