#!/usr/bin/env bash
# Installs the pinned opencode (opencode-linux-x64, the platform package that holds the Bun-compiled
# binary; opencode-ai's postinstall would download it, this package has none) from the npm registry
# into a cache folder outside the repository, once; prints the folder (the binary:
# <folder>/node_modules/opencode-linux-x64/bin/opencode). Used by the end-to-end tests
# (test/e2e-opencode.test.ts) and by .ci/run. HOOKBOX_AGENT_CACHE moves the cache (default
# ~/.cache/hookbox-agents).
exec "$(dirname "$0")/install-agent.sh" opencode "opencode-linux-x64" "1.18.33" bin/opencode
