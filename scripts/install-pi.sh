#!/usr/bin/env bash
# Installs the pinned pi (@mariozechner/pi-coding-agent) from the npm registry into a cache folder
# outside the repository, once; prints the folder. Used by the end-to-end tests (test/e2e-pi.test.ts)
# and by .ci/run. HOOKBOX_AGENT_CACHE moves the cache (default ~/.cache/hookbox-agents).
exec "$(dirname "$0")/install-agent.sh" pi "@mariozechner/pi-coding-agent" "0.73.1" dist/cli.js
