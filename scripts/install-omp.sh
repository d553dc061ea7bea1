#!/usr/bin/env bash
# Installs the pinned oh-my-pi (@oh-my-pi/pi-coding-agent, a Bun program) from the npm registry into
# a cache folder outside the repository, once; prints the folder. Used by the end-to-end tests
# (test/e2e-omp.test.ts) and by .ci/run. HOOKBOX_AGENT_CACHE moves the cache (default
# ~/.cache/hookbox-agents). Pinned at 18.2.3: every dependency of it installs here (18.3.4's do not).
exec "$(dirname "$0")/install-agent.sh" omp "@oh-my-pi/pi-coding-agent" "18.2.3" dist/cli.js
