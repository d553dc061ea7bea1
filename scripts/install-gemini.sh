#!/usr/bin/env bash
# Installs the pinned Gemini CLI (@google/gemini-cli, a Node bundle) from the npm registry into a
# cache folder outside the repository, once; prints the folder (the program:
# <folder>/node_modules/@google/gemini-cli/bundle/gemini.js). Used by the end-to-end tests
# (test/e2e-codex-gemini.test.ts) and by .ci/run. HOOKBOX_AGENT_CACHE moves the cache (default
# ~/.cache/hookbox-agents).
exec "$(dirname "$0")/install-agent.sh" gemini "@google/gemini-cli" "0.61.0" bundle/gemini.js
