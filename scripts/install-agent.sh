#!/usr/bin/env bash
# Installs a pinned npm package (a coding agent, or Bun) from the npm registry into a cache folder
# outside the repository, once; prints the folder. `install-agent.sh <folder name> <package> <version>
# <file the package must have> [unpack]`: `unpack` takes the package's tarball as it is (npm pack,
# for a binary with no dependencies: Bun) instead of `npm install`ing it with its dependencies.
# HOOKBOX_AGENT_CACHE moves the cache (default ~/.cache/hookbox-agents).
#
# Why a lock, a temporary folder and a tree check: test files and `.ci/run` call these scripts at the
# same time, and an install cut short leaves a tree that has the checked file but not the rest. So one
# install of a folder runs at a time (flock), it happens in a temporary folder that is renamed into
# place only once checked, and `.installed` holds a digest of the whole tree (every path and size):
# a tree that no longer matches it (a file missing deep inside) is installed again.
set -euo pipefail
name="$1" package="$2" version="$3" file="$4" mode="${5:-install}"
cache="${HOOKBOX_AGENT_CACHE:-$HOME/.cache/hookbox-agents}"
dir="$cache/$name-$version"

# The digest of a tree: every path (but the marker) with its type and size, in a fixed order.
digest() { (cd "$1" && find . -path ./.installed -prune -o -printf '%y %s %P\n' | LC_ALL=C sort | sha256sum | cut -d' ' -f1); }
intact() { [ -f "$1/.installed" ] && [ "$(cat "$1/.installed")" = "$(digest "$1")" ]; }
# Where the package lands inside the folder.
if [ "$mode" = unpack ]; then pkg="package"; else pkg="node_modules/$package"; fi

mkdir -p "$cache"
exec 9>"$cache/.lock-$name-$version"
flock 9
if ! intact "$dir"; then
  [ -e "$dir" ] && echo "$package $version: the cached tree in $dir is incomplete or changed; installing it again" >&2
  tmp="$(mktemp -d "$cache/.$name-$version.XXXXXX")"
  trap 'rm -rf "$tmp"' EXIT
  if [ "$mode" = unpack ]; then
    tarball="$(cd "$tmp" && npm pack --silent --loglevel=error "$package@$version")"
    tar -xzf "$tmp/$tarball" -C "$tmp"
    rm -f "$tmp/$tarball"
  else
    npm install --prefix "$tmp" --save-exact --no-audit --no-fund --loglevel=error "$package@$version" >&2
  fi
  [ -f "$tmp/$pkg/$file" ] || { echo "$package $version installed, but $pkg/$file is missing" >&2; exit 1; }
  installed="$(node -p 'require(process.argv[1]).version' "$tmp/$pkg/package.json")"
  [ "$installed" = "$version" ] || { echo "$package $installed installed where $version was pinned" >&2; exit 1; }
  digest "$tmp" >"$tmp/.installed"
  rm -rf "$dir"
  mv -T "$tmp" "$dir"
  trap - EXIT
fi
echo "$dir"
