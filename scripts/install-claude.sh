#!/usr/bin/env bash
# Installs the pinned Claude Code (@anthropic-ai/claude-code, a native binary its postinstall copies
# from the platform package) from the npm registry into a cache folder outside the repository, once;
# prints the folder (the binary: <folder>/node_modules/@anthropic-ai/claude-code/bin/claude.exe).
# Used by the end-to-end tests (test/e2e-claude.test.ts) and by .ci/run. HOOKBOX_AGENT_CACHE moves
# the cache (default ~/.cache/hookbox-agents).
exec "$(dirname "$0")/install-agent.sh" claude "@anthropic-ai/claude-code" "2.1.328" bin/claude.exe
