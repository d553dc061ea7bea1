#!/usr/bin/env bash
# Installs every pinned agent the tests run, one after another, before any test starts: vitest's
# global setup (test/support/install-agents.ts) and .ci/run call it. Each install is a no-op once the
# cache holds an intact tree (scripts/install-agent.sh). Prints one line per agent: name, then its folder
# or binary; an agent that cannot be installed is named on stderr and the others still install.
set -uo pipefail
here="$(dirname "$0")"
status=0
for agent in pi claude omp bun codex gemini opencode; do
  if out="$("$here/install-$agent.sh")"; then echo "$agent $out"; else echo "$agent could not be installed: its end-to-end tests will fail" >&2; status=1; fi
done
exit "$status"
